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

from desktop.core.utils.atomic import atomic_write_text

log = logging.getLogger(__name__)

HISTORY_KEYS = ("role", "content", "tool_calls", "tool_call_id", "name")
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

    def __init__(self, workspace: Path) -> None:
        self.directory = Path(workspace).expanduser() / "sessions"
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
        lines.extend(json.dumps(m, ensure_ascii=False) for m in session.messages)
        path = self.path_for(session.key)
        with self._lock:
            atomic_write_text(path, "\n".join(lines) + "\n")
            self._cache[session.key] = session
        return path
