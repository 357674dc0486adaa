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

from desktop.core.session.repair import INTERRUPTED_NOTE, repair_messages
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
        message = {
            "role": role,
            "content": content,
            "timestamp": datetime.now().isoformat(),
            **extra,
        }
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
            self.messages.append(
                {**message, "timestamp": message.get("timestamp") or datetime.now().isoformat()}
            )
        self.metadata[CHECKPOINT] = {"messages": len(added), "at": datetime.now().isoformat()}
        self.updated_at = datetime.now()

    def finish_turn(self, added: list[dict[str, Any]]) -> None:
        """Store the turn's messages and clear the pending marker."""
        self.checkpoint(added)
        self.metadata.pop(PENDING, None)
        self.metadata.pop(CHECKPOINT, None)

    def take_pending_turn(self) -> dict[str, Any] | None:
        """Undo a turn that never finished, so it can be run again (a *Retry*).

        Removes the pending user message and whatever the turn checkpointed after it, clears
        the markers and returns that user message (``None`` when no turn is pending).
        """
        state = self.metadata.get(PENDING)
        if not isinstance(state, dict):
            return None
        index = int(state.get("index", -1))
        self.metadata.pop(PENDING, None)
        self.metadata.pop(CHECKPOINT, None)
        if not 0 <= index < len(self.messages) or self.messages[index].get("role") != "user":
            return None
        message = self.messages[index]
        del self.messages[index:]
        self.updated_at = datetime.now()
        return message

    def stop_turn(self, partial: str) -> bool:
        """End a pending turn that was stopped, keeping the answer text it had streamed.

        Unfinished tool calls get their "interrupted" result; ``partial`` (when not blank)
        becomes the turn's answer, marked ``stopped``; with nothing streamed a short note
        says the turn was interrupted. Returns ``False`` when no turn was pending.
        """
        if not self.has_pending_turn:
            return False
        self.metadata.pop(PENDING, None)
        self.metadata.pop(CHECKPOINT, None)
        messages, _ = repair_messages(self.messages, interrupted=not partial.strip())
        if partial.strip():
            if messages and messages[-1].get("content") == INTERRUPTED_NOTE:
                messages.pop()  # the streamed text is the answer, not a note
            messages.append(
                {
                    "role": "assistant",
                    "content": partial,
                    "stopped": True,
                    "timestamp": datetime.now().isoformat(),
                }
            )
        self.messages = messages
        self.updated_at = datetime.now()
        return True

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


@dataclass(frozen=True)
class SessionSummary:
    """What a session list shows about a session, read without loading it whole.

    Attributes:
        key: The session key (``desktop:1a2b``, ``telegram:42``).
        channel: The part of the key before ``:`` (``desktop``, ``telegram``, ``cli``…).
        title: The metadata title, else the start of the first user message, else "New chat".
        updated_at: ISO time of the last activity.
        path: The JSONL file.
    """

    key: str
    channel: str
    title: str
    updated_at: str
    path: Path


def _first_user_text(handle: Any, limit: int = 50) -> str:
    """The text of the first user message among the next ``limit`` lines of ``handle``."""
    for _ in range(limit):
        raw = handle.readline()
        if not raw:
            break
        try:
            data = json.loads(raw)
        except ValueError:
            continue
        if isinstance(data, dict) and data.get("role") == "user":
            probe = Session(key="", messages=[data])
            return probe.title
    return ""


def _message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content or "")


