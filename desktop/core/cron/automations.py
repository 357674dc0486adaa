"""The Automations view's list logic, Qt-free: status, filter, search, sort, rename, commands.

The view shows the rows of :func:`desktop.core.cron.overview.job_rows`. This module decides
what each row's status is, which rows a filter and a search keep, in which order they come,
and the command that runs a job from a terminal.

Search text is a list of terms, all of which must match (case-insensitive):

* a plain word matches the name, the message, the schedule in words or the id;
* ``name:tea`` the name only, ``schedule:cron`` / ``schedule:1h`` the schedule in words,
  ``status:paused`` a status (:data:`STATUS_WORDS`);
* a value with spaces is quoted: ``name:"morning tea"``; an unknown ``key:value`` is a word.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from desktop.core.cron.overview import JobRow
from desktop.core.cron.service import CronService
from desktop.core.cron.types import CronJob
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase

Filter = Literal["all", "active", "paused", "attention", "system"]
Sort = Literal["next", "last", "name"]

#: The filters, in the order the view offers them, with their labels.
FILTERS: dict[Filter, str] = {
    "all": QT_TR_NOOP("All"),
    "active": QT_TR_NOOP("Active"),
    "paused": QT_TR_NOOP("Paused"),
    "attention": QT_TR_NOOP("Needs attention"),
    "system": QT_TR_NOOP("System"),
}
#: The sort orders, with their labels.
SORTS: dict[Sort, str] = {
    "next": QT_TR_NOOP("Next run"),
    "last": QT_TR_NOOP("Last run"),
    "name": QT_TR_NOOP("Name"),
}

#: The problems that make a row need attention, in words.
PROBLEMS: dict[str, str] = {
    "failed": QT_TR_NOOP("last run failed"),
    "undelivered": QT_TR_NOOP("delivery failed"),
    "overdue": QT_TR_NOOP("overdue"),
}
#: Each status (:func:`status_of`) in words.
STATUS_LABELS: dict[str, str] = {
    "active": QT_TR_NOOP("Active"),
    "paused": QT_TR_NOOP("Paused"),
    "system": QT_TR_NOOP("System"),
    "ended": QT_TR_NOOP("Ran"),
}

#: What ``status:`` accepts: a word → the statuses or problems it stands for.
STATUS_WORDS: dict[str, frozenset[str]] = {
    "active": frozenset({"active"}),
    "enabled": frozenset({"active"}),
    "paused": frozenset({"paused"}),
    "disabled": frozenset({"paused"}),
    "system": frozenset({"system"}),
    "ended": frozenset({"ended"}),
    "ran": frozenset({"ended"}),
    "attention": frozenset(PROBLEMS),
    "failed": frozenset({"failed"}),
    "error": frozenset({"failed"}),
    "undelivered": frozenset({"undelivered"}),
    "overdue": frozenset({"overdue"}),
}

#: A job whose next run is this far in the past is overdue (the scheduler is not running it).
OVERDUE_AFTER_MS = 5 * 60_000
#: Longest name a rename accepts.
MAX_NAME = 200
#: The command-line program.
PROGRAM = "nanobot-desktop"

_KEYS = ("name", "schedule", "status")


def status_of(row: JobRow) -> str:
    """``active``, ``paused``, ``system`` or ``ended`` (a one-shot reminder that ran)."""
    if row.ended:
        return "ended"
    if row.protected:
        return "system"
    return "active" if row.enabled else "paused"


def problems_of(row: JobRow, now_ms: int) -> tuple[str, ...]:
    """Why ``row`` needs attention (keys of :data:`PROBLEMS`), at ``now_ms``."""
    found = list(row.problems)
    overdue = (
        row.enabled
        and not row.ended
        and row.next_ms is not None
        and row.next_ms < now_ms - OVERDUE_AFTER_MS
    )
    if overdue:
        found.append("overdue")
    return tuple(found)


def status_text(row: JobRow, now_ms: int) -> str:
    """The status in words: ``Active``, ``Paused · last run failed``, ``System``, ``Ran``."""
    text = STATUS_LABELS[status_of(row)]
    problems = problems_of(row, now_ms)
    if problems:
        text += " · " + ", ".join(PROBLEMS[p] for p in problems)
    return text


@dataclass(frozen=True)
class Query:
    """A parsed search (see the module docstring).

    Attributes:
        words: Plain words.
        names: ``name:`` values.
        schedules: ``schedule:`` values.
        statuses: ``status:`` values.
        unknown: ``status:`` values that name no status (the view says so).
    """

    words: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    schedules: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        """Whether the search keeps every row."""
        return not (self.words or self.names or self.schedules or self.statuses or self.unknown)


def _terms(text: str) -> list[str]:
    """Split ``text`` on spaces, keeping quoted parts together; a quote left open runs to the
    end (never an error: the person is still typing)."""
    terms: list[str] = []
    current: list[str] = []
    quoted = False
    for char in text:
        if char == '"':
            quoted = not quoted
        elif char.isspace() and not quoted:
            if current:
                terms.append("".join(current))
                current = []
        else:
            current.append(char)
    if current:
        terms.append("".join(current))
    return terms


def parse_query(text: str) -> Query:
    """Parse the search box's text (see the module docstring)."""
    found: dict[str, list[str]] = {"": [], **{key: [] for key in _KEYS}}
    unknown: list[str] = []
    for term in _terms(text):
        key, colon, value = term.partition(":")
        key = key.casefold()
        if not colon or key not in _KEYS:
            found[""].append(term.casefold())
            continue
        value = value.strip().casefold()
        if not value:
            continue  # "name:" while typing: no constraint yet
        if key == "status" and value not in STATUS_WORDS:
            unknown.append(value)
            continue
        found[key].append(value)
    return Query(
        words=tuple(found[""]),
        names=tuple(found["name"]),
        schedules=tuple(found["schedule"]),
        statuses=tuple(found["status"]),
        unknown=tuple(unknown),
    )


