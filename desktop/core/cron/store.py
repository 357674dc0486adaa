"""The ``jobs.json`` file: loading, atomic saving, and sharing it with other processes.

The desktop app, ``nanobot-desktop cron …`` commands, a ``gateway`` and even the original
nanobot may use the same workspace. So the file on disk is the truth:

* every read-modify-write happens under an inter-process lock, the same file nanobot uses
  (``<workspace>/cron.lock``), and
* before every operation the store re-reads the file when its signature (inode, size,
  mtime) differs from the one it last read or wrote, so a job added elsewhere is seen and
  never overwritten.

Loading never raises for bad content. The file is read with the shared tolerant reader
(:mod:`desktop.core.utils.validate`) and every job field by field
(:meth:`~desktop.core.cron.types.CronJob.from_json`, plus :func:`validate_schedule`): a bad
field falls back to its default, a job that cannot be used (no id, an unusable schedule or
message, a duplicate id) is dropped, a bad ``version`` becomes the current one. Whenever
anything was dropped, the file is first copied byte-exact beside itself as
``jobs.json.corrupt-YYYYmmdd-HHMMSS`` (never overwritten; an identical earlier copy is reused)
and :attr:`JobStore.warning` says what happened; the good jobs are kept and the next save
writes them back. A file that cannot be used at all (not UTF-8, not JSON, not an object) is
copied aside the same way: on the first load the store starts empty, later the jobs already in
memory are kept. A folder standing where the file belongs is moved aside.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from filelock import Timeout

from desktop.core.cron.actions import ACTIONS_FILE, merge_queue, pending
from desktop.core.cron.schedule import validate_schedule
from desktop.core.cron.types import CronJob
from desktop.core.utils.atomic import atomic_write_text
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.ownfiles import OwnLock
from desktop.core.utils.validate import (
    MAX_INT,
    Unusable,
    make_room_for_folder,
    move_aside,
    notify,
    read_document,
    set_aside_file,
    summarize,
)
from desktop.core.utils.validate_fields import BadRecord

log = logging.getLogger(__name__)

STORE_VERSION = 1
LOCK_TIMEOUT_S = 10.0
MAX_STORE_BYTES = 16 * 1024 * 1024

Signature = tuple[int, int, int] | None


class StoreBusyError(RuntimeError):
    """Another program held the jobs file lock for too long."""


def _signature(path: Path) -> Signature:
    try:
        st = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def parse_store(data: Any) -> tuple[list[CronJob], int, dict[str, Any], list[str]]:
    """Jobs, version and unknown top-level keys of a parsed ``jobs.json``, field by field.

    Returns:
        The usable jobs, the version, the other top-level keys and one text per problem.

    Raises:
        BadRecord: The top level is not an object.
    """
    if not isinstance(data, dict):
        raise BadRecord("the top level is not a JSON object")
    problems: list[str] = []
    version = data.get("version", STORE_VERSION)
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= MAX_INT:
        problems.append(f"version {str(version)[:20]!r} is not a positive integer; using 1")
        version = STORE_VERSION
    raw_jobs = data.get("jobs", [])
    if not isinstance(raw_jobs, list):
        problems.append("jobs is not a list; no job could be read")
        raw_jobs = []
    jobs: list[CronJob] = []
    seen: set[str] = set()
    for index, item in enumerate(raw_jobs, 1):
        try:
            job = CronJob.from_json(item, problems, f"job {index}")
            validate_schedule(job.schedule)
        except (BadRecord, ValueError) as exc:
            problems.append(f"job {index}: {exc}; the job was set aside")
            continue
        if job.id in seen:
            problems.append(f"job {index}: a second job with id {job.id!r}; it was set aside")
            continue
        seen.add(job.id)
        jobs.append(job)
    extra = {k: v for k, v in data.items() if k not in ("version", "jobs")}
    return jobs, version, extra, problems


class JobStore:
    """The jobs of one ``jobs.json``, kept in step with the file.

    Attributes:
        path: The ``jobs.json`` file.
        jobs: The jobs as last read or written (mutate only inside :meth:`editing`).
        warning: Set when a damaged file (``jobs.json``, or nanobot's queue of job edits)
            was set aside or could not be read: a phrase, which the window translates.
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
        # The workspace: below it no link is followed (a command may write there).
        self.root = path.parent.parent
        self._file_lock = OwnLock(
            Path(str(path.parent) + ".lock"), root=self.root, timeout=LOCK_TIMEOUT_S
        )

    @contextmanager
    def _locked(self) -> Iterator[None]:
        with self._thread_lock:
            make_room_for_folder(self.path.parent)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                with self._file_lock:
                    yield
            except Timeout as exc:
                raise StoreBusyError(
                    f"another program is holding {self._file_lock.lock_file}; try again in a moment"
                ) from exc

    def refresh(self, *, merge_queued: bool = False) -> bool:
        """Re-read the file if it changed since we last saw it; ``True`` when it was re-read.

        ``merge_queued`` (the scheduler's owner): also apply the job edits nanobot queued in
        ``action.jsonl`` (:mod:`desktop.core.cron.actions`) and save the result.
        """
        with self._thread_lock:
            queued = merge_queued and pending(self.actions_path)
            if not queued and self._loaded and _signature(self.path) == self._sig:
                return False
            with self._locked():
                changed = (
                    self._read()
                    if not self._loaded or _signature(self.path) != self._sig
                    else False
                )
                if queued:
                    merged = merge_queue(
                        self.actions_path, self.jobs, self._save_jobs, tell=self.tell
                    )
                    changed = changed or merged is not None
                return changed

    @property
    def actions_path(self) -> Path:
        """nanobot's queue of job edits, ``action.jsonl`` beside ``jobs.json``."""
        return self.path.parent / ACTIONS_FILE

    def tell(self, notice: str) -> None:
        """Keep ``notice`` as :attr:`warning` (the window shows it) and log it once."""
        self.warning = notice
        notify(notice)

    def _save_jobs(self, jobs: list[CronJob]) -> None:
        self.jobs = jobs
        self._write()

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
        try:
            document = read_document(self.path, limit=MAX_STORE_BYTES, root=self.root)
        except Unusable as exc:
            if exc.kind in ("folder", "special", "link"):
                moved = move_aside(self.path)
                template = QT_TR_NOOP("it {problem}; it was moved to {name}")
                self._unusable(Phrase(template, problem=exc.reason, name=moved.name), first)
            else:
                self._set_aside(exc.reason, first)
            return True
        except OSError as exc:
            self._unusable(Phrase(QT_TR_NOOP("it cannot be read ({error})"), error=str(exc)), first)
            return True
        if document is None:
            if first:
                self.jobs = []
            self._sig = None
            return True
        data, problems = document
        try:
            jobs, version, extra, more = parse_store(data)
        except BadRecord as exc:
            self._set_aside(str(exc), first)
            return True
        problems.extend(more)
        self._version = version
        self._top_extra = extra
        self.jobs = jobs
        self._sig = _signature(self.path)
        if problems:
            self._partly_bad(problems)
        return True

    def _copy(self) -> str:
        """Copy the file aside; the words saying where it went (a phrase)."""
        try:
            self.corrupt_copy = set_aside_file(self.path, "corrupt", root=self.root)
        except OSError as exc:
            return Phrase(QT_TR_NOOP("it could not be copied aside ({error})"), error=str(exc))
        return Phrase(QT_TR_NOOP("it was kept as {name}"), name=self.corrupt_copy.name)

    def _partly_bad(self, problems: list[str]) -> None:
        kept = self._copy()
        template = QT_TR_NOOP(
            "The scheduled jobs file {path} had problems ({problems}); {kept} and the {count} "
            "usable job(s) were kept."
        )
        fields = {"problems": summarize(problems), "kept": kept, "count": len(self.jobs)}
        self.tell(Phrase(template, path=str(self.path), **fields))

    def _set_aside(self, reason: str, first: bool) -> None:
        self._unusable(
            Phrase(QT_TR_NOOP("{reason}; {kept}"), reason=reason, kept=self._copy()), first
        )
        # Remember the damaged file's signature: it is not set aside again, and the next
        # save replaces it (the copy stays).
        self._sig = _signature(self.path)

    def _unusable(self, what: str, first: bool) -> None:
        kept = Phrase(
            QT_TR_NOOP("the scheduler starts empty")
            if first
            else QT_TR_NOOP("the jobs in memory were kept")
        )
        template = QT_TR_NOOP("The scheduled jobs file {path} could not be read ({what}); {kept}.")
        self.tell(Phrase(template, path=str(self.path), what=what, kept=kept))
        if first:
            self.jobs = []
        self._sig = _signature(self.path)

    def _write(self) -> None:
        data = {
            "version": self._version,
            "jobs": [job.to_json() for job in self.jobs],
            **self._top_extra,
        }
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        atomic_write_text(self.path, text, root=self.root)
        self._sig = _signature(self.path)

    def get(self, job_id: str) -> CronJob | None:
        """The job with ``job_id`` as last read."""
        return next((job for job in self.jobs if job.id == job_id), None)
