"""What the Reminders view shows, and the edits it makes: plain data, no Qt.

The view lists every scheduled job, then the one-shot reminders that ran lately and left
``jobs.json`` (:mod:`desktop.core.cron.past`, :data:`~desktop.core.cron.past.KEEP_DAYS` days),
each with its receipts. Delete can be undone: a scheduled job is put back as it was, an ended
one shown again.

Every function here is blocking (file reads under the store's lock): call it through
``asyncio.to_thread``.
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop.core.bus.events import DESKTOP_CHANNEL
from desktop.core.cron.receipts import Receipt
from desktop.core.cron.service import SYSTEM_EVENT, CronService
from desktop.core.cron.spec import build_schedule, describe_receipt, describe_schedule, local_time
from desktop.core.cron.types import CronJob, CronPayload
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase

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
        ended: A one-shot reminder that ran and left the schedule (shown for a few days).
        ran: It has run at least once (a reminder that ran can be snoozed from the view).
        next_ms: The next run (epoch ms), ``None`` when paused or done.
        last_ms: The last run (epoch ms), ``None`` before the first.
        problems: What went wrong in the last run: ``failed`` (the job failed) or
            ``undelivered`` (its answer reached no one); see
            :mod:`desktop.core.cron.automations`.
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
    ended: bool = False
    ran: bool = False
    next_ms: int | None = None
    last_ms: int | None = None
    problems: tuple[str, ...] = ()


def _row(cron: CronService, job: CronJob, *, ended: bool) -> JobRow:
    tz = cron.default_tz
    receipts = cron.receipts.read(job.id)
    answers = {r.run_id: r for r in receipts if r.run_id}
    runs = [r for r in receipts if r.outcome not in ("done", "snoozed")]
    past = tuple(describe_receipt(r, answers.get(r.id), tz) for r in reversed(runs))
    protected = not ended and cron.is_protected(job.id)
    last_ms, problems = _last_run(job, runs[-1] if runs else None)
    return JobRow(
        id=job.id,
        name=job.name,
        message=job.payload.message,
        when=describe_schedule(job.schedule, tz),
        next_run=local_time(None if ended else job.state.next_run_at_ms, tz),
        last=past[0] if past else "",
        enabled=job.enabled and not ended,
        protected=protected,
        past=past[:PAST_LIMIT],
        ended=ended,
        ran=bool(runs) and not protected and job.payload.kind != SYSTEM_EVENT,
        next_ms=None if ended else job.state.next_run_at_ms,
        last_ms=last_ms,
        problems=problems,
    )


def _last_run(job: CronJob, receipt: Receipt | None) -> tuple[int | None, tuple[str, ...]]:
    """When the job last ran and what went wrong then: from its newest receipt, or from
    ``jobs.json`` when another program (nanobot) ran it later and left no receipt."""
    state = job.state
    if receipt is None or (state.last_run_at_ms or 0) > receipt.at_ms:
        failed = state.last_status == "error"
        return state.last_run_at_ms, ("failed",) if failed else ()
    if receipt.outcome in ("failed", "undelivered"):
        return receipt.at_ms, (receipt.outcome,)
    return receipt.at_ms, ()


def job_rows(cron: CronService) -> list[JobRow]:
    """Every scheduled job (upcoming first), then the one-shot reminders that ended lately
    (newest first), with their receipts."""
    rows = [_row(cron, job, ended=False) for job in cron.list_jobs()]
    scheduled = {row.id for row in rows}
    now = int(cron.clock() * 1000)
    ended = [p.job for p in cron.past.recent(now) if p.job.id not in scheduled]
    return rows + [_row(cron, job, ended=True) for job in ended]


@dataclass(frozen=True)
class Deleted:
    """What Delete took away, for its Undo.

    Attributes:
        job_id: The job.
        name: Its name.
        job: The scheduled job as it was (put back by Undo); ``None`` for an ended reminder
            (Undo shows it again).
    """

    job_id: str
    name: str
    job: CronJob | None


def delete_reminder(cron: CronService, job_id: str) -> Deleted | None:
    """Delete a reminder from the view: unschedule it, or hide an ended one; ``None`` when it
    is gone already. Receipts are kept either way.

    Raises:
        ValueError: A system job (change it in its settings page).
    """
    if cron.is_protected(job_id):
        raise ValueError(
            Phrase(
                QT_TR_NOOP("{job} is a system job; change it in its settings page"),
                job=repr(job_id),
            )
        )
    job = cron.get_job(job_id)
    if job is not None:
        return Deleted(job.id, job.name, job) if cron.remove_job(job_id) else None
    now = int(cron.clock() * 1000)
    ended = cron.past.get(job_id, now)
    if ended is None:
        return None
    cron.past.hide(job_id, now)
    return Deleted(job_id, ended.job.name, None)


def undo_delete(cron: CronService, deleted: Deleted) -> None:
    """Undo :func:`delete_reminder`.

    Raises:
        ValueError: The id was taken meanwhile.
    """
    if deleted.job is None:
        cron.past.restore(deleted.job_id, int(cron.clock() * 1000))
    else:
        cron.restore_job(deleted.job)


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
        raise ValueError(Phrase(QT_TR_NOOP("a reminder needs a message")))
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
        raise ValueError(
            Phrase(
                QT_TR_NOOP("{job} is a system job; change it in its settings page"),
                job=repr(job_id),
            )
        )
    job = cron.update_job(job_id, name=title, message=message.strip(), schedule=schedule)
    if job is None:
        raise ValueError(
            Phrase(QT_TR_NOOP("no job with id {job} (deleted elsewhere?)"), job=repr(job_id))
        )
    return job