class SessionManager:
    """Loads, caches and atomically saves sessions under ``workspace/sessions``."""

    def __init__(
        self, workspace: Path, *, max_tool_result_chars: int = DEFAULT_MAX_TOOL_RESULT_CHARS
    ) -> None:
        self.directory = Path(workspace).expanduser() / "sessions"
        self.max_tool_result_chars = max_tool_result_chars
        self._cache: dict[str, Session] = {}
        self._lock = threading.RLock()

    def path_for(self, key: str) -> Path:
        """The JSONL file of ``key``."""
        return self.directory / session_filename(key)

    def cached(self, key: str) -> list[dict[str, Any]] | None:
        """A copy of the messages of ``key`` when it is in the cache (else ``None``)."""
        with self._lock:
            session = self._cache.get(key)
            return list(session.messages) if session is not None else None

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
            return {
                **message,
                "content": content[:limit] + f"\n… [{cut} more characters not saved]",
            }
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
                found[key] = {
                    "key": key,
                    "title": (meta.get("metadata") or {}).get("title") or "",
                    "updated_at": str(meta.get("updated_at") or ""),
                    "path": path,
                }
        with self._lock:
            for key, session in self._cache.items():
                found[key] = {
                    "key": key,
                    "title": session.metadata.get("title") or "",
                    "updated_at": session.updated_at.isoformat(),
                    "path": self.path_for(key),
                }
        return sorted(found.values(), key=lambda item: item["updated_at"], reverse=True)

    def summaries(self) -> list[SessionSummary]:
        """Every session on disk or in memory, most recent activity first, with channel and a
        title (the first user message when the session has no title of its own).

        Reads only the head of each file; call it from a worker thread.
        """
        found: dict[str, SessionSummary] = {}
        if self.directory.is_dir():
            for path in self.directory.glob("*.jsonl"):
                try:
                    with path.open("rb") as handle:
                        meta = json.loads(handle.readline() or b"{}")
                        if not isinstance(meta, dict) or meta.get("_type") != "metadata":
                            continue
                        title = str((meta.get("metadata") or {}).get("title") or "")
                        title = title or _first_user_text(handle)
                except (OSError, ValueError):
                    continue
                key = str(meta.get("key") or path.stem)
                found[key] = SessionSummary(
                    key,
                    key.partition(":")[0] if ":" in key else path.stem.partition("_")[0],
                    title or "New chat",
                    str(meta.get("updated_at") or ""),
                    path,
                )
        with self._lock:
            cached = list(self._cache.items())
        for key, session in cached:
            if not session.messages and not session.metadata.get("title") and key not in found:
                continue  # opened but never used
            found[key] = SessionSummary(
                key,
                key.partition(":")[0],
                session.title,
                session.updated_at.isoformat(),
                self.path_for(key),
            )
        return sorted(found.values(), key=lambda item: item.updated_at, reverse=True)

    def search(self, query: str, keys: list[str] | None = None) -> list[str]:
        """Keys of sessions whose title or message text contains ``query`` (case-insensitive).

        Scans the files (and unsaved cached sessions); call it from a worker thread.
        ``keys`` limits the search to those sessions.
        """
        needle = query.casefold().strip()
        if not needle:
            return []
        wanted = None if keys is None else set(keys)
        hits: list[str] = []
        for summary in self.summaries():
            if wanted is not None and summary.key not in wanted:
                continue
            if needle in summary.title.casefold():
                hits.append(summary.key)
                continue
            with self._lock:
                cached = self._cache.get(summary.key)
                messages = list(cached.messages) if cached is not None else None
            if messages is not None:
                if any(needle in _message_text(m).casefold() for m in messages):
                    hits.append(summary.key)
                continue
            try:
                with summary.path.open("rb") as handle:
                    for raw in handle:
                        if needle not in raw.decode("utf-8", "replace").casefold():
                            continue  # cheap pre-filter on the raw line
                        try:
                            data = json.loads(raw)
                        except ValueError:
                            continue
                        if (
                            isinstance(data, dict)
                            and not data.get("_type")
                            and needle in _message_text(data).casefold()
                        ):
                            hits.append(summary.key)
                            break
            except OSError:
                continue
        return hits

    def set_aside(self, key: str) -> Path | None:
        """Move a session's file out of the list (into ``sessions/.deleted/``), not destroying it.

        Returns where it went (for :meth:`restore`), or ``None`` when there was no file.
        """
        with self._lock:
            self._cache.pop(key, None)
            path = self.path_for(key)
            if not path.exists():
                return None
            trash = self.directory / ".deleted"
            trash.mkdir(parents=True, exist_ok=True)
            stamp = datetime.now().strftime("%Y%m%d-%H%M%S-%f")
            target = trash / f"{path.name}.{stamp}"
            path.replace(target)
            return target

    def restore(self, key: str, aside: Path) -> Path:
        """Put a file moved by :meth:`set_aside` back (an *Undo*); returns the session file.

        Raises:
            FileExistsError: A new session with the same key was saved in the meantime.
        """
        with self._lock:
            path = self.path_for(key)
            if path.exists():
                raise FileExistsError(f"{path} exists; not overwriting it")
            path.parent.mkdir(parents=True, exist_ok=True)
            Path(aside).replace(path)
            self._cache.pop(key, None)
            return path

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
