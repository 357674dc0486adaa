"""The part of :class:`~desktop.core.session.manager.SessionManager` that shares session
files with other processes: the folder lock, reading with what is known about the file,
merging another process's writes, appending, and the per-session turn lock.

Locks (``filelock``, released by the OS if a process dies):

* ``<sessions folder>/.session-files.lock`` — held for every read and write of a session file
  (the lock nanobot 0.3.5 takes for its id folder, so the two exclude each other), only for
  as long as that takes;
* ``<sessions folder>/.turns/<file>.lock`` — held from the first save of a turn (its user message) to
  the save that ends it, so the turns of one session run one at a time across processes, and
  a pending turn whose lock another process holds is known to be running, not interrupted.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from filelock import FileLock, Timeout

from desktop.core.session import sync
from desktop.core.session.sync import PENDING, DiskState, signature
from desktop.core.utils.atomic import atomic_write_bytes
from desktop.core.utils.validate import make_room_for_folder

if TYPE_CHECKING:
    from desktop.core.session.model import Session

log = logging.getLogger(__name__)

LOCK_NAME = ".session-files.lock"
LOCK_TIMEOUT_S = 30.0
TURN_WAIT_S = 30.0  # how long a turn waits for another process's turn before going ahead
TURN_POLL_S = 0.1


class SessionBusyError(OSError):
    """Another program held the sessions folder lock for too long."""


def turn_lock_path(directory: Path, filename: str) -> Path:
    """The turn lock file of the session file ``filename`` in ``directory``."""
    return directory / ".turns" / f"{filename}.lock"


class SharedFiles:
    """Mixin of the session manager, which provides ``directory``, ``path_for(key)``,
    ``_load(key)`` (the parser) and ``_for_disk(message)`` (how a message is written)."""

    path_for: Callable[[str], Path]
    _load: Callable[[str], Session | None]
    _for_disk: Callable[[dict[str, Any]], dict[str, Any]]

    @property
    def directory(self) -> Path:
        """The sessions folder (provided by the manager)."""
        raise NotImplementedError

    def _init_shared(self) -> None:
        self._disk: dict[str, DiskState] = {}
        self._files_lock: FileLock | None = None
        self._turn_locks: dict[str, FileLock] = {}
        self._turns_held: set[str] = set()
        self._turn_guard = threading.Lock()

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold the sessions folder's inter-process lock (a file standing where the folder
        belongs is moved aside first, with a notice)."""
        make_room_for_folder(self.directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        if self._files_lock is None:
            self._files_lock = FileLock(str(self.directory / LOCK_NAME), timeout=LOCK_TIMEOUT_S)
        files = self._files_lock
        try:
            files.acquire()
        except Timeout as exc:
            raise SessionBusyError(
                f"another program is holding {files.lock_file}; try again in a moment"
            ) from exc
        try:
            yield
        finally:
            files.release()

    def _read(self, key: str) -> tuple[Session | None, DiskState]:
        """Load ``key`` from disk (caller holds the folder lock) with what is known about the
        file (``None`` and an empty state when there is no file)."""
        path = self.path_for(key)
        if sync.heal_tail(path, path.with_name(path.name + ".quarantine")):
            log.warning("%s ended with a line cut short; it was set aside", path)
        session = self._load(key)
        shape = sync.file_shape(path)
        if session is None or shape is None:
            return session, DiskState()
        line = json.dumps(self._record(session), ensure_ascii=False)
        state = DiskState(
            sig=signature(path),
            messages=list(session.messages),
            record_line=line,
            slot=shape.slot,
            size=shape.size,
            rewrite=not shape.slot or shape.lines != 1 + len(session.messages),
        )
        return session, state

    @staticmethod
    def _record(session: Session) -> dict[str, Any]:
        """The metadata record (the file's first line) of ``session``."""
        return {
            "_type": "metadata",
            "key": session.key,
            "created_at": session.created_at.isoformat(),
            "updated_at": session.updated_at.isoformat(),
            "metadata": session.metadata,
            "last_consolidated": session.last_consolidated,
        }

    def _absorb(self, session: Session, state: DiskState) -> DiskState:
        """Merge the file as it is now into ``session`` (caller holds the folder lock);
        returns the state of the file as read."""
        loaded, disk = self._read(session.key)
        theirs = loaded.messages if loaded is not None else []
        ours = list(session.messages)
        turn = session._turn_user
        block = sync.find_object(ours, turn) if turn is not None else None
        merged, shared = sync.merge_messages(
            state.messages, ours, theirs, block_start=block, form=self._for_disk
        )
        marker = session.metadata.get(PENDING)
        own_turn = block is not None and isinstance(marker, dict) and marker.get("index") == block
        record = sync.merge_metadata(
            json.loads(state.record_line) if state.record_line else None,
            json.loads(json.dumps(self._record(session), ensure_ascii=False, default=str)),
            json.loads(disk.record_line) if disk.record_line else {},
            ours_turn=own_turn,
            sources=(ours, theirs),
            shared=shared,
            result=merged,
        )
        session.messages[:] = merged
        session.metadata.clear()
        session.metadata.update(record["metadata"])
        session.last_consolidated = record["last_consolidated"]
        for name in ("created_at", "updated_at"):
            try:
                setattr(session, name, datetime.fromisoformat(record[name]))
            except (TypeError, ValueError):
                pass
        on_disk = sync.common_prefix(merged, theirs, self._for_disk)
        disk.messages = merged[:on_disk] + theirs[on_disk:]
        if len(merged) != len(ours) or merged[shared:] != ours[shared:]:
            log.info("session %s: merged changes another process saved", session.key)
        return disk

    def _write(self, path: Path, session: Session, state: DiskState) -> None:
        """Append or rewrite (caller holds the folder lock and has absorbed the file)."""
        line = json.dumps(self._record(session), ensure_ascii=False)
        record = line.encode("utf-8")
        messages = session.messages
        old = state.messages
        kept = sync.common_prefix(messages, old, self._for_disk)
        changed = line != state.record_line
        unchanged = not changed and kept == len(old) == len(messages)
        if unchanged and state.sig is not None and not state.rewrite:
            return  # nothing to write
        if (
            state.sig is not None
            and not state.rewrite
            and kept == len(old)
            and (not changed or len(record) <= state.slot)
        ):
            before = json.loads(state.record_line or "{}").get("metadata", {}).get(PENDING)
            sync.append_lines(
                path,
                state,
                record if changed else None,
                sync.encode_lines(messages[len(old) :], self._for_disk),
                record_first=PENDING in session.metadata and session.metadata[PENDING] != before,
                write=self._write_at,
            )
        else:
            slot = sync.slot_for(record)
            data = record.ljust(slot, b" ") + b"\n" + sync.encode_lines(messages, self._for_disk)
            atomic_write_bytes(path, data)
            state.slot, state.size, state.rewrite = slot, len(data), False
        if kept == len(old):
            old.extend(messages[len(old) :])  # the common case: appended
        else:
            state.messages = list(messages)
        state.record_line = line
        state.sig = signature(path)

    def _write_at(self, fd: int, data: bytes, offset: int) -> None:
        """One write of an append-save (a seam for the crash harness)."""
        sync.write_at(fd, data, offset)

    # -- turns across processes -----------------------------------------------------------
    def _turn_lock(self, key: str) -> FileLock:
        with self._turn_guard:
            lock = self._turn_locks.get(key)
            if lock is None:
                path = turn_lock_path(self.directory, self.path_for(key).name)
                path.parent.mkdir(parents=True, exist_ok=True)
                lock = FileLock(str(path), thread_local=False)
                self._turn_locks[key] = lock
            return lock

    def _claim_turn(self, session: Session) -> None:
        """Hold ``session``'s turn lock until a save ends the turn (waiting for another
        process's turn up to ``TURN_WAIT_S``, then going ahead: the save merges)."""
        key = session.key
        with self._turn_guard:
            if key in self._turns_held:
                return
        lock = self._turn_lock(key)
        deadline = time.monotonic() + TURN_WAIT_S
        while True:
            try:
                lock.acquire(timeout=TURN_POLL_S)
                break
            except Timeout:
                if not session.has_pending_turn:
                    return  # the turn was stopped meanwhile
                if time.monotonic() >= deadline:
                    log.warning("session %s: another process's turn is still running", key)
                    return
        with self._turn_guard:
            if key in self._turns_held:
                lock.release()  # another thread of ours got there first
            else:
                self._turns_held.add(key)

    def _release_turn(self, key: str) -> None:
        with self._turn_guard:
            if key not in self._turns_held:
                return
            self._turns_held.discard(key)
            lock = self._turn_locks[key]
        lock.release()

    def _busy_elsewhere(self, key: str) -> bool:
        """Whether another process holds ``key``'s turn lock (is running its turn now)."""
        with self._turn_guard:
            if key in self._turns_held:
                return False
        lock = self._turn_lock(key)
        try:
            lock.acquire(blocking=False)
        except Timeout:
            return True
        lock.release()
        return False
