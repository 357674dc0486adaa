"""The spend governor: budgets checked before each model call, and the runaway guard.

It is a call guard of the runtime's :class:`~desktop.core.providers.switchable.SwitchableProvider`
(awaited before every call with the call's :class:`~desktop.core.providers.switchable.UsageTag`):

- A **background** source (:data:`~desktop.core.config.budgets.BACKGROUND`: Dream, heartbeat,
  cron, consolidation) whose next call would pass its budget or the overall one is paused
  *before* the call: :class:`~desktop.core.bus.events.BudgetPaused` goes on the bus, and the
  call waits for :meth:`SpendGovernor.answer` (the window's banner: Run once / Raise / Keep
  paused; "Raise" saves a higher budget and answers ``run``). Without a front end that can
  answer (``interactive=False``: the gateway, the CLI) the call is refused at once and the
  event says so (the gateway logs it). "Run once" lets the whole run continue.
- **Chat** calls (chat, subagent, title) are never paused: :class:`BudgetWarning` once spend
  reaches ``chatWarnAt`` of a budget; with ``chatHardCap`` a call over budget is refused.
- The **runaway guard**: a background run (one ``UsageTag.run``) whose own tokens pass
  ``runawayMultiple`` times the usual size of a run of its source (the median of this month's
  earlier runs; at least :data:`MIN_RUNS` of them), and at least ``runawayMinTokens``, is
  refused its next call and :class:`RunawayStopped` is reported.

A refusal is :class:`BudgetRefused`, an :class:`~desktop.core.providers.base.LLMError`: every
caller already turns that into data (Dream keeps its batch for later, the Consolidator archives
raw, a turn fails with the message, a scheduled job is recorded as skipped with cause
``budget`` -- a reminder's own text is delivered all the same, see
:mod:`desktop.core.cron.delivery`).

Spend is read from the ledger itself, incrementally (:class:`SpendTally`), so calls made by
another process on the same workspace (the gateway beside the app) count too -- calls that
were stopped or failed included, with what they cost (:mod:`desktop.core.usage.ledger`).
Nothing can make spend look smaller than it was: records the ledger could not write yet
(:attr:`~desktop.core.usage.ledger.UsageLedger.unwritten`) count, and so do calls the
checkpoint counted that the ledger no longer holds (a deleted or cut ledger:
:class:`~desktop.core.usage.checkpoint.Gap`, counted toward today's and this month's spend);
forged or garbage lines do not (:func:`~desktop.core.usage.record.implausible`).
"""

from __future__ import annotations

import asyncio
import logging
import os
import statistics
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Literal

from desktop.core.bus.events import (
    BudgetPaused,
    BudgetResolved,
    BudgetWarning,
    RunawayStopped,
    RunEvent,
)
from desktop.core.config.budgets import BACKGROUND, Budgets, Limit
from desktop.core.providers.base import LLMError
from desktop.core.providers.switchable import UsageTag
from desktop.core.usage import checkpoint
from desktop.core.usage.ledger import month_files
from desktop.core.usage.place import LedgerPlace
from desktop.core.usage.record import UsageRecord, parse_line
from desktop.core.usage.summary import period_starts, zone_of
from desktop.core.utils import ownfiles
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.tasks import finish
from desktop.core.utils.validate import Unusable, load_json_text

log = logging.getLogger(__name__)

MIN_RUNS = 3
ASK_TIMEOUT_S = 30 * 60.0
Choice = Literal["run", "keep"]


class BudgetRefused(LLMError):
    """A call refused by a budget or the runaway guard.

    Its kind is ``budget``, not the provider's ``quota``: the app's own cap stopped the call,
    so the advice is Settings › Usage & budgets, never "add credit or switch provider".
    """

    def __init__(self, message: str) -> None:
        super().__init__(message, kind="budget", retryable=False, details=message)


@dataclass
class _Spend:
    tokens: int = 0
    usd: float = 0.0

    def add(self, record: UsageRecord) -> None:
        self.tokens += record.tokens
        self.usd += record.cost_usd or 0.0


