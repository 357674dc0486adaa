"""The ``jobs.json`` file: loading, atomic saving, and sharing it with other processes.

The desktop app, ``nanobot-desktop cron …`` commands, a ``gateway`` and even the original
nanobot may use the same workspace. So the file on disk is the truth:

* every read-modify-write happens under an inter-process lock, the same file nanobot uses
  (``<workspace>/cron.lock``), and
* before every operation the store re-reads the file when its signature (inode, size,
  mtime) differs from the one it last read or wrote, so a job added elsewhere is seen and
  never overwritten.

A file that cannot be read is copied aside as ``jobs.json.corrupt-YYYYmmdd-HHMMSS`` (that copy
is never overwritten) and :attr:`JobStore.warning` says what happened. On the first load the
store starts empty; later, the jobs already in memory are kept and written back.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from desktop.core.cron.types import CronJob
from desktop.core.utils.atomic import atomic_write_text, set_aside

log = logging.getLogger(__name__)

STORE_VERSION = 1
LOCK_TIMEOUT_S = 10.0

Signature = tuple[int, int, int] | None


class StoreBusyError(RuntimeError):
    """Another program held the jobs file lock for too long."""


def _signature(path: Path) -> Signature:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


class JobStore:
    """The jobs of one ``jobs.json``, kept in step with the file.

    Attributes:
        path: The ``jobs.json`` file.
        jobs: The jobs as last read or written (mutate only inside :meth:`editing`).
        warning: Set when a damaged file was set aside.
        corrupt_copy: Where the damaged file was kept.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.jobs: list[CronJob] = []
        self.warning: str | None = None
        self.corrupt_copy: Path | None = None
        self._loaded = False
        self._sig: Signature = None
        self._version = STORE_VERSION
        self._top_extra: dict[str, Any] = {}
        self._thread_lock = threading.RLock()
        self._file_lock = FileLock(str(path.parent) + ".lock", timeout=LOCK_TIMEOUT_S)

    @contextmanager
    def _locked(self) -> Iterator[None]:
        with self._thread_lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                with self._file_lock:
                    yield
            except Timeout as exc:
                raise StoreBusyError(
                    f"another program is holding {self._file_lock.lock_file}; try again in a moment"
                ) from exc

    def refresh(self) -> bool:
        """Re-read the file if it changed since we last saw it; ``True`` when it was re-read."""
        with self._thread_lock:
            if self._loaded and _signature(self.path) == self._sig:
                return False
            with self._locked():
                return self._read()

    @contextmanager
    def editing(self) -> Iterator[list[CronJob]]:
        """Lock the file, bring :attr:`jobs` up to date, yield it, then save it."""
        with self._locked():
            if not self._loaded or _signature(self.path) != self._sig:
                self._read()
            yield self.jobs
            self._write()

    def _read(self) -> bool:
        first = not self._loaded
        self._loaded = True
        if not self.path.exists():
            if first:
                self.jobs = []
            self._sig = None
            return True
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or not isinstance(data.get("jobs", []), list):
                raise ValueError("top level is not an object with a 'jobs' list")
            jobs = [CronJob.from_json(item) for item in data.get("jobs", [])]
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            self._set_aside(exc, first)
            return True
        self._version = int(data.get("version", STORE_VERSION) or STORE_VERSION)
        self._top_extra = {k: v for k, v in data.items() if k not in ("version", "jobs")}
        self.jobs = jobs
        self._sig = _signature(self.path)
        return True

    def _set_aside(self, exc: BaseException, first: bool) -> None:
        self.corrupt_copy = set_aside(self.path, "corrupt")
        kept = "the scheduler starts empty" if first else "the jobs in memory were kept"
        self.warning = (
            f"The scheduled jobs file {self.path} could not be read ({exc}); "
            f"it was kept as {self.corrupt_copy.name} and {kept}."
        )
        log.warning(self.warning)
        if first:
            self.jobs = []
        # Remember the damaged file's signature: it is not set aside again, and the next
        # save replaces it (the copy stays).
        self._sig = _signature(self.path)

    def _write(self) -> None:
        data = {
            "version": self._version,
            "jobs": [job.to_json() for job in self.jobs],
            **self._top_extra,
        }
        atomic_write_text(self.path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        self._sig = _signature(self.path)

    def get(self, job_id: str) -> CronJob | None:
        """The job with ``job_id`` as last read."""
        return next((job for job in self.jobs if job.id == job_id), None)
