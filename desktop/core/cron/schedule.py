"""Next-run computation and validation for the three schedule kinds.

* ``at``: once at ``atMs``; no next run once that instant has passed.
* ``every``: ``everyMs`` after the reference instant (``everyMs`` must be > 0).
* ``cron``: a 5-field expression evaluated in an IANA timezone (the schedule's ``tz``, else the
  default zone). The expression is matched against *local wall time* and each match is then
  converted to an instant, so "0 9 * * *" stays at 09:00 local on both sides of a DST change.
  Across the changes:

  - a wall time that does not exist (spring forward, e.g. 02:30 in Berlin on 2026-03-29) runs
    at the same instant the clock would have shown had it not jumped, i.e. one hour later in
    the new local time (03:30 CEST = 01:30 UTC);
  - a wall time that happens twice (fall back, 02:30 on 2026-10-25) runs once, at its first
    occurrence. A consequence is that an hourly job skips the repeated hour.
"""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from croniter import croniter

from desktop.core.config.timezone import is_valid_timezone, system_timezone
from desktop.core.cron.types import CronSchedule
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase

UNKNOWN_ZONE = QT_TR_NOOP("unknown timezone {zone} (expected an IANA name such as 'Europe/Berlin')")
UNKNOWN_KIND = QT_TR_NOOP("unknown schedule kind {kind} (expected at, every or cron)")

_MAX_CANDIDATES = 1000


def _zone_name(schedule: CronSchedule, default_tz: str | None) -> str:
    name = schedule.tz or default_tz or system_timezone()
    if not is_valid_timezone(name):
        raise ValueError(Phrase(UNKNOWN_ZONE, zone=repr(name)))
    return name


def _check_expr(expr: str | None) -> str:
    if not expr or not expr.strip():
        raise ValueError(
            Phrase(QT_TR_NOOP("a cron schedule needs an expression such as '0 9 * * 1-5'"))
        )
    fields = expr.split()
    if len(fields) != 5:
        raise ValueError(
            Phrase(
                QT_TR_NOOP(
                    "cron expression {expr} must have 5 fields (minute hour day month weekday), "
                    "got {count}"
                ),
                expr=repr(expr),
                count=len(fields),
            )
        )
    if not croniter.is_valid(expr):
        raise ValueError(Phrase(QT_TR_NOOP("invalid cron expression {expr}"), expr=repr(expr)))
    return expr


def _cron_next(expr: str, zone_name: str, after_ms: int) -> int | None:
    zone = ZoneInfo(zone_name)
    after = datetime.fromtimestamp(after_ms / 1000, tz=UTC)
    local_wall = after.astimezone(zone).replace(tzinfo=None, fold=0)
    it = croniter(expr, local_wall)
    for _ in range(_MAX_CANDIDATES):
        candidate: datetime = it.get_next(datetime)
        instant_ms = int(candidate.replace(tzinfo=zone, fold=0).timestamp() * 1000)
        # A wall time at or before ``after`` (the second pass of a repeated hour) is skipped.
        if instant_ms > after_ms:
            return instant_ms
    return None


def next_run(schedule: CronSchedule, after_ms: int, default_tz: str | None = None) -> int | None:
    """Return the first run strictly after ``after_ms`` (epoch ms), or ``None`` when there is none.

    Raises:
        ValueError: the schedule is invalid (see :func:`validate_schedule`).
    """
    if schedule.kind == "at":
        if schedule.at_ms is None:
            raise ValueError(Phrase(QT_TR_NOOP("an 'at' schedule needs a time")))
        return schedule.at_ms if schedule.at_ms > after_ms else None
    if schedule.kind == "every":
        if not schedule.every_ms or schedule.every_ms <= 0:
            raise ValueError(Phrase(QT_TR_NOOP("an 'every' schedule needs a positive interval")))
        return after_ms + schedule.every_ms
    if schedule.kind == "cron":
        return _cron_next(_check_expr(schedule.expr), _zone_name(schedule, default_tz), after_ms)
    raise ValueError(Phrase(UNKNOWN_KIND, kind=repr(schedule.kind)))


def validate_schedule(
    schedule: CronSchedule, *, now_ms: int | None = None, default_tz: str | None = None
) -> list[str]:
    """Check a schedule; raise ``ValueError`` with a clear message when it cannot work.

    Returns a list of warnings for schedules that are valid but unusual (an ``at`` time already
    in the past — allowed, the job then runs as soon as the scheduler sees it).
    """
    warnings: list[str] = []
    if schedule.tz is not None and not is_valid_timezone(schedule.tz):
        raise ValueError(Phrase(UNKNOWN_ZONE, zone=repr(schedule.tz)))
    if schedule.kind == "at":
        if schedule.at_ms is None:
            raise ValueError(Phrase(QT_TR_NOOP("an 'at' schedule needs a time")))
        if now_ms is not None and schedule.at_ms <= now_ms:
            warnings.append("the 'at' time is in the past; the job will run right away")
    elif schedule.kind == "every":
        if schedule.every_ms is None or schedule.every_ms <= 0:
            raise ValueError(
                Phrase(
                    QT_TR_NOOP("'every' interval must be greater than 0 ms, got {value}"),
                    value=schedule.every_ms,
                )
            )
    elif schedule.kind == "cron":
        _check_expr(schedule.expr)
        _zone_name(schedule, default_tz)
    else:
        raise ValueError(Phrase(UNKNOWN_KIND, kind=repr(schedule.kind)))
    if schedule.tz is not None and schedule.kind != "cron":
        warnings.append("a timezone only matters for 'cron' schedules; it is ignored here")
    return warnings
