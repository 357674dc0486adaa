"""Sessions in nanobot's JSONL format.

``workspace/sessions/<channel>_<chat>.jsonl``: a metadata line
``{"_type": "metadata", "key", "created_at", "updated_at", "metadata", "last_consolidated"}``
followed by one message per line. Saves are atomic. A line that does not parse is copied
byte-exact to ``<file>.quarantine`` and skipped; the original file is only replaced by the
next successful save.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from desktop.core.session.repair import repair_messages
from desktop.core.utils.atomic import atomic_write_text

log = logging.getLogger(__name__)

HISTORY_KEYS = ("role", "content", "tool_calls", "tool_call_id", "name")
PENDING = "pending_user_turn"
CHECKPOINT = "runtime_checkpoint"
DEFAULT_MAX_TOOL_RESULT_CHARS = 16_000
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def session_filename(key: str) -> str:
    """File name for a session key (``cli:direct`` → ``cli_direct.jsonl``)."""
    return _UNSAFE.sub("_", key.replace(":", "_")) + ".jsonl"


@dataclass
class Session:
    """One conversation.

    Attributes:
        key: ``channel:chat_id`` (or an override).
        messages: Every message, oldest first (never trimmed by consolidation).
        created_at: Creation time.
        updated_at: Last change.
        metadata: Free-form (title, channel hints...).
        last_consolidated: Index of the first message not yet archived to memory.
    """

    key: str
    messages: list[dict[str, Any]] = field(default_factory=list)
    created_at: datetime = field(default_factory=datetime.now)
    updated_at: datetime = field(default_factory=datetime.now)
    metadata: dict[str, Any] = field(default_factory=dict)
    last_consolidated: int = 0

    def add_message(self, role: str, content: Any, **extra: Any) -> dict[str, Any]:
        """Append a message stamped with the current time and return it."""
        message = {"role": role, "content": content, "timestamp": datetime.now().isoformat(), **extra}
        self.messages.append(message)
        self.updated_at = datetime.now()
        return message

    @property
    def title(self) -> str:
        """A human title: the metadata title, else the start of the first user message."""
        title = self.metadata.get("title")
        if title:
            return str(title)
        first = next((m for m in self.messages if m.get("role") == "user"), None)
        text = first.get("content") if first else ""
        if isinstance(text, list):
            text = " ".join(p.get("text", "") for p in text if isinstance(p, dict))
        text = " ".join(str(text or "").split())
        return (text[:60] + "…") if len(text) > 60 else (text or "New chat")

    def begin_turn(self, content: Any, **extra: Any) -> dict[str, Any]:
        """Add the user message of a new turn and mark the turn as pending."""
        message = self.add_message("user", content, **extra)
        self.metadata[PENDING] = {"index": len(self.messages) - 1}
        self.metadata.pop(CHECKPOINT, None)
        return message

    def checkpoint(self, added: list[dict[str, Any]]) -> None:
        """Record messages a running turn produced so far (tool calls, tool results)."""
        state = self.metadata.get(PENDING)
        if not isinstance(state, dict):
            return
        base = int(state.get("index", len(self.messages) - 1)) + 1
        del self.messages[base:]
        for message in added:
            self.messages.append({**message, "timestamp": message.get("timestamp") or datetime.now().isoformat()})
        self.metadata[CHECKPOINT] = {"messages": len(added), "at": datetime.now().isoformat()}
        self.updated_at = datetime.now()

    def finish_turn(self, added: list[dict[str, Any]]) -> None:
        """Store the turn's messages and clear the pending marker."""
        self.checkpoint(added)
        self.metadata.pop(PENDING, None)
        self.metadata.pop(CHECKPOINT, None)

    @property
    def has_pending_turn(self) -> bool:
        """Whether a turn was started and never finished."""
        return PENDING in self.metadata

    def repair(self) -> bool:
        """Make an interrupted session consistent (see :mod:`desktop.core.session.repair`)."""
        interrupted = self.has_pending_turn
        messages, changed = repair_messages(self.messages, interrupted=interrupted)
        if interrupted:
            self.metadata.pop(PENDING, None)
            self.metadata.pop(CHECKPOINT, None)
            changed = True
        if changed:
            self.messages = messages
            self.updated_at = datetime.now()
        return changed

    def get_history(self, max_messages: int | None = None) -> list[dict[str, Any]]:
        """Messages for the next request: unconsolidated, starting at a user message.

        Only the keys a provider understands are kept.
        """
        start = min(max(self.last_consolidated, 0), len(self.messages))
        window = self.messages[start:]
        if max_messages is not None and len(window) > max_messages:
            window = window[-max_messages:]
        first_user = next((i for i, m in enumerate(window) if m.get("role") == "user"), len(window))
        return [{k: m[k] for k in HISTORY_KEYS if k in m} for m in window[first_user:]]


