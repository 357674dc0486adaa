"""What a channel remembers across restarts: its cursor (Telegram update offset, IMAP UIDs,
Matrix sync token) and the ids it has already answered, so a restart answers nothing twice.

One small JSON file per channel (``<state dir>/<channel>.json``), written atomically, read with
the shared tolerant reader (:mod:`desktop.core.utils.validate`). A damaged file is copied aside
byte-exact; its usable parts are kept and the rest starts fresh, with a warning.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import deque
from pathlib import Path
from typing import Any

from desktop.core.utils.atomic import atomic_write_text
from desktop.core.utils.validate import (
    Unusable,
    move_aside,
    read_document,
    set_aside_file,
    summarize,
)

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

    def _load(self) -> None:  # noqa: C901  # a tolerant load, field by field (each part kept or started fresh)
        """Read the file with the shared tolerant reader, field by field: a bad ``values`` or
        ``seen`` starts that part fresh, keeps the other, and the file is copied aside."""
        try:
            document = read_document(self.path)
        except (Unusable, OSError) as exc:
            reason = exc.reason if isinstance(exc, Unusable) else str(exc)
            kind = exc.kind if isinstance(exc, Unusable) else "unreadable"
            kept = self._keep_copy() if kind == "content" else ""
            if kind in ("folder", "special"):  # free the name, or no save could succeed
                kept = f"; moved to {move_aside(self.path).name}"
            self.warning = (
                f"channel state {self.path} could not be used ({reason}){kept}; starting fresh"
            )
            log.warning(self.warning)
            return
        if document is None:
            return
        data, problems = document
        if not isinstance(data, dict):
            problems.append("not an object")
            data = {}
        values, seen = data.get("values", {}), data.get("seen", [])
        if not isinstance(values, dict):
            problems.append("values is not an object")
            values = {}
        if not isinstance(seen, list):
            problems.append("seen is not a list")
            seen = []
        if any(not isinstance(item, str) for item in seen):
            problems.append("seen holds ids that are not text")
        if problems:
            self.warning = (
                f"channel state {self.path} was damaged ({summarize(problems)}){self._keep_copy()}; "
                "the usable parts are kept"
            )
            log.warning(self.warning)
        self._values = values
        for item in seen[-SEEN_LIMIT:]:
            if isinstance(item, str):
                self._remember(item)

    def _keep_copy(self) -> str:
        try:
            return f"; kept as {set_aside_file(self.path).name}"
        except OSError:
            return ""

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
