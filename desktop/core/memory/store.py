"""MemoryStore: the workspace's memory files in nanobot's on-disk format.

Files (relative to the workspace):

* ``memory/history.jsonl`` — an append-only log, one JSON object per line:
  ``{"cursor": int, "timestamp": "YYYY-MM-DD HH:MM", "content": str}`` (other keys, such as
  nanobot's ``session_key``, are kept as they are).
* ``memory/.cursor`` — the last cursor handed out (plain integer).
* ``memory/.dream_cursor`` — the last cursor Dream has consumed (plain integer).
* ``memory/MEMORY.md``, ``SOUL.md`` and ``USER.md`` — Markdown, rewritten atomically.

Cursors only ever grow: the next one is one more than the larger of ``.cursor`` and the
newest cursor in the log, so a missing or damaged ``.cursor`` cannot cause a reuse.

Other processes (``agent -m``, a gateway, the app) append to the same log, so writing it —
allocating a cursor and appending, or compacting — also holds an inter-process lock,
``memory/history.jsonl.lock`` (nanobot has no lock of its own for this file).

A command the model runs may write in the workspace, so every file here is opened through
:mod:`desktop.core.utils.ownfiles`: no symlink is followed below the workspace and nothing
but a regular file is used. A link, FIFO or socket where a file belongs is ignored by readers
(with a notice) and moved aside by the next write (the lock file included), so it can neither
redirect a read or write outside the workspace nor block a turn.

Reading never raises for bad content (:mod:`desktop.core.utils.validate` is the one reader of
every format here): a line that is not a valid entry is skipped, counted, and copied byte-exact
beside the log (``history.jsonl.corrupt-<time>``, once per distinct set of bad lines) with a
logged notice; an unusable cursor file reads as missing; Markdown that is not UTF-8 is read
with U+FFFD after the file was copied aside. A folder standing where the log or a cursor file
belongs is moved aside by the next write. Everything here is synchronous and thread-safe (one
lock per workspace, shared by every store instance in the process); async callers go through
:func:`asyncio.to_thread`.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from filelock import Timeout

from desktop.core.utils import ownfiles
from desktop.core.utils.atomic import atomic_write_bytes, atomic_write_text
from desktop.core.utils.ownfiles import OwnLock
from desktop.core.utils.validate import (
    MAX_INT,
    JsonLine,
    Unusable,
    iter_jsonl,
    load_json_text,
    notify,
    open_regular_file,
    read_int_file,
    read_text_document,
    set_aside_file,
    set_aside_lines,
    summarize,
)

log = logging.getLogger(__name__)

TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M"
DEFAULT_KEEP = 1000
HISTORY_LOCK_TIMEOUT_S = 30.0
_TAIL_BYTES = 64 * 1024

_locks: dict[Path, threading.RLock] = {}
_locks_guard = threading.Lock()


def _workspace_lock(workspace: Path) -> threading.RLock:
    """The process-wide lock of one workspace's history (shared across store instances)."""
    key = workspace.resolve()
    with _locks_guard:
        return _locks.setdefault(key, threading.RLock())


class HistoryBusyError(OSError):
    """Another program held the history lock for too long."""


@dataclass(frozen=True)
class HistoryEntry:
    """One line of ``history.jsonl``.

    Attributes:
        cursor: Position in the log (1, 2, 3, ...; never reused).
        timestamp: Local time of the entry, ``YYYY-MM-DD HH:MM``.
        content: The archived text (a summary, or a ``[RAW]`` dump).
        extra: Any other keys found on the line, preserved by compaction.
    """

    cursor: int
    timestamp: str
    content: str
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        """The entry as one JSON line (without the newline)."""
        record = {
            "cursor": self.cursor,
            "timestamp": self.timestamp,
            "content": self.content,
            **self.extra,
        }
        return json.dumps(record, ensure_ascii=False)


