"""One-shot reminders that already ran, kept for the Reminders view: ``cron/past.jsonl``.

A one-shot job (``at``, ``deleteAfterRun``) leaves ``jobs.json`` once it ran, as in nanobot.
So that the person can still see it -- what it said, and its receipts: delivered, snoozed,
caught up late, skipped -- the job as it was is appended here when the scheduler removes it.
The view lists the ones that ended within :data:`KEEP_DAYS` days; older lines are ignored.

Append-only, like the receipts (one whole line per record, under the receipts' lock):

* ``{"job": {…jobs.json entry…}, "endedAtMs": N}`` -- the job ended (ran and was removed);
* ``{"hidden": id, "atMs": N}`` -- the person deleted it from the view;
* ``{"restored": id, "atMs": N}`` -- Undo of that delete.

The last record about an id wins. nanobot reads only ``jobs.json`` and ``action.jsonl`` in the
cron folder, so it ignores this file.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from desktop.core.cron.receipts import LOCK_TIMEOUT_S, RECEIPTS_DIR, append_line, read_records
from desktop.core.cron.types import CronJob
from desktop.core.utils.ownfiles import OwnLock
from desktop.core.utils.validate_fields import BadRecord

log = logging.getLogger(__name__)

PAST_FILE = "past.jsonl"
#: How long an ended one-shot reminder stays in the view.
KEEP_DAYS = 7
DAY_MS = 86_400_000


@dataclass(frozen=True)
class PastJob:
    """A one-shot job that ran and was removed from ``jobs.json``.

    Attributes:
        job: The job as it was when it ended.
        ended_at_ms: When it was removed.
    """

    job: CronJob
    ended_at_ms: int


class PastJobs:
    """The ended one-shot jobs of one cron folder (see the module docstring).

    Args:
        cron_dir: The folder holding ``jobs.json``.
    """

    def __init__(self, cron_dir: Path) -> None:
        self.path = cron_dir / PAST_FILE
        self._folder = cron_dir / RECEIPTS_DIR
        self.root = cron_dir.parent  # the workspace
        self._lock = OwnLock(self._folder / ".lock", root=self.root, timeout=LOCK_TIMEOUT_S)

    def _append(self, record: dict[str, object]) -> None:
        self._folder.mkdir(parents=True, exist_ok=True)
        append_line(self.path, record, self._lock)

    def keep(self, job: CronJob, at_ms: int) -> None:
        """Record that ``job`` ran and was removed (blocking)."""
        self._append({"job": job.to_json(), "endedAtMs": at_ms})

    def hide(self, job_id: str, at_ms: int) -> None:
        """Take ``job_id`` out of the view (blocking; :meth:`restore` undoes it)."""
        self._append({"hidden": job_id, "atMs": at_ms})

    def restore(self, job_id: str, at_ms: int) -> None:
        """Undo :meth:`hide` (blocking)."""
        self._append({"restored": job_id, "atMs": at_ms})

    def recent(self, now_ms: int, days: int = KEEP_DAYS) -> list[PastJob]:
        """Jobs that ended in the last ``days`` days and are not hidden, newest first."""
        since = now_ms - days * DAY_MS
        ended: dict[str, PastJob] = {}
        hidden: set[str] = set()
        for record in read_records(self.path, root=self.root):
            if isinstance(record.get("hidden"), str):
                hidden.add(record["hidden"])
                continue
            if isinstance(record.get("restored"), str):
                hidden.discard(record["restored"])
                continue
            at = record.get("endedAtMs")
            if not isinstance(at, int) or isinstance(at, bool) or at < since:
                continue
            try:
                job = CronJob.from_json(record.get("job"))
            except BadRecord as exc:
                log.info("%s: a damaged line was skipped (%s)", self.path, exc)
                continue
            ended.pop(job.id, None)  # the latest record of an id wins (and sorts last)
            ended[job.id] = PastJob(job, at)
        shown = [p for p in ended.values() if p.job.id not in hidden]
        return sorted(shown, key=lambda p: p.ended_at_ms, reverse=True)

    def get(self, job_id: str, now_ms: int) -> PastJob | None:
        """The ended job ``job_id`` if it is in the view."""
        return next((p for p in self.recent(now_ms) if p.job.id == job_id), None)
