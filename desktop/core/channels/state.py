"""What a channel remembers across restarts: its cursor (Telegram update offset, IMAP UIDs,
Matrix sync token) and the ids it has already answered, so a restart answers nothing twice.

One small JSON file per channel (``<state dir>/<channel>.json``), written atomically. A damaged
file is set aside and the channel starts from a fresh state, with a warning.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import deque
from pathlib import Path
from typing import Any

from desktop.core.utils.atomic import atomic_write_text, set_aside

log = logging.getLogger(__name__)

SEEN_LIMIT = 2000  # ids kept for de-duplication (oldest dropped first)


class ChannelStateStore:
    """Persistent key/value state of one channel plus a bounded set of handled message ids.

    Blocking file I/O; call the saving methods from a worker thread.

    Args:
        path: The JSON file.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._values: dict[str, Any] = {}
        self._seen: deque[str] = deque(maxlen=SEEN_LIMIT)
        self._seen_set: set[str] = set()
        self.warning: str | None = None
        self._load()

    def _load(self) -> None:
        try:
            raw = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return
        except OSError as exc:
            self.warning = f"channel state {self.path} could not be read ({exc}); starting fresh"
            log.warning(self.warning)
            return
        try:
            data = json.loads(raw)
            if not isinstance(data, dict):
                raise ValueError("not an object")
            values = data.get("values", {})
            seen = data.get("seen", [])
            if not isinstance(values, dict) or not isinstance(seen, list):
                raise ValueError("bad fields")
        except ValueError as exc:
            kept = set_aside(self.path, "corrupt")
            self.warning = f"channel state {self.path} was damaged ({exc}); kept as {kept}"
            log.warning(self.warning)
            return
        self._values = values
        for item in seen[-SEEN_LIMIT:]:
            if isinstance(item, str):
                self._remember(item)

    def _remember(self, item: str) -> None:
        if len(self._seen) == self._seen.maxlen:
            self._seen_set.discard(self._seen[0])
        self._seen.append(item)
        self._seen_set.add(item)

    def get(self, key: str, default: Any = None) -> Any:
        """A stored value."""
        with self._lock:
            return self._values.get(key, default)

    def seen(self, item: str) -> bool:
        """Whether ``item`` (a message id) was handled before."""
        with self._lock:
            return item in self._seen_set

    def update(self, *, seen: list[str] | None = None, **values: Any) -> None:
        """Set values and/or mark ids as handled, then save (atomically)."""
        with self._lock:
            self._values.update(values)
            for item in seen or ():
                if item not in self._seen_set:
                    self._remember(item)
            text = json.dumps({"values": self._values, "seen": list(self._seen)}, indent=1)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(self.path, text + "\n")
