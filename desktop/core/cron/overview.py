"""What the Reminders view shows, and the edits it makes: plain data, no Qt.

Every function here is blocking (file reads under the store's lock): call it through
``asyncio.to_thread``.
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop.core.bus.events import DESKTOP_CHANNEL
from desktop.core.cron.service import CronService
from desktop.core.cron.spec import build_schedule, describe_receipt, describe_schedule, local_time
from desktop.core.cron.types import CronJob, CronPayload

#: How many past receipts the view lists per job (newest first).
PAST_LIMIT = 50


@dataclass(frozen=True)
class JobRow:
    """One job as the view lists it (times in the person's zone).

    Attributes:
        id: The job's id.
        name: Its name.
        message: What the reminder says (empty for system jobs).
        when: The schedule in words.
        next_run: The next run, or ``—`` (paused or done).
        last: The last run's outcome in words, or empty.
        enabled: Whether it is scheduled (not paused).
        protected: A system job (Dream, heartbeat): not edited or deleted here.
        past: Past receipts in words, newest first.
    """

    id: str
    name: str
    message: str
    when: str
    next_run: str
    last: str
    enabled: bool
    protected: bool
    past: tuple[str, ...]


def job_rows(cron: CronService) -> list[JobRow]:
    """Every job, upcoming first, with its receipts."""
    tz = cron.default_tz
    rows = []
    for job in cron.list_jobs():
        receipts = cron.receipts.read(job.id)
        answers = {r.run_id: r for r in receipts if r.run_id}
        runs = [r for r in receipts if r.outcome not in ("done", "snoozed")]
        past = tuple(describe_receipt(r, answers.get(r.id), tz) for r in reversed(runs))
        rows.append(
            JobRow(
                id=job.id,
                name=job.name,
                message=job.payload.message,
                when=describe_schedule(job.schedule, tz),
                next_run=local_time(job.state.next_run_at_ms, tz),
                last=past[0] if past else "",
                enabled=job.enabled,
                protected=cron.is_protected(job.id),
                past=past[:PAST_LIMIT],
            )
        )
    return rows


def save_reminder(
    cron: CronService,
    *,
    job_id: str | None,
    name: str,
    message: str,
    every_minutes: float | None = None,
    cron_expr: str | None = None,
    at: str | None = None,
) -> CronJob:
    """Create (``job_id=None``) or change a reminder from the view's form.

    A new reminder goes to the desktop's ``reminders`` chat. Exactly one of ``every_minutes``,
    ``cron_expr`` and ``at`` (an ISO time in the person's zone).

    Raises:
        ValueError: No message, a bad schedule, an unknown or protected job.
    """
    if not message.strip():
        raise ValueError("a reminder needs a message")
    schedule, once = build_schedule(
        every_seconds=every_minutes * 60 if every_minutes else None,
        cron_expr=cron_expr or None,
        at=at or None,
        default_tz=cron.default_tz,
    )
    if schedule.kind != "every" and cron.default_tz:
        schedule.tz = cron.default_tz
    title = (name.strip() or message.strip())[:40]
    if job_id is None:
        payload = CronPayload(
            message=message.strip(),
            session_key="desktop:reminders",
            origin_channel=DESKTOP_CHANNEL,
            origin_chat_id="reminders",
        )
        return cron.add_job(title, schedule, payload, delete_after_run=once)
    if cron.is_protected(job_id):
        raise ValueError(f"{job_id!r} is a system job; change it in its settings page")
    job = cron.update_job(job_id, name=title, message=message.strip(), schedule=schedule)
    if job is None:
        raise ValueError(f"no job with id {job_id!r} (deleted elsewhere?)")
    return job