class SpendTally:
    """This month's spend per day and source, and per run, read from the ledger as it grows.

    Args:
        place: The ledger (:func:`desktop.core.usage.place.locate`).
        zone: IANA zone for days and months (``None``: local time).
        pending: Returns the records the ledger could not write yet (they count too).
    """

    def __init__(
        self,
        place: LedgerPlace,
        zone: str | None = None,
        pending: Callable[[], list[UsageRecord]] | None = None,
    ) -> None:
        self.place = place
        self.zone = zone_of(zone)
        self.pending = pending or list
        self._month: datetime | None = None
        self._offsets: dict[Path, tuple[int, tuple[int, int]]] = {}
        self._files: dict[Path, checkpoint.MonthMark] = {}
        self.days: dict[date, dict[str, _Spend]] = {}
        self.runs: dict[str, tuple[str, _Spend]] = {}  # run -> (source, spend)
        self.gaps: list[checkpoint.Gap] = []
        self.unwritten: list[UsageRecord] = []

    def now(self) -> datetime:
        """Now, in the tally's zone."""
        return datetime.now(self.zone).astimezone(self.zone)

    def refresh(self) -> None:
        """Read what was appended since the last refresh (blocking: call it in a thread)."""
        now = self.now()
        _day, month = period_starts(now)
        if month != self._month:
            self._reset(month)
        paths = month_files(self.place.folder, month.timestamp(), now.timestamp() + 300)
        marks = checkpoint.load(self.place)  # before the ledger: an append meanwhile is no gap
        if not all(self._tail(path, month.timestamp()) for path in paths):
            self._reset(month)  # a file was cut or replaced: count it all again
            for path in paths:
                self._tail(path, month.timestamp())
        self.gaps = []
        for path in paths:
            exists = ownfiles.entry_kind(path, root=self.place.root) == "file"
            mark = self._files.get(path, checkpoint.MonthMark())
            month_name = path.stem.removeprefix("ledger-")
            found = checkpoint.gap(self.place, month_name, mark, exists=exists, marks=marks)
            if found is not None:
                self.gaps.append(found)
        self.unwritten = [r for r in self.pending() if r.time >= month.timestamp()]

    def _reset(self, month: datetime) -> None:
        self._month, self._offsets, self._files, self.days, self.runs = month, {}, {}, {}, {}

    def _tail(self, path: Path, since: float) -> bool:
        """Count the whole lines appended to ``path`` since the last read (``False``: the file
        is not the one read before, or is shorter: the caller counts again)."""
        offset, ident = self._offsets.get(path, (0, (0, 0)))
        try:
            handle = ownfiles.open_read(path, root=self.place.root)
        except OSError as exc:  # a link or FIFO there: its calls are missing (see the gaps)
            log.warning("usage ledger: %s", exc)
            return offset == 0
        if handle is None:
            return offset == 0
        with handle:
            st = os.fstat(handle.fileno())
            if offset and ((st.st_dev, st.st_ino) != ident or st.st_size < offset):
                return False
            handle.seek(offset)
            data = handle.read()
        end = data.rfind(b"\n") + 1  # only whole lines; a line being written waits
        mark = self._files.setdefault(path, checkpoint.MonthMark())
        for raw in data[:end].splitlines():
            record = _parse(raw)
            if record is None:
                continue  # damaged, forged or garbage: the readers set it aside
            mark.add(record.source, record.tokens, record.cost_usd or 0.0)
            if record.time < since:
                continue
            self._count(record)
        self._offsets[path] = (offset + end, (st.st_dev, st.st_ino))
        return True

    def _count(self, record: UsageRecord) -> None:
        when = datetime.fromtimestamp(record.time, self.zone).date()
        self.days.setdefault(when, {}).setdefault(record.source, _Spend()).add(record)
        if record.run:
            self.runs.setdefault(record.run, (record.source, _Spend()))[1].add(record)

    def spent(self, source: str | None, period: Literal["day", "month"]) -> _Spend:
        """Spend of ``source`` (``None``: everything) today or this month.

        Records not written yet count on their day; calls the ledger lost (its gaps) count
        both today and this month, since when they were made is not known.
        """
        today = self.now().date()
        total = _Spend()
        for day, sources in self.days.items():
            if period == "day" and day != today:
                continue
            for name, spend in sources.items():
                if source is None or name == source:
                    total.tokens += spend.tokens
                    total.usd += spend.usd
        for record in self.unwritten:
            day = datetime.fromtimestamp(record.time, self.zone).date()
            if (period == "month" or day == today) and source in (None, record.source):
                total.add(record)
        for gap in self.gaps:
            for name, (_calls, tokens, usd) in gap.sources.items():
                if source is None or name == source:
                    total.tokens += tokens
                    total.usd += usd
        return total

    def usual_run(self, source: str, *, besides: str) -> int | None:
        """The median tokens of this month's runs of ``source`` (``None``: too few runs)."""
        sizes = [
            s.tokens for run, (src, s) in self.runs.items() if src == source and run != besides
        ]
        return int(statistics.median(sizes)) if len(sizes) >= MIN_RUNS else None

    def still_wanted(self, source: str, run: str) -> int:
        """What ``run`` will likely still use: the average run of ``source`` this month, less
        what ``run`` used so far (0 when ``source`` has no earlier run)."""
        sizes = [s.tokens for r, (src, s) in self.runs.items() if src == source and r != run]
        if not sizes:
            return 0
        used = self.runs[run][1].tokens if run in self.runs else 0
        return max(0, sum(sizes) // len(sizes) - used)


def _parse(raw: bytes) -> UsageRecord | None:
    try:
        value, problems = load_json_text(raw)
    except Unusable:
        return None
    return None if problems else parse_line(value)


@dataclass(frozen=True)
class _Over:
    scope: str
    period: Literal["day", "month"]
    spent: _Spend
    limit_tokens: int | None
    limit_usd: float | None


def _first_over(
    tally: SpendTally, checks: list[tuple[str, str | None, Limit]], extra_tokens: int, share: float
) -> _Over | None:
    """The first limit that spend (plus ``extra_tokens``) reaches ``share`` of."""
    for scope, source, limit in checks:
        for period in ("day", "month"):
            tokens = limit.daily_tokens if period == "day" else limit.monthly_tokens
            usd = limit.daily_usd if period == "day" else limit.monthly_usd
            if tokens is None and usd is None:
                continue
            spent = tally.spent(source, period)
            total = spent.tokens + extra_tokens
            if tokens is not None and (
                total > tokens * share if extra_tokens else total >= tokens * share
            ):
                return _Over(scope, period, spent, tokens, usd)
            if usd is not None and spent.usd >= usd * share:
                return _Over(scope, period, spent, tokens, usd)
    return None


def _k(tokens: int) -> str:
    return f"{tokens / 1000:.0f}k" if tokens >= 10_000 else f"{tokens:,}"


# The sources as the messages name them (marked: the window shows them translated).
_NAMES = frozenset(
    {
        QT_TR_NOOP("Chat"),
        QT_TR_NOOP("Subagent"),
        QT_TR_NOOP("Title"),
        QT_TR_NOOP("Consolidation"),
        QT_TR_NOOP("Dream"),
        QT_TR_NOOP("Heartbeat"),
        QT_TR_NOOP("Cron"),
        QT_TR_NOOP("chat"),
        QT_TR_NOOP("subagent"),
        QT_TR_NOOP("title"),
        QT_TR_NOOP("consolidation"),
        QT_TR_NOOP("dream"),
        QT_TR_NOOP("heartbeat"),
        QT_TR_NOOP("cron"),
        QT_TR_NOOP("overall"),
    }
)


# What a refusal says (a run's receipt keeps it as English text: REFUSALS lets the window
# read a stored one back as the phrase it was, desktop.core.utils.i18n.recognize).
_RUNAWAY_AGAIN = QT_TR_NOOP("this {source} run was stopped: it used far more than usual")
_RUNAWAY = QT_TR_NOOP("Stopped a {source} run: it used {used} tokens, {ratio}× its usual {usual}.")
_CAP = QT_TR_NOOP("The spend cap is reached: {budget}. Raise it in Settings › Usage & budgets.")
_TOKENS_TODAY = QT_TR_NOOP("today's {whose} budget is {limit} and {spent} are spent")
_TOKENS_MONTH = QT_TR_NOOP("this month's {whose} budget is {limit} and {spent} are spent")
_USD_TODAY = QT_TR_NOOP("today's {whose} budget is ${limit} and ${spent} is spent")
_USD_MONTH = QT_TR_NOOP("this month's {whose} budget is ${limit} and ${spent} is spent")
_WANTS_TO_RUN = QT_TR_NOOP("{name} wants to run; {budget}")
_WANTS_TOKENS = QT_TR_NOOP("{name} wants ~{tokens} tokens; {budget}")
_WANTS_MORE = QT_TR_NOOP("{name} wants more tokens; {budget}")
_PAUSED = QT_TR_NOOP("Paused by the budget: {message}.")
# A skipped reminder's reason keeps the refusal without its full stop (cron.delivery).
_PAUSED_CLAUSE = QT_TR_NOOP("Paused by the budget: {message}")
REFUSALS: tuple[str, ...] = (  # the wrappers first: a tie between two readings goes to them
    _PAUSED,
    _PAUSED_CLAUSE,
    _RUNAWAY_AGAIN,
    _RUNAWAY,
    _CAP,
    _TOKENS_TODAY,
    _TOKENS_MONTH,
    _USD_TODAY,
    _USD_MONTH,
    _WANTS_TO_RUN,
    _WANTS_TOKENS,
    _WANTS_MORE,
    *sorted(_NAMES),
)


def _named(name: str) -> str:
    """``name`` (a source, or ``overall``) as a phrase when it is one of ours."""
    return Phrase(name) if name in _NAMES else name


def _budget_clause(over: _Over, whose: str) -> str:
    """``today's chat budget is 50k and 51k are spent`` (tokens) or the same in dollars."""
    day = over.period == "day"
    if over.limit_tokens is not None:
        template = _TOKENS_TODAY if day else _TOKENS_MONTH
        return Phrase(
            template,
            whose=whose,
            limit=_k(over.limit_tokens),
            spent=_k(over.spent.tokens),
        )
    template = _USD_TODAY if day else _USD_MONTH
    return Phrase(template, whose=whose, limit=f"{over.limit_usd:g}", spent=f"{over.spent.usd:.2f}")


def _describe(source: str, over: _Over, estimate: int) -> str:
    name = _named(source.capitalize())
    whose = _named("overall") if over.scope == "overall" else name
    budget = _budget_clause(over, whose)
    if over.limit_tokens is None:
        return Phrase(_WANTS_TO_RUN, name=name, budget=budget)
    if estimate:
        return Phrase(
            _WANTS_TOKENS,
            name=name,
            tokens=_k(estimate),
            budget=budget,
        )
    return Phrase(_WANTS_MORE, name=name, budget=budget)


def _paused(message: str) -> str:
    return Phrase(_PAUSED, message=message)


def _warning(share: float, whose: str, tokens: bool, day: bool) -> str:
    """``80% of the chat token budget for today is spent.`` and its three siblings."""
    if tokens:
        template = (
            QT_TR_NOOP("{share} of the {whose} token budget for today is spent.")
            if day
            else QT_TR_NOOP("{share} of the {whose} token budget for this month is spent.")
        )
    else:
        template = (
            QT_TR_NOOP("{share} of the {whose} budget for today is spent.")
            if day
            else QT_TR_NOOP("{share} of the {whose} budget for this month is spent.")
        )
    return Phrase(template, share=f"{share:.0%}", whose=_named(whose))


class SpendGovernor:
    """Checks budgets and runaway runs before each model call (see the module docstring).

    Args:
        place: The workspace's ledger, the record of spend.
        budgets: Returns the budgets in force (read at every check: Settings apply at once).
        emit: Puts an event on the bus (``MessageBus.emit``).
        interactive: A front end answers :class:`BudgetPaused` (the window); otherwise a
            background call over budget is refused at once.
        zone: IANA zone for days and months.
        ask_timeout_s: An unanswered pause counts as "Keep paused" after this long.
        pending: Returns the records the ledger could not write yet (they count).
    """

    def __init__(
        self,
        place: LedgerPlace,
        budgets: Callable[[], Budgets],
        emit: Callable[[RunEvent], object],
        *,
        interactive: bool = False,
        zone: str | None = None,
        ask_timeout_s: float = ASK_TIMEOUT_S,
        pending: Callable[[], list[UsageRecord]] | None = None,
    ) -> None:
        self.tally = SpendTally(place, zone, pending)
        self.budgets = budgets
        self._emit = emit
        self.interactive = interactive
        self.ask_timeout_s = ask_timeout_s
        self._pending: dict[str, asyncio.Future[Choice]] = {}
        self._allowed_runs: set[str] = set()
        self._stopped_runs: set[str] = set()
        self._warned: set[tuple[str, str, str, str]] = set()
        self._lock = asyncio.Lock()

    @property
    def pending(self) -> list[str]:
        """Ids of the pauses waiting for an answer."""
        return [rid for rid, f in self._pending.items() if not f.done()]

    def answer(self, request_id: str, choice: Choice) -> bool:
        """Answer a :class:`BudgetPaused` (``run`` = run once, ``keep`` = keep paused).

        Returns whether the request was still waiting.
        """
        future = self._pending.get(request_id)
        if future is None or future.done():
            return False
        future.set_result(choice)
        return True

    async def _send(self, event: RunEvent) -> None:
        result = self._emit(event)
        if asyncio.iscoroutine(result) or isinstance(result, asyncio.Future):
            await result

    async def guard(self, tag: UsageTag, model: str) -> None:
        """The call guard: return to let the call go, raise :class:`BudgetRefused` to stop it."""
        budgets = self.budgets()
        await asyncio.to_thread(self.tally.refresh)
        if tag.source in BACKGROUND:
            await self._runaway(tag, budgets)
            await self._background(tag, budgets)
        else:
            await self._chat(tag, budgets)

    async def _runaway(self, tag: UsageTag, budgets: Budgets) -> None:
        if not tag.run or budgets.runaway_multiple <= 0:
            return
        if tag.run in self._stopped_runs:
            raise BudgetRefused(Phrase(_RUNAWAY_AGAIN, source=_named(tag.source)))
        entry = self.tally.runs.get(tag.run)
        usual = self.tally.usual_run(tag.source, besides=tag.run)
        if entry is None or usual is None or usual <= 0:
            return
        used = entry[1].tokens
        if used <= max(usual * budgets.runaway_multiple, budgets.runaway_min_tokens):
            return
        self._stopped_runs.add(tag.run)
        message = Phrase(
            _RUNAWAY,
            source=_named(tag.source),
            used=f"{used:,}",
            ratio=f"{used / usual:.0f}",
            usual=f"{usual:,}",
        )
        log.warning("%s (run %s, job %s)", message, tag.run, tag.job or "-")
        await self._send(RunawayStopped(tag.source, tag.run, tag.job, used, usual, message))
        raise BudgetRefused(message)

    async def _background(self, tag: UsageTag, budgets: Budgets) -> None:
        if tag.run and tag.run in self._allowed_runs:
            return
        estimate = self.tally.still_wanted(tag.source, tag.run)
        checks = [
            (tag.source, tag.source, budgets.limit_for(tag.source)),
            ("overall", None, budgets.overall),
        ]
        over = _first_over(self.tally, checks, estimate, 1.0)
        if over is None:
            return
        message = _describe(tag.source, over, estimate)
        request_id = uuid.uuid4().hex[:12]
        event = BudgetPaused(
            request_id,
            tag.source,
            tag.job,
            estimate,
            over.spent.tokens,
            over.spent.usd,
            over.limit_tokens,
            over.limit_usd,
            over.scope,
            over.period,
            message,
            asked=self.interactive,
        )
        if not self.interactive:
            log.warning("budget: %s — kept paused (nobody to ask here)", message)
            await self._send(event)
            raise BudgetRefused(_paused(message))
        future: asyncio.Future[Choice] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        log.info("budget: %s — asking", message)
        choice: Choice = "keep"
        try:
            await self._send(event)
            async with asyncio.timeout(self.ask_timeout_s):
                choice = await future
        except TimeoutError:
            choice = "keep"
        finally:
            self._pending.pop(request_id, None)
            await finish(self._send(BudgetResolved(request_id, choice)))
        if choice == "keep":
            raise BudgetRefused(_paused(message))
        if tag.run:
            self._allowed_runs.add(tag.run)

    async def _chat(self, tag: UsageTag, budgets: Budgets) -> None:
        checks = [
            (tag.source, tag.source, budgets.limit_for(tag.source)),
            ("overall", None, budgets.overall),
        ]
        if budgets.chat_hard_cap:
            over = _first_over(self.tally, checks, 0, 1.0)
            if over is not None:
                name = _named(tag.source.capitalize())
                whose = _named("overall") if over.scope == "overall" else name
                cap = Phrase(_CAP, budget=_budget_clause(over, whose))
                await self._send(
                    BudgetWarning(tag.source, over.scope, over.period, cap, refused=True)
                )
                raise BudgetRefused(cap)
        over = _first_over(self.tally, checks, 0, budgets.chat_warn_at)
        if over is None:
            return
        key = (over.scope, over.period, str(self.tally.now().date()), tag.source)
        if key in self._warned:
            return
        self._warned.add(key)
        day = over.period == "day"
        if over.limit_tokens is not None:
            share = over.spent.tokens / max(1, over.limit_tokens)
            text = _warning(share, over.scope, True, day)
        else:
            share = over.spent.usd / max(1e-9, over.limit_usd or 0.0)
            text = _warning(share, over.scope, False, day)
        await self._send(BudgetWarning(tag.source, over.scope, over.period, text))
