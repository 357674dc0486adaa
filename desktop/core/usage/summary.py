"""Spend summaries from the ledger: today and this month, per source, top sessions and jobs.

Periods are calendar days and months in the person's time zone (the config's timezone, else
the system's). One :class:`UsageSummary` feeds ``nanobot-desktop usage``, the budget checks
and the Usage view.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from desktop.core.config.budgets import SOURCES, Budgets, Limit
from desktop.core.usage.checkpoint import Gap
from desktop.core.usage.ledger import read_months
from desktop.core.usage.place import LedgerPlace
from desktop.core.usage.record import UsageRecord

TOP = 5


@dataclass
class Totals:
    """Sums over some calls.

    Attributes:
        calls: Number of calls.
        tokens: Prompt plus completion tokens.
        cost_usd: Sum of the known prices.
        unpriced: Calls whose model has no price in LiteLLM's map (their cost is not in
            ``cost_usd``).
    """

    calls: int = 0
    tokens: int = 0
    cost_usd: float = 0.0
    unpriced: int = 0

    def add(self, record: UsageRecord) -> None:
        """Count ``record``."""
        self.calls += 1
        self.tokens += record.tokens
        if record.cost_usd is None:
            self.unpriced += 1
        else:
            self.cost_usd += record.cost_usd


@dataclass
class UsageSummary:
    """Spend of the current day and month.

    Attributes:
        now: When it was made.
        zone: The time zone periods are counted in.
        today: Everything spent today.
        month: Everything spent this month.
        today_by_source: Today per source.
        month_by_source: This month per source.
        top_sessions: This month's costliest sessions ``(key, totals)``.
        top_jobs: This month's costliest cron jobs ``(job id, totals)``.
        days: This month per day and source ``{date: {source: totals}}``.
        gaps: Calls the ledger lost (deleted or changed outside the app) that its checkpoint
            counted: not in the totals above, but counted by the budgets.
    """

    now: datetime
    zone: str
    today: Totals = field(default_factory=Totals)
    month: Totals = field(default_factory=Totals)
    today_by_source: dict[str, Totals] = field(default_factory=dict)
    month_by_source: dict[str, Totals] = field(default_factory=dict)
    top_sessions: list[tuple[str, Totals]] = field(default_factory=list)
    top_jobs: list[tuple[str, Totals]] = field(default_factory=list)
    days: dict[date, dict[str, Totals]] = field(default_factory=dict)
    gaps: list[Gap] = field(default_factory=list)

    @property
    def warnings(self) -> list[str]:
        """One sentence per problem with the ledger (empty: none)."""
        return [gap.message for gap in self.gaps]


def zone_of(name: str | None) -> ZoneInfo | None:
    """The zone named ``name`` (``None``: the system's local time)."""
    if not name:
        return None
    try:
        return ZoneInfo(name)
    except (KeyError, ValueError):
        return None


def period_starts(now: datetime) -> tuple[datetime, datetime]:
    """Start of ``now``'s day and month (``now`` is aware)."""
    day = now.replace(hour=0, minute=0, second=0, microsecond=0)
    return day, day.replace(day=1)


def _rank(items: dict[str, Totals]) -> list[tuple[str, Totals]]:
    ranked = sorted(items.items(), key=lambda kv: (kv[1].cost_usd, kv[1].tokens), reverse=True)
    return ranked[:TOP]


def summarize(records: Iterable[UsageRecord], now: datetime) -> UsageSummary:
    """The summary of ``records`` for the day and month of ``now`` (an aware datetime)."""
    day_start, month_start = period_starts(now)
    zone = now.tzinfo
    summary = UsageSummary(now=now, zone=str(zone))
    sessions: dict[str, Totals] = defaultdict(Totals)
    jobs: dict[str, Totals] = defaultdict(Totals)
    for record in records:
        when = datetime.fromtimestamp(record.time, zone)
        if when < month_start or when > now + timedelta(minutes=5):
            continue
        summary.month.add(record)
        summary.month_by_source.setdefault(record.source, Totals()).add(record)
        summary.days.setdefault(when.date(), {}).setdefault(record.source, Totals()).add(record)
        if record.session:
            sessions[record.session].add(record)
        if record.job:
            jobs[record.job].add(record)
        if when >= day_start:
            summary.today.add(record)
            summary.today_by_source.setdefault(record.source, Totals()).add(record)
    summary.top_sessions = _rank(sessions)
    summary.top_jobs = _rank(jobs)
    return summary


def load_summary(
    place: LedgerPlace, *, zone: str | None = None, now: datetime | None = None
) -> UsageSummary:
    """Read this month's ledger and summarize it (blocking: call it in a thread)."""
    now = now or datetime.now(zone_of(zone)).astimezone(zone_of(zone))
    _day, month_start = period_starts(now)
    records, gaps = read_months(place, month_start.timestamp(), now.timestamp() + 300)
    summary = summarize(records, now)
    summary.gaps = gaps
    return summary


def source_order(names: Iterable[str]) -> list[str]:
    """Sources in the usual order, unknown ones after, alphabetically."""
    known = [s for s in SOURCES if s in names]
    return known + sorted(set(names) - set(SOURCES))


def _money(value: float, unpriced: int) -> str:
    text = f"${value:.4f}" if value < 1 else f"${value:.2f}"
    return text + ("*" if unpriced else "")


def _against(totals: Totals, limit: Limit, daily: bool) -> str:
    tokens = limit.daily_tokens if daily else limit.monthly_tokens
    usd = limit.daily_usd if daily else limit.monthly_usd
    parts = []
    if tokens is not None:
        parts.append(f"{totals.tokens / tokens:.0%} of {tokens:,} tokens" if tokens else "0 tokens")
    if usd is not None:
        parts.append(f"{totals.cost_usd / usd:.0%} of ${usd:g}" if usd else "$0")
    return f"  [{', '.join(parts)}]" if parts else ""


def render_text(summary: UsageSummary, budgets: Budgets | None = None) -> str:
    """The summary as plain text for the terminal."""
    budgets = budgets or Budgets()
    lines = [f"Usage on {summary.now:%Y-%m-%d} ({summary.zone})", ""]
    if summary.warnings:
        lines += [f"Warning: {text}" for text in summary.warnings] + [""]
    for title, totals, by_source, daily in (
        ("Today", summary.today, summary.today_by_source, True),
        (f"This month ({summary.now:%B %Y})", summary.month, summary.month_by_source, False),
    ):
        lines.append(
            f"{title}: {totals.tokens:,} tokens, {_money(totals.cost_usd, totals.unpriced)}, "
            f"{totals.calls} call(s){_against(totals, budgets.overall, daily)}"
        )
        for source in source_order(by_source):
            part = by_source[source]
            lines.append(
                f"  {source:<14}{part.tokens:>12,} tokens  "
                f"{_money(part.cost_usd, part.unpriced):>10}  {part.calls:>5} call(s)"
                f"{_against(part, budgets.limit_for(source), daily)}"
            )
        lines.append("")
    for title, ranked in (("Top sessions", summary.top_sessions), ("Top jobs", summary.top_jobs)):
        if ranked:
            lines.append(f"{title} this month:")
            lines.extend(
                f"  {name:<30}{t.tokens:>12,} tokens  {_money(t.cost_usd, t.unpriced):>10}"
                for name, t in ranked
            )
            lines.append("")
    if summary.month.unpriced:
        lines.append("* some calls used models without a known price; their cost is not counted.")
    if not summary.month.calls:
        lines.append("No model calls recorded this month.")
    return "\n".join(lines).rstrip() + "\n"
