"""The cron service: the ``jobs.json`` store plus one asyncio timer for the next due job.

Time comes from an injectable ``clock`` (seconds, like :func:`time.time`). :meth:`CronService.tick`
runs every enabled job whose next run is at or before ``clock()``; the real timer does nothing
but call it, so tests drive time with a fake clock and ``await tick()``.

Running jobs: a due job is *claimed* first (its next run is moved on and the store saved), then
run; jobs run concurrently, so a reminder waiting for a busy conversation does not hold up the
others, and a job never runs twice at once. Its result is recorded afterwards.

Missed runs (the app was closed when a job was due) are handled once, at :meth:`start`:

* a missed ``at`` job runs once, its run recorded as ``late``;
* a recurring job (``every``/``cron``) runs once for all the runs it missed, also marked
  ``late``, and its next run is then computed from *now* -- never once per miss;
* a run cut short because the app closed (or restarted its agent) counts as missed: its job
  is due again at the time it was due, so the next start runs it once more (a one-shot
  reminder is never deleted before it reached the person).

Other processes (the CLI, a gateway, nanobot itself) may change ``jobs.json`` while we run; see
:mod:`desktop.core.cron.store`. The timer re-checks the file at least every
:data:`MAX_TIMER_DELAY_S`, so a job added elsewhere fires at most that late.

System jobs (``dream``, ``heartbeat``) are stored like nanobot's, with payload kind
``system_event``; they are listed but cannot be removed, only disabled in the config.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from pathlib import Path
from typing import Any

from desktop.core.cron.past import PastJobs
from desktop.core.cron.receipts import (
    CURRENT_RUN,
    JobResult,
    JobSkipped,
    KeptReminders,
    Receipt,
    ReceiptLog,
    new_id,
)
from desktop.core.cron.schedule import next_run, validate_schedule
from desktop.core.cron.store import JobStore
from desktop.core.cron.types import CronJob, CronPayload, CronRunRecord, CronSchedule
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.tasks import TaskOwner

log = logging.getLogger(__name__)

JobHandler = Callable[[CronJob], Awaitable[str | JobResult | None]]
SYSTEM_EVENT = "system_event"
# Upper bound on one timer wait: a job added by another process, a suspended machine or a
# changed wall clock is noticed within this time. One stat() per minute, not a busy loop.
MAX_TIMER_DELAY_S = 60.0
# How many missed runs a catch-up receipt counts at most.
MAX_MISSED_COUNT = 1000


class ProtectedJobError(Exception):
    """Raised when removing a system job (such as ``dream`` or ``heartbeat``); its message is
    a phrase (the window translates it; the tool and the CLI see the English)."""


class CronService:
    """Schedules and runs cron jobs stored in ``store_path`` (nanobot's jobs.json format)."""

    def __init__(
        self,
        store_path: str | Path,
        *,
        on_job: JobHandler,
        clock: Callable[[], float] = time.time,
        default_tz: str | None = None,
        protected: Iterable[str] = (),
    ) -> None:
        self.store = JobStore(Path(store_path))
        self.receipts = ReceiptLog(self.store.path.parent)
        self.kept = KeptReminders(self.store.path.parent)
        self.past = PastJobs(self.store.path.parent)
        self.on_job = on_job
        self.clock = clock
        self.default_tz = default_tz
        self.protected = frozenset(protected)
        self._running = False
        self._timer: asyncio.TimerHandle | None = None
        # The loop the timer lives on, and its thread: the job API is synchronous (file I/O
        # under an inter-process lock) and is called from worker threads, which must hand
        # re-arming to the loop instead of touching the timer themselves.
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self._tasks = TaskOwner("cron")
        self._active: set[str] = set()
        # When each claimed job was due, and how many runs a catch-up stands for.
        self._due: dict[str, tuple[int, int]] = {}

    @property
    def store_path(self) -> Path:
        """The ``jobs.json`` file."""
        return self.store.path

    @property
    def warning(self) -> str | None:
        """Why the store was set aside, if it was."""
        return self.store.warning

    @property
    def corrupt_copy(self) -> Path | None:
        """Where a damaged store was kept."""
        return self.store.corrupt_copy

    def _now_ms(self) -> int:
        return int(self.clock() * 1000)

    # ------------------------------------------------------------------ store
    def load(self) -> None:
        """Read the store (again, if another program changed it) and fill in missing next runs."""
        self.store.refresh(merge_queued=True)
        if any(self._needs_next(j) for j in self.store.jobs):
            with self.store.editing() as jobs:
                now = self._now_ms()
                for job in jobs:
                    if self._needs_next(job):
                        job.state.next_run_at_ms = self._initial_next(job, now)

    @staticmethod
    def _needs_next(job: CronJob) -> bool:
        return (
            job.enabled
            and job.state.next_run_at_ms is None
            and (job.schedule.kind != "at" or job.state.last_run_at_ms is None)
        )

    def _initial_next(self, job: CronJob, now_ms: int) -> int | None:
        """Next run of an enabled job that has none yet (new, re-enabled, or hand-written)."""
        if job.schedule.kind == "at":
            at = job.schedule.at_ms
            if at is None:
                return None
            return at if job.state.last_run_at_ms is None or at > now_ms else None
        return self._safe_next(job, now_ms)

    def _safe_next(self, job: CronJob, after_ms: int) -> int | None:
        try:
            return next_run(job.schedule, after_ms, self.default_tz)
        except ValueError as exc:
            job.state.last_error = str(exc)
            log.warning("cron job %s has an unusable schedule: %s", job.id, exc)
            return None

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        """Load the store, arm the timer, and start the runs missed while closed (once each).

        The catch-up runs in the background (a reminder turn can take a while); :meth:`idle`
        waits for it.
        """
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        await asyncio.to_thread(self.load)
        self._running = True
        # Claimed before the timer is armed, so a timer tick can't take a missed job first
        # (and run it without the ``late`` mark).
        due = await asyncio.to_thread(self._claim_due)
        if due:
            self._spawn(self._run_claimed(due, late=True))
        self._arm()

    async def idle(self) -> None:
        """Wait until no job runs (the catch-up after :meth:`start` included)."""
        await self._tasks.idle()

    async def stop(self) -> None:
        """Disarm the timer and cancel runs in progress (their turns repair themselves)."""
        self._running = False
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        current = asyncio.current_task()
        tasks = [t for t in self._tasks.cancel() if t is not current]
        await asyncio.gather(*tasks, return_exceptions=True)

    async def tick(self) -> None:
        """Run every job due at ``clock()`` and re-arm the timer."""
        await self._run_due(late=False)
        self._arm()

    def next_wake_ms(self) -> int | None:
        """The earliest next run among enabled jobs."""
        times = [
            j.state.next_run_at_ms
            for j in self.store.jobs
            if j.enabled and j.state.next_run_at_ms is not None and j.id not in self._active
        ]
        return min(times) if times else None

    def _arm(self) -> None:
        """Re-arm the timer for the next due job; safe to call from any thread.

        Called on the loop's thread it re-arms at once; from another thread (the job API runs
        in workers through ``asyncio.to_thread``) the re-arm is handed to the loop, so the
        timer is never cancelled without a new one taking its place.
        """
        loop = self._loop
        if loop is None or not self._running:
            return
        if threading.get_ident() != self._loop_thread:
            if not loop.is_closed():
                loop.call_soon_threadsafe(self._arm_on_loop)
            return
        self._arm_on_loop()

    def _arm_on_loop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        loop = self._loop
        if not self._running or loop is None:
            return
        wake = self.next_wake_ms()
        delay = MAX_TIMER_DELAY_S if wake is None else (wake - self._now_ms()) / 1000
        self._timer = loop.call_later(min(max(0.0, delay), MAX_TIMER_DELAY_S), self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        if self._running:
            self._spawn(self.tick())

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        return self._tasks.spawn(coro, name="run")

    # ------------------------------------------------------------------ running
    def _claim_due(self) -> list[CronJob]:
        """Pick the due jobs and move their schedule on (saved before they run)."""
        self.store.refresh(merge_queued=True)
        now = self._now_ms()
        if not any(self._is_due(j, now) for j in self.store.jobs):
            return []
        with self.store.editing() as jobs:
            due = sorted(
                (j for j in jobs if self._is_due(j, now)), key=lambda j: j.state.next_run_at_ms or 0
            )
            for job in due:
                self._active.add(job.id)
                due_at = job.state.next_run_at_ms or now
                if job.schedule.kind == "at":
                    job.state.next_run_at_ms = None
                    self._due[job.id] = (due_at, 1)
                else:  # from now: several missed runs make one run
                    self._due[job.id] = (due_at, self._count_missed(job, due_at, now))
                    job.state.next_run_at_ms = self._safe_next(job, now)
            return due

    def _count_missed(self, job: CronJob, due_at: int, now: int) -> int:
        """How many scheduled times fell in ``[due_at, now]`` (at most :data:`MAX_MISSED_COUNT`)."""
        count, at = 1, due_at
        while count < MAX_MISSED_COUNT:
            try:
                following = next_run(job.schedule, at, self.default_tz)
            except ValueError:
                break
            if following is None or following > now or following <= at:
                break
            count, at = count + 1, following
        return count

    def _is_due(self, job: CronJob, now: int) -> bool:
        return (
            job.enabled
            and job.id not in self._active
            and job.state.next_run_at_ms is not None
            and job.state.next_run_at_ms <= now
        )

    async def _run_due(self, *, late: bool) -> None:
        due = await asyncio.to_thread(self._claim_due)
        if due:
            self._arm()
            await self._run_claimed(due, late=late)

    async def _run_claimed(self, due: list[CronJob], *, late: bool) -> None:
        await asyncio.gather(*(self._fire(job, late=late, manual=False) for job in due))

    async def _fire(self, job: CronJob, *, late: bool, manual: bool) -> str | None:
        started = self.clock()
        outcome: str | JobResult | None = None
        error: str | None = None
        skipped: JobSkipped | None = None
        retry_at: int | None = None
        due_at, missed = self._due.pop(job.id, (None, 0))
        self._active.add(job.id)
        run_id = new_id()
        token = CURRENT_RUN.set(run_id)
        try:
            outcome = await self.on_job(job)
        except asyncio.CancelledError:
            error = "cancelled (the app was closing)"
            if not manual and due_at is not None:  # interrupted, not done: never dropped
                retry_at = due_at
                error += "; it runs again at the next start"
            raise
        except JobSkipped as exc:
            skipped = exc
        except Exception as exc:  # noqa: BLE001 - the job failed; record it and keep the scheduler alive
            error = str(exc) or type(exc).__name__
            log.warning("cron job %s failed: %s", job.id, error)
        finally:
            CURRENT_RUN.reset(token)
            self._active.discard(job.id)
            if skipped is not None:  # a reminder's own text may have been delivered all the same
                result = skipped.delivered or JobResult(None)
            else:
                result = outcome if isinstance(outcome, JobResult) else JobResult(outcome)
            error = error or result.error
            duration = max(0, int((self.clock() - started) * 1000))
            status = "skipped" if skipped is not None else "error" if error else "ok"
            record = CronRunRecord(
                run_at_ms=int(started * 1000),
                status=status,
                duration_ms=duration,
                error=skipped.reason if skipped is not None else error,
                late=late,
            )
            receipt = Receipt(
                id=run_id,
                job_id=job.id,
                job_name=job.name,
                outcome=_outcome(result, error, skipped),
                at_ms=int(started * 1000),
                due_at_ms=None if manual else due_at,
                duration_ms=duration,
                late=late,
                missed=missed if late else 0,
                delivered_to=result.delivered_to,
                reason=skipped.reason if skipped is not None else error or result.undelivered,
                cause=skipped.cause if skipped is not None else None,
                quiet=result.quiet,
            )
            await asyncio.to_thread(self._record, job.id, record, manual, receipt, retry_at)
        return result.text

    def _record(
        self,
        job_id: str,
        record: CronRunRecord,
        manual: bool,
        receipt: Receipt,
        retry_at: int | None = None,
    ) -> None:
        """Write the run's receipt and history; a one-shot job that ran is done.

        ``retry_at``: the run was interrupted (the app closed while it ran): its next run goes
        back to that due time, so the next start catches it up (late), as a missed run --
        a one-shot reminder is never deleted before it reached the person. A one-shot job
        removed after its run is kept in :attr:`past` for the Reminders view.
        """
        try:
            self.receipts.append(receipt)
        except Exception:
            log.exception("writing the receipt of cron job %s failed", job_id)
        ended = self._record_in_store(job_id, record, manual, retry_at)
        if ended is not None:
            try:
                self.past.keep(ended, self._now_ms())
            except Exception:
                log.exception("keeping the ended cron job %s for the view failed", job_id)

    def _record_in_store(
        self, job_id: str, record: CronRunRecord, manual: bool, retry_at: int | None
    ) -> CronJob | None:
        """The run's history in ``jobs.json``; the one-shot job it removed, if it did."""
        with self.store.editing() as jobs:
            job = next((j for j in jobs if j.id == job_id), None)
            if job is None:  # removed while it ran
                return None
            job.state.record(record)
            job.updated_at_ms = record.run_at_ms + record.duration_ms
            if retry_at is not None:
                following = job.state.next_run_at_ms
                job.state.next_run_at_ms = min(following or retry_at, retry_at)
                return None
            if not manual and job.schedule.kind == "at":
                # A skipped one-shot reminder is kept (disabled), never deleted unseen.
                if job.delete_after_run and record.status != "skipped":
                    jobs.remove(job)
                    return job
                job.enabled = False
                job.state.next_run_at_ms = None
            return None

    # ------------------------------------------------------------------ API
    def list_jobs(self, include_disabled: bool = True) -> list[CronJob]:
        """Jobs sorted by next run (jobs without one last)."""
        self.load()
        jobs = [j for j in self.store.jobs if include_disabled or j.enabled]
        return sorted(
            jobs, key=lambda j: (j.state.next_run_at_ms is None, j.state.next_run_at_ms or 0)
        )

    def get_job(self, job_id: str) -> CronJob | None:
        """The job with ``job_id``, or ``None``."""
        self.load()
        return self.store.get(job_id)

    def is_protected(self, job_id: str) -> bool:
        """Whether ``job_id`` is a system job that cannot be removed."""
        if job_id in self.protected:
            return True
        job = self.store.get(job_id)
        return job is not None and job.payload.kind == SYSTEM_EVENT

    def add_job(
        self,
        name: str,
        schedule: CronSchedule,
        payload: CronPayload | None = None,
        *,
        message: str | None = None,
        delete_after_run: bool = False,
        enabled: bool = True,
        job_id: str | None = None,
    ) -> CronJob:
        """Validate and store a new job; raises ``ValueError`` for a bad schedule or a taken id."""
        now = self._now_ms()
        validate_schedule(schedule, now_ms=now, default_tz=self.default_tz)
        if payload is None:
            payload = CronPayload(message=message or "")
        elif message is not None:
            payload.message = message
        with self.store.editing() as jobs:
            if job_id is not None and any(j.id == job_id for j in jobs):
                raise ValueError(
                    Phrase(QT_TR_NOOP("a job with id {job} already exists"), job=repr(job_id))
                )
            job = CronJob(
                id=job_id or uuid.uuid4().hex[:8],
                name=name,
                enabled=enabled,
                schedule=schedule,
                payload=payload,
                delete_after_run=delete_after_run,
                created_at_ms=now,
                updated_at_ms=now,
            )
            job.state.next_run_at_ms = self._initial_next(job, now) if enabled else None
            jobs.append(job)
        self._arm()
        return job

    def register_system_job(
        self, job_id: str, schedule: CronSchedule, *, enabled: bool = True
    ) -> CronJob:
        """Add or update a protected system job (idempotent); its run history is kept."""
        validate_schedule(schedule, now_ms=self._now_ms(), default_tz=self.default_tz)
        now = self._now_ms()
        with self.store.editing() as jobs:
            job = next((j for j in jobs if j.id == job_id), None)
            if job is None:
                job = CronJob(
                    id=job_id,
                    name=job_id,
                    payload=CronPayload(kind=SYSTEM_EVENT),
                    created_at_ms=now,
                    updated_at_ms=now,
                )
                jobs.append(job)
            changed = job.schedule.to_json() != schedule.to_json() or job.enabled != enabled
            job.payload.kind = SYSTEM_EVENT
            job.schedule = schedule
            job.enabled = enabled
            if changed or (enabled and job.state.next_run_at_ms is None):
                job.state.next_run_at_ms = self._safe_next(job, now) if enabled else None
                job.updated_at_ms = now
        self._arm()
        return job

    def remove_system_job(self, job_id: str) -> bool:
        """Drop a system job that the config turned off (the only way one is removed)."""
        return self._drop(job_id)

    def _drop(self, job_id: str) -> bool:
        with self.store.editing() as jobs:
            job = next((j for j in jobs if j.id == job_id), None)
            if job is not None:
                jobs.remove(job)
        self._arm()
        return job is not None

    def remove_job(self, job_id: str) -> bool:
        """Remove a job; ``False`` when unknown. System jobs raise :class:`ProtectedJobError`."""
        self.load()
        if self.is_protected(job_id):
            template = QT_TR_NOOP(
                "{job} is a system job and cannot be removed; disable it in the settings instead"
            )
            raise ProtectedJobError(Phrase(template, job=f"'{job_id}'"))
        return self._drop(job_id)

    def restore_job(self, job: CronJob) -> CronJob:
        """Put back a job removed by :meth:`remove_job` (Undo), as it was; its next run is
        recomputed when it has none. Raises ``ValueError`` when its id is taken meanwhile."""
        with self.store.editing() as jobs:
            if any(j.id == job.id for j in jobs):
                raise ValueError(
                    Phrase(QT_TR_NOOP("a job with id {job} already exists"), job=repr(job.id))
                )
            if self._needs_next(job):
                job.state.next_run_at_ms = self._initial_next(job, self._now_ms())
            jobs.append(job)
        self._arm()
        return job

    def enable_job(self, job_id: str, enabled: bool = True) -> CronJob | None:
        """Enable or disable a job; its next run is recomputed from now when enabled."""
        now = self._now_ms()
        with self.store.editing() as jobs:
            job = next((j for j in jobs if j.id == job_id), None)
            if job is None:
                return None
            job.enabled = enabled
            job.state.next_run_at_ms = self._initial_next(job, now) if enabled else None
            job.updated_at_ms = now
        self._arm()
        return job

    def update_job(
        self,
        job_id: str,
        *,
        name: str | None = None,
        message: str | None = None,
        schedule: CronSchedule | None = None,
    ) -> CronJob | None:
        """Change a job's name, message or schedule (its next run is recomputed from now);
        ``None`` when unknown. Raises ``ValueError`` for a bad schedule."""
        now = self._now_ms()
        if schedule is not None:
            validate_schedule(schedule, now_ms=now, default_tz=self.default_tz)
        with self.store.editing() as jobs:
            job = next((j for j in jobs if j.id == job_id), None)
            if job is None:
                return None
            if name is not None:
                job.name = name
            if message is not None:
                job.payload.message = message
            if schedule is not None:
                job.schedule = schedule
                job.delete_after_run = job.delete_after_run and schedule.kind == "at"
                job.state.next_run_at_ms = None
                if job.enabled:
                    # A one-shot moved to a later time runs again: _initial_next allows it.
                    job.state.next_run_at_ms = self._initial_next(job, now)
            job.updated_at_ms = now
        self._arm()
        return job

    async def run_now(self, job_id: str) -> str | None:
        """Run a job immediately (enabled or not) without changing its schedule."""
        job = await asyncio.to_thread(self.get_job, job_id)
        if job is None:
            raise KeyError(Phrase(QT_TR_NOOP("no job with id {job}"), job=repr(job_id)))
        if job.id in self._active:
            raise RuntimeError(Phrase(QT_TR_NOOP("job {job} is already running"), job=repr(job_id)))
        result = await self._fire(job, late=False, manual=True)
        self._arm()
        return result


def _outcome(result: JobResult, error: str | None, skipped: JobSkipped | None) -> str:
    """The receipt outcome of a run (see :mod:`desktop.core.cron.receipts`)."""
    if skipped is not None:
        return "skipped"
    if error is not None:
        return "failed"
    if result.undelivered is not None:
        return "undelivered"
    return "delivered" if result.delivered_to else "ran"
