"""Month totals of the ledger kept in a second place, so a ledger that vanished is noticed.

``<workspace>/.nanobot/usage-checkpoint.json`` (protected in the sandbox like the workspace id
beside it; nanobot ignores the file)::

    {"v": 1, "ledger": "<ledger folder>",
     "months": {"2026-11": {"calls": 12, "bytes": 4567,
                            "sources": {"chat": [10, 12000, 0.31], "dream": [2, 900, 0.02]}}}}

``sources`` holds ``[calls, tokens, usd]`` per source; ``bytes`` is the ledger file's size
after the last append counted. :meth:`UsageLedger.append
<desktop.core.usage.ledger.UsageLedger.append>` updates it under the ledger lock, after the
record is on disk. A ledger file that grew behind its back (an older version appending) is
counted again, and only ever raises the totals; one that shrank (deleted, cut, replaced) never
lowers them.

Readers (the spend governor, the usage summary) compare: when a month's ledger holds fewer
calls than the checkpoint counted, the difference is a :class:`Gap`. It still counts toward
the budgets (a missing ledger never means "nothing spent"), and the Usage view and
``nanobot-desktop usage`` say so. A checkpoint naming another ledger folder (a copied
workspace) is ignored and started afresh; the last three months are kept.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.core.utils.atomic import atomic_write_text
from desktop.core.utils.dates import MONTHS
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.validate import Unusable, notify, read_document

if TYPE_CHECKING:
    from desktop.core.usage.place import LedgerPlace
    from desktop.core.usage.record import UsageRecord

log = logging.getLogger(__name__)

VERSION = 1
KEEP_MONTHS = 3
Spend = tuple[int, int, float]  # calls, tokens, usd


@dataclass
class MonthMark:
    """What the checkpoint knows of one month.

    Attributes:
        calls: Calls counted.
        size: The ledger file's size after the last counted append.
        sources: ``[calls, tokens, usd]`` per source.
    """

    calls: int = 0
    size: int = 0
    sources: dict[str, list[float]] = field(default_factory=dict)

    def add(self, source: str, tokens: int, usd: float, calls: int = 1) -> None:
        """Count ``calls`` call(s) of ``source``."""
        row = self.sources.setdefault(source, [0, 0, 0.0])
        row[0] += calls
        row[1] += tokens
        row[2] = round(row[2] + usd, 8)
        self.calls += calls

    def raise_to(self, other: MonthMark) -> None:
        """Take the larger figure of each source (a recount never lowers a total)."""
        for source, row in other.sources.items():
            mine = self.sources.setdefault(source, [0, 0, 0.0])
            for i in range(3):
                mine[i] = max(mine[i], row[i])
        self.calls = max(self.calls, int(sum(r[0] for r in self.sources.values())))

    def to_json(self) -> dict[str, Any]:
        """The JSON object of the month."""
        return {"calls": self.calls, "bytes": self.size, "sources": self.sources}

    @classmethod
    def from_json(cls, value: Any) -> MonthMark | None:
        """The month from JSON (``None`` when it is not one)."""
        if not isinstance(value, dict) or not isinstance(value.get("sources"), dict):
            return None
        mark = cls(size=_int(value.get("bytes")))
        for source, row in value["sources"].items():
            if isinstance(row, list) and len(row) == 3:
                calls, tokens, usd = _int(row[0]), _int(row[1]), row[2]
                usd = float(usd) if isinstance(usd, int | float) and usd >= 0 else 0.0
                mark.sources[str(source)] = [calls, tokens, usd]
        mark.calls = int(sum(r[0] for r in mark.sources.values()))
        return mark


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def month_of(when: float) -> str:
    """``YYYY-MM`` of the UTC month of ``when`` (the month file's name)."""
    from datetime import UTC

    return datetime.fromtimestamp(when, UTC).strftime("%Y-%m")


def load(place: LedgerPlace) -> dict[str, MonthMark]:
    """The checkpoint's months (``{}``: none, unusable, or another ledger's)."""
    try:
        found = read_document(place.checkpoint, root=place.workspace)
    except Unusable as exc:
        log.warning("the usage checkpoint %s %s; it is started afresh", place.checkpoint, exc)
        return {}
    if found is None:
        return {}
    data, _problems = found
    if not isinstance(data, dict) or data.get("ledger") != str(place.folder):
        return {}
    months = data.get("months")
    if not isinstance(months, dict):
        return {}
    marks = {key: MonthMark.from_json(value) for key, value in months.items()}
    return {key: mark for key, mark in marks.items() if mark is not None}


def save(place: LedgerPlace, marks: dict[str, MonthMark]) -> None:
    """Write the checkpoint atomically (the last :data:`KEEP_MONTHS` months)."""
    kept = dict(sorted(marks.items())[-KEEP_MONTHS:])
    data = {
        "v": VERSION,
        "ledger": str(place.folder),
        "months": {key: mark.to_json() for key, mark in kept.items()},
    }
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    atomic_write_text(place.checkpoint, text, root=place.workspace)


def count(records: Iterable[UsageRecord]) -> MonthMark:
    """The totals of ``records`` as a month mark."""
    mark = MonthMark()
    for record in records:
        mark.add(record.source, record.tokens, record.cost_usd or 0.0)
    return mark


def after_append(
    place: LedgerPlace,
    record: UsageRecord,
    before: int,
    after: int,
    recount: Any,
) -> None:
    """Count ``record`` (just appended: the file grew from ``before`` to ``after`` bytes).

    Call it under the ledger lock. ``recount()`` returns the month file's records, read when
    the file grew by more than this append (its totals only ever raise the checkpoint's).
    """
    marks = load(place)
    month = month_of(record.time)
    mark = marks.get(month)
    if mark is None or before > mark.size:
        fresh = count(recount())
        if mark is None:
            mark = fresh
        else:
            mark.add(record.source, record.tokens, record.cost_usd or 0.0)
            mark.raise_to(fresh)
    else:
        mark.add(record.source, record.tokens, record.cost_usd or 0.0)
    mark.size = after
    marks[month] = mark
    save(place, marks)


@dataclass(frozen=True)
class Gap:
    """Calls the checkpoint counted that the ledger no longer holds.

    Attributes:
        month: ``YYYY-MM``.
        calls: How many.
        sources: ``(calls, tokens, usd)`` missing per source.
        message: One sentence for the person.
        path: The month file.
    """

    month: str
    calls: int
    sources: dict[str, Spend]
    message: str
    path: Path

    @property
    def tokens(self) -> int:
        """Tokens missing, all sources."""
        return sum(s[1] for s in self.sources.values())

    @property
    def usd(self) -> float:
        """Cost missing, all sources."""
        return sum(s[2] for s in self.sources.values())


def gap(
    place: LedgerPlace,
    month: str,
    found: MonthMark,
    *,
    exists: bool,
    marks: dict[str, MonthMark] | None = None,
) -> Gap | None:
    """What the ledger of ``month`` lacks compared with the checkpoint (``None``: nothing).

    Args:
        place: The ledger.
        month: ``YYYY-MM``.
        found: Totals of the good records the month file holds now.
        exists: Whether the month file exists (as a regular file).
        marks: The checkpoint as :func:`load` read it *before* the ledger was read (an append
            between the two reads then cannot look like a loss); default: read it now.
    """
    mark = (marks if marks is not None else load(place)).get(month)
    if mark is None or mark.calls <= found.calls:
        return None
    sources: dict[str, Spend] = {}
    for source, row in mark.sources.items():
        have = found.sources.get(source, [0, 0, 0.0])
        missing = (
            max(0, int(row[0] - have[0])),
            max(0, int(row[1] - have[1])),
            max(0.0, row[2] - have[2]),
        )
        if any(missing):
            sources[source] = missing
    calls = mark.calls - found.calls
    path = place.folder / f"ledger-{month}.jsonl"
    tokens = sum(s[1] for s in sources.values())
    usd = sum(s[2] for s in sources.values())
    label = _month_label(month)
    counted = Phrase(
        QT_TR_NOOP("1 call ({tokens} tokens, ${usd})")
        if calls == 1
        else QT_TR_NOOP("{calls} calls ({tokens} tokens, ${usd})"),
        calls=calls,
        tokens=f"{tokens:,}",
        usd=f"{usd:.2f}",
    )
    if not exists:
        message: str = Phrase(
            QT_TR_NOOP(
                "The usage ledger for {month} was deleted outside the app: its {counted} still "
                "count toward the budgets."
            ),
            month=label,
            counted=counted,
        )
    else:
        message = Phrase(
            QT_TR_NOOP(
                "The usage ledger for {month} lost {counted}: it was changed outside the app; "
                "they still count toward the budgets."
            ),
            month=label,
            counted=counted,
        )
    notify(f"{message} ({path})", key=f"gap:{path}:{calls}")
    return Gap(month, calls, sources, message, path)


def _month_label(month: str) -> str:
    """``November 2026`` for ``2026-11`` (a phrase; the month itself when it is no month)."""
    try:
        when = datetime.strptime(month, "%Y-%m")
    except ValueError:
        return month
    return Phrase(
        QT_TR_NOOP("{month} {year}"), month=Phrase(MONTHS[when.month - 1]), year=when.year
    )
