"""Snooze and Done, the person's answers to a reminder notification.

Snoozing makes a one-shot job (``at``, deleted after it ran) in the reminder's conversation with
the reminder's own instruction ("Stretch your legs" -- never the answer the model gave to it),
so the reminder comes back through the scheduler like any other job: it survives a restart and
shows up in ``cron list``. The instruction travels with the notification
(:attr:`ReminderDue.message`); for an older notification it is read from the job, or from the
ended one-shot job kept for the Reminders view (:mod:`desktop.core.cron.past`). The
Reminders view snoozes through :func:`reminder_for`. Both answers leave a receipt on the
original job (``snoozed`` / ``done``, pointing at the run they answer).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

from desktop.core.bus.events import ReminderDue
from desktop.core.cron.delivery import job_target
from desktop.core.cron.reasons import SNOOZED_UNTIL
from desktop.core.cron.receipts import Receipt
from desktop.core.cron.service import SYSTEM_EVENT, CronService
from desktop.core.cron.types import CronJob, CronPayload, CronSchedule
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase

SnoozeChoice = Literal["10m", "1h", "tomorrow"]
SNOOZE_CHOICES: dict[str, str] = {
    "10m": QT_TR_NOOP("10 min"),
    "1h": QT_TR_NOOP("1 hour"),
    "tomorrow": QT_TR_NOOP("Tomorrow"),
}
_CHOICES: tuple[SnoozeChoice, ...] = ("10m", "1h", "tomorrow")
#: "Tomorrow" means this hour of the next day, in the person's zone.
TOMORROW_HOUR = 9


def snooze_choice(name: str) -> SnoozeChoice:
    """``name`` (a menu's or a notification button's text) as a :data:`SnoozeChoice`.

    Raises:
        ValueError: ``name`` is not one of the choices (``10m``, ``1h``, ``tomorrow``).
    """
    for choice in _CHOICES:
        if choice == name:
            return choice
    raise ValueError(f"unknown snooze choice {name!r}; expected one of {', '.join(SNOOZE_CHOICES)}")


def snooze_until(choice: SnoozeChoice, now_ms: int, tz: str | None) -> int:
    """When a reminder snoozed with ``choice`` at ``now_ms`` comes back (epoch ms)."""
    if choice == "10m":
        return now_ms + 10 * 60_000
    if choice == "1h":
        return now_ms + 3_600_000
    if choice != "tomorrow":
        raise ValueError(f"unknown snooze choice {choice!r}")
    zone = ZoneInfo(tz) if tz else None
    now = datetime.fromtimestamp(now_ms / 1000, zone)
    day = (now + timedelta(days=1)).date()
    target = datetime(day.year, day.month, day.day, TOMORROW_HOUR, tzinfo=zone or now.tzinfo)
    if zone is None:
        target = target.astimezone()
    return int(target.timestamp() * 1000)


def snooze(cron: CronService, reminder: ReminderDue, choice: SnoozeChoice) -> CronJob:
    """Bring ``reminder`` back later as a one-shot job; blocking (call it in a thread).

    Raises:
        ValueError: ``choice`` is unknown.
    """
    now = int(cron.clock() * 1000)
    at = snooze_until(choice, now, cron.default_tz)
    message = _instruction(cron, reminder, now)
    channel, chat = reminder.channel, reminder.chat_id
    payload = CronPayload(
        message=message,
        session_key=reminder.session_key,
        origin_channel=channel,
        origin_chat_id=chat,
    )
    name = reminder.job_name or "Reminder"
    job = cron.add_job(
        name if name.endswith("(snoozed)") else f"{name[:29]} (snoozed)",
        CronSchedule("at", at_ms=at, tz=cron.default_tz),
        payload,
        delete_after_run=True,
    )
    until = Phrase(SNOOZED_UNTIL, time=_local(at, cron.default_tz), job=job.id)
    _answer(cron, reminder, "snoozed", now, until)
    return job


def _instruction(cron: CronService, reminder: ReminderDue, now: int) -> str:
    """What the reminder said: its own instruction, never the answer it got (that answer is
    the last resort, for a notification of a job that is gone without a trace)."""
    if reminder.message.strip():
        return reminder.message
    job = _job(cron, reminder.job_id, now)
    if job is not None and job.payload.message.strip():
        return job.payload.message
    return reminder.text


def _job(cron: CronService, job_id: str, now: int) -> CronJob | None:
    """The job ``job_id``: scheduled, or a one-shot job that ended lately."""
    job = cron.get_job(job_id)
    if job is None:
        past = cron.past.get(job_id, now)
        job = past.job if past is not None else None
    return job


def reminder_for(cron: CronService, job_id: str) -> ReminderDue | None:
    """The last run of a reminder as its notification had it, for the Reminders view's Snooze;
    blocking. ``None`` for a system job, an unknown job, or one that has not run yet."""
    job = _job(cron, job_id, int(cron.clock() * 1000))
    if job is None or job.payload.kind == SYSTEM_EVENT or cron.is_protected(job_id):
        return None
    run, _answer = cron.receipts.last_run(job_id)
    if run is None:
        return None
    channel, chat, key = job_target(job.payload)
    return ReminderDue(
        key,
        job.id,
        job.name,
        job.payload.message,
        channel=channel,
        chat_id=chat,
        run_id=run.id,
        message=job.payload.message,
    )


def mark_done(cron: CronService, reminder: ReminderDue) -> None:
    """Record that the person marked ``reminder`` done; blocking (call it in a thread)."""
    _answer(cron, reminder, "done", int(cron.clock() * 1000), None)


def _answer(
    cron: CronService, reminder: ReminderDue, outcome: str, now: int, reason: str | None
) -> None:
    cron.receipts.append(
        Receipt(
            job_id=reminder.job_id,
            job_name=reminder.job_name,
            outcome=outcome,
            at_ms=now,
            run_id=reminder.run_id or None,
            reason=reason,
        )
    )


def _local(ms: int, tz: str | None) -> str:
    zone = ZoneInfo(tz) if tz else None
    return datetime.fromtimestamp(ms / 1000, zone).strftime("%Y-%m-%d %H:%M %Z").strip()