def check_entry(line: str | bytes) -> HistoryEntry | str:
    """The :class:`HistoryEntry` of one line, or why the line is not a valid entry.

    A valid line is a JSON object with a non-negative integer ``cursor`` (not a bool, below
    2**63) and string ``timestamp`` and ``content``; nothing in it may be ``NaN``, a lone
    surrogate or nested beyond :data:`~desktop.core.utils.validate.MAX_DEPTH`.
    """
    try:
        data, problems = load_json_text(line)
    except Unusable as exc:
        return exc.reason
    if problems:
        return summarize(problems, 1)
    if not isinstance(data, dict):
        return "not a JSON object"
    cursor = data.get("cursor")
    if isinstance(cursor, bool) or not isinstance(cursor, int) or not 0 <= cursor <= MAX_INT:
        return f"cursor {str(cursor)[:40]!r} is not a non-negative integer"
    timestamp, content = data.get("timestamp"), data.get("content")
    if not isinstance(timestamp, str):
        return "timestamp is not text"
    if not isinstance(content, str):
        return "content is not text"
    extra = {k: v for k, v in data.items() if k not in ("cursor", "timestamp", "content")}
    return HistoryEntry(cursor, timestamp, content, extra)


def parse_entry(line: str | bytes) -> HistoryEntry | None:
    """A :class:`HistoryEntry` from one line, or ``None`` when the line is malformed.

    The one parser of history lines (see :func:`check_entry`); everything that reads the log
    (the store, the system prompt, the Memory tab, Dream) goes through it.
    """
    entry = check_entry(line)
    return entry if isinstance(entry, HistoryEntry) else None