class SessionManager:
    """Loads, caches and atomically saves sessions under ``workspace/sessions``."""

    def __init__(self, workspace: Path, *, max_tool_result_chars: int = DEFAULT_MAX_TOOL_RESULT_CHARS) -> None:
        self.directory = Path(workspace).expanduser() / "sessions"
        self.max_tool_result_chars = max_tool_result_chars
        self._cache: dict[str, Session] = {}
        self._lock = threading.RLock()

    def path_for(self, key: str) -> Path:
        """The JSONL file of ``key``."""
        return self.directory / session_filename(key)

    def get_or_create(self, key: str) -> Session:
        """The cached session, else the one on disk, else a new one."""
        with self._lock:
            if key not in self._cache:
                self._cache[key] = self._load(key) or Session(key=key)
            return self._cache[key]

    def _load(self, key: str) -> Session | None:
        path = self.path_for(key)
        if not path.exists():
            return None
        session = Session(key=key)
        bad: list[bytes] = []
        with path.open("rb") as handle:
            for number, raw in enumerate(handle, 1):
                if not raw.strip():
                    continue
                try:
                    data = json.loads(raw)
                    if not isinstance(data, dict):
                        raise ValueError("not an object")
                except ValueError:
                    log.warning("%s line %d does not parse; quarantined", path, number)
                    bad.append(raw if raw.endswith(b"\n") else raw + b"\n")
                    continue
                if data.get("_type") == "metadata":
                    session.metadata = data.get("metadata") or {}
                    session.last_consolidated = int(data.get("last_consolidated") or 0)
                    for name in ("created_at", "updated_at"):
                        try:
                            setattr(session, name, datetime.fromisoformat(data[name]))
                        except (KeyError, TypeError, ValueError):
                            pass
                elif data.get("_type"):
                    continue  # other record types belong to newer nanobot versions
                else:
                    session.messages.append(data)
        if bad:
            quarantine = path.with_name(path.name + ".quarantine")
            with quarantine.open("ab") as handle:
                handle.writelines(bad)
        if not 0 <= session.last_consolidated <= len(session.messages):
            session.last_consolidated = 0
        return session

    def _for_disk(self, message: dict[str, Any]) -> dict[str, Any]:
        """Tool results are truncated on disk (the live request keeps them whole)."""
        content = message.get("content")
        limit = self.max_tool_result_chars
        if message.get("role") == "tool" and isinstance(content, str) and len(content) > limit:
            cut = len(content) - limit
            return {**message, "content": content[:limit] + f"\n… [{cut} more characters not saved]"}
        return message

    def list_sessions(self) -> list[dict[str, Any]]:
        """Every session on disk, newest activity first: key, title, updated_at, path."""
        found: dict[str, dict[str, Any]] = {}
        if self.directory.is_dir():
            for path in self.directory.glob("*.jsonl"):
                try:
                    with path.open("rb") as handle:
                        meta = json.loads(handle.readline() or b"{}")
                except (OSError, ValueError):
                    continue
                if not isinstance(meta, dict) or meta.get("_type") != "metadata":
                    continue
                key = str(meta.get("key") or path.stem)
                found[key] = {"key": key, "title": (meta.get("metadata") or {}).get("title") or "",
                              "updated_at": str(meta.get("updated_at") or ""), "path": path}
        with self._lock:
            for key, session in self._cache.items():
                found[key] = {"key": key, "title": session.metadata.get("title") or "",
                              "updated_at": session.updated_at.isoformat(), "path": self.path_for(key)}
        return sorted(found.values(), key=lambda item: item["updated_at"], reverse=True)

    def rename(self, key: str, title: str) -> None:
        """Set a session's title and save it (not counted as activity)."""
        session = self.get_or_create(key)
        session.metadata["title"] = title.strip()
        self.save(session)

    def delete(self, key: str) -> bool:
        """Remove a session's file and cache entry; returns whether a file existed."""
        with self._lock:
            self._cache.pop(key, None)
            path = self.path_for(key)
            if path.exists():
                path.unlink()
                return True
        return False

    def save(self, session: Session) -> Path:
        """Write ``session`` atomically; returns the file."""
        meta = {
            "_type": "metadata",
            "key": session.key,
            "created_at": session.created_at.isoformat(),
            "updated_at": session.updated_at.isoformat(),
            "metadata": session.metadata,
            "last_consolidated": session.last_consolidated,
        }
        lines = [json.dumps(meta, ensure_ascii=False)]
        lines.extend(json.dumps(self._for_disk(m), ensure_ascii=False) for m in session.messages)
        path = self.path_for(session.key)
        with self._lock:
            atomic_write_text(path, "\n".join(lines) + "\n")
            self._cache[session.key] = session
        return path