def matches(row: JobRow, query: Query, now_ms: int) -> bool:
    """Whether ``row`` matches every term of ``query``."""
    if query.unknown:
        return False
    name, when = row.name.casefold(), row.when.casefold()
    text = " ".join((name, row.message.casefold(), when, row.id.casefold()))
    if not all(word in text for word in query.words):
        return False
    if not all(value in name for value in query.names):
        return False
    if not all(value in when for value in query.schedules):
        return False
    have = {status_of(row), *problems_of(row, now_ms)}
    return all(STATUS_WORDS[value] & have for value in query.statuses)


def in_filter(row: JobRow, which: Filter, now_ms: int) -> bool:
    """Whether ``row`` belongs under the filter ``which``."""
    if which == "all":
        return True
    if which == "attention":
        return bool(problems_of(row, now_ms))
    return status_of(row) == which


def counts(rows: list[JobRow], now_ms: int) -> dict[Filter, int]:
    """How many rows each filter keeps (for the filter's labels)."""
    return {which: sum(in_filter(r, which, now_ms) for r in rows) for which in FILTERS}


def sort_rows(rows: list[JobRow], by: Sort) -> list[JobRow]:
    """``rows`` in the order ``by``: next run soonest first, last run newest first, or name;
    rows without the time sort last, ties by name."""

    def name(row: JobRow) -> tuple[str, str]:
        return (row.name.casefold(), row.id)

    if by == "name":
        return sorted(rows, key=name)
    if by == "next":
        return sorted(rows, key=lambda r: (r.next_ms is None, r.next_ms or 0, name(r)))
    return sorted(rows, key=lambda r: (r.last_ms is None, -(r.last_ms or 0), name(r)))


def visible_rows(
    rows: list[JobRow], *, which: Filter, search: str, by: Sort, now_ms: int
) -> list[JobRow]:
    """The rows the view lists: filtered, searched and sorted."""
    query = parse_query(search)
    kept = [r for r in rows if in_filter(r, which, now_ms) and matches(r, query, now_ms)]
    return sort_rows(kept, by)


def rename_job(cron: CronService, job_id: str, name: str) -> CronJob:
    """Give a scheduled job a new name (blocking: call it through ``asyncio.to_thread``).

    Raises:
        ValueError: An empty or overlong name, a system job, or a job that is gone.
    """
    name = " ".join(name.split())
    if not name:
        raise ValueError(Phrase(QT_TR_NOOP("a name cannot be empty")))
    if len(name) > MAX_NAME:
        raise ValueError(
            Phrase(QT_TR_NOOP("a name has at most {count} characters"), count=MAX_NAME)
        )
    cron.load()
    if cron.is_protected(job_id):
        raise ValueError(
            Phrase(QT_TR_NOOP("{job} is a system job; its name is fixed"), job=repr(job_id))
        )
    job = cron.update_job(job_id, name=name)
    if job is None:
        raise ValueError(
            Phrase(QT_TR_NOOP("no job with id {job} (deleted elsewhere?)"), job=repr(job_id))
        )
    return job


def run_command(job_id: str, *, config_path: Path | None = None) -> str:
    """The shell command that runs ``job_id`` now, from a terminal or another program's
    hook (``--config`` when the app uses another config file than the default)."""
    parts = [PROGRAM, "cron", "run"]
    if config_path is not None:
        parts += ["--config", str(config_path)]
    parts.append(job_id)
    return shlex.join(parts)
