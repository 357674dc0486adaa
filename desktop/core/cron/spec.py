"""Turning what a person (or the model) typed into a schedule, and schedules into words.

Shared by the ``cron`` tool and the ``nanobot-desktop cron`` commands so both accept and print
the same things.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from desktop.core.cron.reasons import RECEIPT_REASONS
from desktop.core.cron.receipts import Receipt
from desktop.core.cron.types import CronJob, CronSchedule
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase, recognize
from desktop.core.utils.phrase_join import joined

SYSTEM_PURPOSE = {
    "dream": "Dream: distils conversation history into long-term memory",
    "heartbeat": "Heartbeat: checks the tasks in HEARTBEAT.md",
}


def parse_at(text: str, tz: str | None) -> int:
    """An ISO time as epoch ms; a time without an offset is read in ``tz`` (else local time).

    Raises:
        ValueError: Not an ISO 8601 date-time.
    """
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError as exc:
        raise ValueError(
            Phrase(
                QT_TR_NOOP("'at' must be an ISO time like 2026-05-01T09:30, got {text}"),
                text=repr(text),
            )
        ) from exc
    if when.tzinfo is None:
        when = when.replace(tzinfo=ZoneInfo(tz)) if tz else when.astimezone()
    return int(when.timestamp() * 1000)


def build_schedule(
    *,
    every_seconds: float | str | None = None,  # a string from the model's tool arguments
    cron_expr: str | None = None,
    tz: str | None = None,
    at: str | None = None,
    default_tz: str | None = None,
) -> tuple[CronSchedule, bool]:
    """The schedule for exactly one of ``every_seconds``, ``cron_expr`` or ``at``.

    Returns:
        The schedule and whether the job should be deleted after it runs (``at`` jobs).

    Raises:
        ValueError: None or several kinds given, or a bad value (the message says which).
    """
    given = [
        name
        for name, value in (("every_seconds", every_seconds), ("cron_expr", cron_expr), ("at", at))
        if value not in (None, "")
    ]
    if len(given) != 1:
        raise ValueError(
            Phrase(
                QT_TR_NOOP("give exactly one of every_seconds, cron_expr or at (got {given})"),
                given=", ".join(given),
            )
            if given
            else Phrase(QT_TR_NOOP("give exactly one of every_seconds, cron_expr or at"))
        )
    if tz and not cron_expr and not at:
        raise ValueError(Phrase(QT_TR_NOOP("tz only applies to cron_expr or at")))
    if every_seconds not in (None, ""):
        seconds = float(every_seconds)
        if seconds < 1:
            raise ValueError(
                Phrase(
                    QT_TR_NOOP("every_seconds must be at least 1, got {value}"), value=every_seconds
                )
            )
        return CronSchedule("every", every_ms=int(seconds * 1000)), False
    if cron_expr:
        return CronSchedule("cron", expr=cron_expr.strip(), tz=tz or None), False
    assert at is not None
    return CronSchedule("at", at_ms=parse_at(at, tz or default_tz)), True


def local_time(ms: int | None, tz: str | None) -> str:
    """``2026-05-01 09:30 CEST`` in ``tz`` (local time without one); ``—`` for ``None``."""
    return _local(ms, tz)


def _local(ms: int | None, tz: str | None) -> str:
    if ms is None:
        return "—"
    zone = ZoneInfo(tz) if tz else None
    return datetime.fromtimestamp(ms / 1000, zone).strftime("%Y-%m-%d %H:%M %Z").strip()


def describe_schedule(schedule: CronSchedule, tz: str | None = None) -> str:
    """``every 1h``, ``cron 0 9 * * 1-5 (Europe/Berlin)``, ``at 2026-05-01 09:30``
    (an ``at`` time in the schedule's zone, else ``tz``)."""
    if schedule.kind == "every" and schedule.every_ms:
        seconds = schedule.every_ms // 1000
        for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
            if seconds >= size and seconds % size == 0:
                return f"every {seconds // size}{unit}"
        return f"every {seconds}s"
    if schedule.kind == "cron":
        return f"cron {schedule.expr}" + (f" ({schedule.tz})" if schedule.tz else "")
    return f"at {_local(schedule.at_ms, schedule.tz or tz)}"


#: How a skipped run's ``cause`` reads.
SKIP_CAUSES = {
    "budget": Phrase(QT_TR_NOOP("over budget")),
    "paused": Phrase(QT_TR_NOOP("paused")),
}
QUIET = Phrase(QT_TR_NOOP("no pop-up: reminders are paused"))
#: A receipt's outcome in words (one the code does not know reads as it is).
OUTCOME_WORDS = {
    "delivered": Phrase(QT_TR_NOOP("delivered")),
    "ran": Phrase(QT_TR_NOOP("ran")),
    "failed": Phrase(QT_TR_NOOP("failed")),
    "undelivered": Phrase(QT_TR_NOOP("undelivered")),
    "skipped": Phrase(QT_TR_NOOP("skipped")),
    "done": Phrase(QT_TR_NOOP("done")),
    "snoozed": Phrase(QT_TR_NOOP("snoozed")),
}


def _outcome(outcome: str) -> str:
    return OUTCOME_WORDS.get(outcome, outcome)


def _notes(run: Receipt) -> list[str]:
    """The parenthesised notes of a run: why it was skipped, where its text was shown."""
    notes: list[str] = []
    if run.outcome == "skipped" and run.cause:
        notes.append(SKIP_CAUSES.get(run.cause, run.cause))
    if run.delivered_to and run.outcome != "delivered":
        places = ", ".join(run.delivered_to)
        if run.outcome == "skipped":
            template = (
                QT_TR_NOOP("its text shown quietly on {places}")
                if run.quiet
                else QT_TR_NOOP("its text shown on {places}")
            )
        else:
            template = (
                QT_TR_NOOP("shown quietly on {places}")
                if run.quiet
                else QT_TR_NOOP("shown on {places}")
            )
        notes.append(Phrase(template, places=places))
    elif run.delivered_to and run.quiet:
        notes.append(QUIET)
    return notes


def describe_receipt(run: Receipt, answer: Receipt | None, tz: str | None) -> Phrase:
    """``delivered to desktop at 2026-05-01 10:30 CEST (late: due 09:00, 3 runs missed)``.

    A run the window showed without a pop-up reads ``delivered quietly to desktop (no pop-up:
    reminders are paused)``; a skipped one says why (``skipped (over budget; its text shown on
    desktop)``) before its reason. A :class:`~desktop.core.utils.i18n.Phrase` (the window
    translates its wording; the places, times and reasons are data).
    """
    parts: list[str] = [_outcome(run.outcome)]
    if run.delivered_to and run.outcome == "delivered":
        template = (
            QT_TR_NOOP("{outcome} quietly to {places}")
            if run.quiet
            else QT_TR_NOOP("{outcome} to {places}")
        )
        parts = [Phrase(template, outcome=parts[0], places=", ".join(run.delivered_to))]
    notes = _notes(run)
    if notes:
        listed = notes[0]
        for note in notes[1:]:
            listed = Phrase(QT_TR_NOOP("{first}; {second}"), first=listed, second=note)
        parts.append(Phrase(QT_TR_NOOP(" ({notes})"), notes=listed))
    parts.append(Phrase(QT_TR_NOOP(" at {time}"), time=_local(run.at_ms, tz)))
    if run.late:
        due = _local(run.due_at_ms, tz)
        parts.append(
            Phrase(
                QT_TR_NOOP(" (late: due {due}, {missed} runs missed)"), due=due, missed=run.missed
            )
            if run.missed > 1
            else Phrase(QT_TR_NOOP(" (late: due {due})"), due=due)
        )
    if run.reason:  # stored as English: read back as the phrase it was when it is ours
        parts.append(Phrase(" — {reason}", reason=recognize(run.reason, RECEIPT_REASONS)))
    if answer is not None:
        parts.append(
            Phrase(
                QT_TR_NOOP("; {outcome} by you at {time}"),
                outcome=_outcome(answer.outcome),
                time=_local(answer.at_ms, tz),
            )
        )
        if answer.outcome == "snoozed" and answer.reason:  # "until 2026-05-01 10:40 CEST (job …)"
            parts.append(Phrase(" {until}", until=recognize(answer.reason, RECEIPT_REASONS)))
    return joined(*parts)


def describe_job(
    job: CronJob,
    *,
    protected: bool,
    tz: str | None = None,
    last: tuple[Receipt | None, Receipt | None] = (None, None),
) -> str:
    """A few lines about a job for the tool and ``cron list`` (``last``: its last receipt and
    the person's answer to it, from :meth:`~desktop.core.cron.receipts.ReceiptLog.last_run`)."""
    state = job.state
    head = f"- {job.name} (id: {job.id}, {describe_schedule(job.schedule, tz)})"
    if not job.enabled:
        head += " [disabled]"
    lines = [head]
    if protected:
        purpose = SYSTEM_PURPOSE.get(job.id, "system job")
        lines.append(
            f"  Protected system job — {purpose}; it can be disabled in the settings, not removed."
        )
    elif job.payload.message:
        lines.append(f"  Message: {job.payload.message}")
    if state.next_run_at_ms:
        lines.append(f"  Next run: {_local(state.next_run_at_ms, tz)}")
    if state.last_run_at_ms:
        line = f"  Last run: {_local(state.last_run_at_ms, tz)} — {state.last_status or 'unknown'}"
        if state.last_error:
            line += f" ({state.last_error})"
        lines.append(line)
    run, answer = last
    if run is not None:
        lines.append(f"  Last outcome: {describe_receipt(run, answer, tz)}")
    return "\n".join(lines)
