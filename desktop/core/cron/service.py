"""The cron service: a ``jobs.json`` store plus one asyncio timer for the next due job.

Time comes from an injectable ``clock`` (seconds, like :func:`time.time`). :meth:`CronService.tick`
runs every enabled job whose next run is at or before ``clock()`` and re-arms the timer; the
real timer does nothing but call it, so tests drive time with a fake clock and ``await tick()``.

Missed runs (the app was closed when a job was due) are handled once, at :meth:`start`:

* a missed ``at`` job runs once, its run recorded as ``late``;
* a recurring job (``every``/``cron``) runs once for all the runs it missed, also marked
  ``late``, and its next run is then computed from *now* -- never once per miss.

The store is written atomically after every change. A store that cannot be read is copied
aside as ``jobs.json.corrupt-YYYYmmdd-HHMMSS`` (that copy is never overwritten), the service
starts empty and :attr:`CronService.warning` says what happened.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any

from desktop.core.cron.schedule import next_run, validate_schedule
from desktop.core.cron.types import CronJob, CronPayload, CronRunRecord, CronSchedule
from desktop.core.utils.atomic import atomic_write_text, set_aside

log = logging.getLogger(__name__)

JobHandler = Callable[[CronJob], Awaitable[str | None]]
STORE_VERSION = 1
# Upper bound on one timer wait, so a suspended machine or a changed wall clock is noticed
# within the hour. This is a re-check of the single timer, not a polling loop.
MAX_TIMER_DELAY_S = 3600.0


class ProtectedJobError(Exception):
    """Raised when removing a system job (such as ``dream`` or ``heartbeat``)."""


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
        self.store_path = Path(store_path)
        self.on_job = on_job
        self.clock = clock
        self.default_tz = default_tz
        self.protected = frozenset(protected)
        self.warning: str | None = None
        self.corrupt_copy: Path | None = None
        self._jobs: list[CronJob] | None = None
        self._top_extra: dict[str, Any] = {}
        self._version = STORE_VERSION
        self._running = False
        self._timer: asyncio.TimerHandle | None = None
        self._tick_task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()

    # ------------------------------------------------------------------ store
    def _now_ms(self) -> int:
        return int(self.clock() * 1000)

    def load(self) -> None:
        """Read the store (idempotent); a damaged file is set aside and the store starts empty."""
        if self._jobs is not None:
            return
        self._jobs = []
        if not self.store_path.exists():
            return
        try:
            data = json.loads(self.store_path.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or not isinstance(data.get("jobs", []), list):
                raise ValueError("top level is not an object with a 'jobs' list")
            jobs = [CronJob.from_json(item) for item in data.get("jobs", [])]
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            self.corrupt_copy = set_aside(self.store_path, "corrupt")
            self.warning = (
                f"The scheduled jobs file {self.store_path} could not be read ({exc}); "
                f"it was kept as {self.corrupt_copy.name} and the scheduler starts empty."
            )
            log.warning(self.warning)
            return
        self._version = int(data.get("version", STORE_VERSION) or STORE_VERSION)
        self._top_extra = {k: v for k, v in data.items() if k not in ("version", "jobs")}
        self._jobs = jobs
        now = self._now_ms()
        for job in jobs:
            if not job.enabled:
                job.state.next_run_at_ms = None
            elif job.state.next_run_at_ms is None:
                job.state.next_run_at_ms = self._initial_next(job, now)

    def _save(self) -> None:
        data = {
            "version": self._version,
            "jobs": [job.to_json() for job in self._store()],
            **self._top_extra,
        }
        atomic_write_text(self.store_path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")

    def _store(self) -> list[CronJob]:
        self.load()
        assert self._jobs is not None
        return self._jobs

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
        """Load the store, run the runs missed while closed (once each), arm the timer."""
        self.load()
        self._running = True
        await self._run_due(late=True)
        self._arm()

    async def stop(self) -> None:
        """Disarm the timer; a run in progress is allowed to finish."""
        self._running = False
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        task, self._tick_task = self._tick_task, None
        if task is not None and not task.done() and task is not asyncio.current_task():
            await asyncio.gather(task, return_exceptions=True)

    async def tick(self) -> None:
        """Run every job due at ``clock()`` and re-arm the timer."""
        await self._run_due(late=False)
        self._arm()

    def next_wake_ms(self) -> int | None:
        """The earliest next run among enabled jobs."""
        times = [j.state.next_run_at_ms for j in self._store() if j.enabled and j.state.next_run_at_ms is not None]
        return min(times) if times else None

    def _arm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self._running:
            return
        wake = self.next_wake_ms()
        if wake is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        delay = min(max(0.0, (wake - self._now_ms()) / 1000), MAX_TIMER_DELAY_S)
        self._timer = loop.call_later(delay, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        if self._running:
            self._tick_task = asyncio.ensure_future(self.tick())

    async def _run_due(self, *, late: bool) -> None:
        async with self._lock:
            now = self._now_ms()
            due = sorted(
                (j for j in self._store() if j.enabled and j.state.next_run_at_ms is not None
                 and j.state.next_run_at_ms <= now),
                key=lambda j: j.state.next_run_at_ms or 0,
            )
            for job in due:
                if job in self._store() and job.enabled:
                    await self._fire(job, late=late, manual=False)

    async def _fire(self, job: CronJob, *, late: bool, manual: bool) -> str | None:
        started = self.clock()
        result: str | None = None
        error: str | None = None
        try:
            result = await self.on_job(job)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the job failed; record it and keep the scheduler alive
            error = str(exc) or type(exc).__name__
            log.warning("cron job %s failed: %s", job.id, error)
        finished = self.clock()
        job.state.record(
            CronRunRecord(
                run_at_ms=int(started * 1000),
                status="error" if error else "ok",
                duration_ms=max(0, int((finished - started) * 1000)),
                error=error,
                late=late,
            )
        )
        job.updated_at_ms = int(finished * 1000)
        if not manual:
            if job.schedule.kind == "at":
                if job.delete_after_run:
                    if job in self._store():
                        self._store().remove(job)
                else:
                    job.enabled = False
                    job.state.next_run_at_ms = None
            elif job.enabled:
                # Computed from now: a job that missed several runs runs once, not per miss.
                job.state.next_run_at_ms = self._safe_next(job, int(finished * 1000))
        self._save()
        return result

    # ------------------------------------------------------------------ API
    def list_jobs(self, include_disabled: bool = True) -> list[CronJob]:
        jobs = [j for j in self._store() if include_disabled or j.enabled]
        return sorted(jobs, key=lambda j: (j.state.next_run_at_ms is None, j.state.next_run_at_ms or 0))

    def get_job(self, job_id: str) -> CronJob | None:
        return next((j for j in self._store() if j.id == job_id), None)

    def is_protected(self, job_id: str) -> bool:
        return job_id in self.protected

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
        if job_id is not None and self.get_job(job_id) is not None:
            raise ValueError(f"a job with id {job_id!r} already exists")
        if payload is None:
            payload = CronPayload(message=message or "")
        elif message is not None:
            payload.message = message
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
        self._store().append(job)
        self._save()
        self._arm()
        return job

    def remove_job(self, job_id: str) -> bool:
        """Remove a job; ``False`` when unknown. System jobs raise :class:`ProtectedJobError`."""
        if job_id in self.protected:
            raise ProtectedJobError(
                f"'{job_id}' is a system job and cannot be removed; disable it in the settings instead"
            )
        job = self.get_job(job_id)
        if job is None:
            return False
        self._store().remove(job)
        self._save()
        self._arm()
        return True

    def enable_job(self, job_id: str, enabled: bool = True) -> CronJob | None:
        """Enable or disable a job; its next run is recomputed from now when enabled."""
        job = self.get_job(job_id)
        if job is None:
            return None
        now = self._now_ms()
        job.enabled = enabled
        job.state.next_run_at_ms = self._initial_next(job, now) if enabled else None
        job.updated_at_ms = now
        self._save()
        self._arm()
        return job

    async def run_now(self, job_id: str) -> str | None:
        """Run a job immediately (enabled or not) without changing its schedule."""
        job = self.get_job(job_id)
        if job is None:
            raise KeyError(f"no job with id {job_id!r}")
        async with self._lock:
            result = await self._fire(job, late=False, manual=True)
        self._arm()
        return result