class MemoryStore:
    """Reads and writes one workspace's memory files.

    Args:
        workspace: The workspace folder (created lazily on first write).

    Attributes:
        malformed_count: Malformed lines seen by the latest full read of the history log.
    """

    def __init__(self, workspace: Path) -> None:
        self.workspace = Path(workspace).expanduser()
        self.memory_dir = self.workspace / "memory"
        self.history_file = self.memory_dir / "history.jsonl"
        self.cursor_file = self.memory_dir / ".cursor"
        self.dream_cursor_file = self.memory_dir / ".dream_cursor"
        self.memory_file = self.memory_dir / "MEMORY.md"
        self.soul_file = self.workspace / "SOUL.md"
        self.user_file = self.workspace / "USER.md"
        self.malformed_count = 0
        self._lock = _workspace_lock(self.workspace)
        self._file_lock = OwnLock(
            Path(str(self.history_file) + ".lock"),
            root=self.workspace,
            timeout=HISTORY_LOCK_TIMEOUT_S,
        )
        self._last_cursor = (
            0  # highest cursor this process has seen (guards against a lost .cursor)
        )

    # -- history: reading -----------------------------------------------------------------
    def _lines(self) -> Iterator[tuple[JsonLine, HistoryEntry | None]]:
        """Every non-blank line with its entry (``None`` when the line is not a valid entry).

        An unusable log (a folder, a special file) reads as empty, with a notice.
        """
        try:
            handle = open_regular_file(self.history_file, root=self.workspace)
        except Unusable as exc:
            notify(f"{self.history_file} {exc.reason}; the history log is ignored")
            return
        if handle is None:
            return
        with handle:
            for line in iter_jsonl(handle):
                if not line.ok:
                    yield line, None
                    continue
                entry = check_entry(line.raw or b"")
                if isinstance(entry, HistoryEntry):
                    yield line, entry
                else:
                    yield JsonLine(line.number, line.offset, line.size, line.raw, None, entry), None

    def _scan(self) -> Iterator[tuple[bytes, HistoryEntry | None]]:
        """Every non-blank line's bytes with its parsed entry (``None`` when malformed)."""
        for line, entry in self._lines():
            yield line.raw or b"", entry

    def entries(self) -> list[HistoryEntry]:
        """All valid entries in file order; updates :attr:`malformed_count`.

        Bad lines are copied byte-exact beside the log (once per distinct set) and reported.
        """
        with self._lock:
            found: list[HistoryEntry] = []
            bad: list[JsonLine] = []
            for line, entry in self._lines():
                if entry is None:
                    bad.append(line)
                else:
                    found.append(entry)
            self.malformed_count = len(bad)
            if bad:
                self._report(bad)
            return found

    def _report(self, bad: list[JsonLine]) -> None:
        """Copy the bad lines aside and log a notice (once per distinct set of lines)."""
        try:
            copy = set_aside_lines(self.history_file, bad, root=self.workspace)
            kept = f"copied to {copy.name}"
        except OSError as exc:
            copy, kept = None, f"not copied ({exc})"
        where = ", ".join(f"line {line.number}: {line.problem}" for line in bad[:3])
        more = f" and {len(bad) - 3} more" if len(bad) > 3 else ""
        notify(
            f"{self.history_file}: {len(bad)} unreadable line(s) skipped ({where}{more}); {kept}",
            key=f"history:{self.history_file}:{copy}",
        )

    def entries_after(self, cursor: int, limit: int | None = None) -> list[HistoryEntry]:
        """Entries with a cursor above ``cursor``, oldest first (at most ``limit`` of them)."""
        selected = [e for e in self.entries() if e.cursor > cursor]
        return selected if limit is None else selected[:limit]

    def _tail_cursor(self) -> int | None:
        """Cursor of the newest valid line, reading only the end of the file when possible."""
        try:
            handle = open_regular_file(self.history_file, root=self.workspace)
        except Unusable:
            return None
        if handle is None:
            return None
        with handle:
            size = handle.seek(0, os.SEEK_END)
            start = max(0, size - _TAIL_BYTES)
            handle.seek(start)
            data = handle.read()
        lines = data.split(b"\n")
        if start > 0:
            lines = lines[1:]  # the first piece may be the end of a longer line
        for raw in reversed(lines):
            entry = parse_entry(raw) if raw.strip() else None
            if entry is not None:
                return entry.cursor
        if start == 0:
            return None
        return max((e.cursor for _, e in self._scan() if e is not None), default=None)

    @property
    def last_cursor(self) -> int:
        """The last cursor allocated (0 when the log has never been written)."""
        with self._lock:
            return max(
                self._read_int(self.cursor_file), self._tail_cursor() or 0, self._last_cursor
            )

    # -- history: writing -----------------------------------------------------------------
    @contextmanager
    def _writing(self) -> Iterator[None]:
        """Hold the workspace's thread lock and the log's inter-process lock (taking it makes
        ``memory/``; a file standing there is moved aside)."""
        with self._lock:
            try:
                self._file_lock.acquire()
            except Timeout as exc:
                raise HistoryBusyError(
                    f"another program is holding {self._file_lock.lock_file}; try again later"
                ) from exc
            try:
                yield
            finally:
                self._file_lock.release()

    def append_history(self, content: str, *, when: datetime | None = None) -> int:
        """Append one entry and return its cursor.

        The cursor is allocated under the workspace lock and the inter-process lock, from
        the log as it is on disk then (another process may have appended); the line is
        flushed and fsynced before ``.cursor`` is updated, so a crash in between only leaves
        ``.cursor`` behind the log (which :attr:`last_cursor` tolerates).

        Args:
            content: The text to archive.
            when: Timestamp of the entry (default: now, local time).

        Raises:
            HistoryBusyError: Another program held the lock for ``HISTORY_LOCK_TIMEOUT_S``.
            OSError: The log cannot be written (e.g. ``memory/`` is a symlinked folder:
                :class:`~desktop.core.utils.ownfiles.Refused`).
        """
        stamp = (when or datetime.now()).strftime(TIMESTAMP_FORMAT)
        with self._writing():
            cursor = self.last_cursor + 1
            line = HistoryEntry(cursor, stamp, content.rstrip()).to_json() + "\n"
            # A torn last line gets its newline first, so it cannot swallow this entry.
            ownfiles.append(self.history_file, line.encode("utf-8"), root=self.workspace)
            self._last_cursor = cursor
            atomic_write_text(self.cursor_file, str(cursor), root=self.workspace)
            return cursor

    def compact_history(self, keep: int = DEFAULT_KEEP) -> int:
        """Drop the oldest entries so that at most ``keep`` remain; return how many were dropped.

        Entries after the dream cursor are never dropped, even when that leaves more than
        ``keep``. The file is rewritten atomically. Malformed lines are not carried over; the
        old file is first copied aside (``history.jsonl.malformed-<time>``) so nothing is lost.
        Holds the inter-process lock, so no other process's append is lost to the rewrite.
        """
        with self._writing():
            lines = list(self._scan())
            valid = [e for _, e in lines if e is not None]
            consumed = self.dream_cursor
            droppable = sum(1 for e in valid if e.cursor <= consumed)
            drop = min(max(0, len(valid) - max(keep, 0)), droppable)
            if drop == 0:
                return 0
            kept: list[bytes] = []
            dropped = 0
            for raw, entry in lines:
                if entry is None:
                    continue
                if dropped < drop and entry.cursor <= consumed:
                    dropped += 1
                    continue
                kept.append(raw if raw.endswith(b"\n") else raw + b"\n")
            if len(lines) != len(valid):
                copy = set_aside_file(self.history_file, "malformed", root=self.workspace)
                log.warning(
                    "history compaction set %d malformed line(s) aside in %s",
                    len(lines) - len(valid),
                    copy,
                )
            self._last_cursor = max(self._last_cursor, max((e.cursor for e in valid), default=0))
            if self._read_int(self.cursor_file) < self._last_cursor:
                atomic_write_text(self.cursor_file, str(self._last_cursor), root=self.workspace)
            atomic_write_bytes(self.history_file, b"".join(kept), root=self.workspace)
            self.malformed_count = 0
            return drop

    # -- dream cursor ---------------------------------------------------------------------
    @property
    def dream_cursor(self) -> int:
        """The last cursor Dream consumed (0 when missing or unreadable)."""
        return self._read_int(self.dream_cursor_file)

    @dream_cursor.setter
    def dream_cursor(self, cursor: int) -> None:
        if cursor < 0:
            raise ValueError(f"a cursor is never negative (got {cursor})")
        atomic_write_text(self.dream_cursor_file, str(int(cursor)), root=self.workspace)

    def _read_int(self, path: Path) -> int:
        """A cursor file's integer (0: missing, unusable, or not a regular file)."""
        return read_int_file(path, root=self.workspace) or 0

    # -- markdown files -------------------------------------------------------------------
    def _read_text(self, path: Path) -> str:
        """The file's text ('' when missing or unusable; see :func:`read_text_document`)."""
        return read_text_document(path, root=self.workspace) or ""

    def read_memory(self) -> str:
        """``memory/MEMORY.md`` ('' when missing)."""
        return self._read_text(self.memory_file)

    def write_memory(self, text: str) -> None:
        """Replace ``memory/MEMORY.md`` atomically."""
        atomic_write_text(self.memory_file, text, root=self.workspace)

    def read_soul(self) -> str:
        """``SOUL.md`` ('' when missing)."""
        return self._read_text(self.soul_file)

    def write_soul(self, text: str) -> None:
        """Replace ``SOUL.md`` atomically."""
        atomic_write_text(self.soul_file, text, root=self.workspace)

    def read_user(self) -> str:
        """``USER.md`` ('' when missing)."""
        return self._read_text(self.user_file)

    def write_user(self, text: str) -> None:
        """Replace ``USER.md`` atomically."""
        atomic_write_text(self.user_file, text, root=self.workspace)
