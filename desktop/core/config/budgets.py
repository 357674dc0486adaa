"""Spend budgets: per source and overall, per day and per month, in tokens or dollars.

They live in ``desktop.json`` under ``budgets`` (:class:`~desktop.core.config.prefs.DesktopPrefs`),
not in ``config.json``: nanobot rejects unknown keys there, and budgets are this app's own
governor. Example::

    "budgets": {
      "overall": {"monthlyUsd": 20},
      "sources": {"dream": {"dailyTokens": 20000}, "heartbeat": {"dailyTokens": 5000}},
      "chatWarnAt": 0.8,
      "chatHardCap": false,
      "runawayMultiple": 5
    }

Every limit is optional (``null`` = none). Background sources (:data:`BACKGROUND`) are paused
before a call that would pass a limit; chat turns are warned at ``chatWarnAt`` of a limit and
stopped only with ``chatHardCap``.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

BACKGROUND = frozenset({"dream", "heartbeat", "cron", "consolidation"})
"""Sources that run without the person asking: paused before they pass a budget."""

SOURCES = ("chat", "subagent", "title", "consolidation", "dream", "heartbeat", "cron")
"""The sources a budget can be set for (in the order summaries list them)."""

Tokens = Annotated[int, Field(ge=0)]
Dollars = Annotated[float, Field(ge=0)]


class _Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")


class Limit(_Model):
    """Limits of one source (or of everything) for a day and a month; ``None`` = none."""

    daily_tokens: Tokens | None = None
    monthly_tokens: Tokens | None = None
    daily_usd: Dollars | None = None
    monthly_usd: Dollars | None = None

    @property
    def empty(self) -> bool:
        """Whether no limit is set."""
        return all(
            v is None
            for v in (self.daily_tokens, self.monthly_tokens, self.daily_usd, self.monthly_usd)
        )


class Budgets(_Model):
    """All budgets.

    Attributes:
        overall: Limits on everything together.
        sources: Limits per source (``dream``, ``heartbeat``, ``cron``, ``consolidation``,
            ``chat``, ``subagent``, ``title``).
        chat_warn_at: Chat turns warn once spend reaches this share of a limit (0..1).
        chat_hard_cap: Chat turns are refused, not only warned, once a limit is reached.
        runaway_multiple: A background run is stopped once its own tokens pass this many
            times the usual size of a run of its source (``0`` turns the guard off).
        runaway_min_tokens: ... and pass at least this many tokens (small runs that vary a
            lot, like a heartbeat that sometimes has work, are never called runaways).
    """

    overall: Limit = Field(default_factory=Limit)
    sources: dict[str, Limit] = Field(default_factory=dict)
    chat_warn_at: Annotated[float, Field(ge=0, le=1)] = 0.8
    chat_hard_cap: bool = False
    runaway_multiple: Annotated[float, Field(ge=0)] = 5.0
    runaway_min_tokens: Tokens = 20_000

    def limit_for(self, source: str) -> Limit:
        """The limits of ``source`` (empty when none is set)."""
        return self.sources.get(source) or Limit()


def raised(budgets: Budgets, scope: str, period: str, needed_tokens: int) -> Budgets:
    """``budgets`` with the ``scope`` limit for ``period`` raised so the paused run fits.

    Tokens: at least double, and at least ``needed_tokens`` (spent + the run's estimate),
    rounded up to a thousand. Dollars: doubled. ``scope`` is a source or ``"overall"``.
    """
    copy = budgets.model_copy(deep=True)
    limit = copy.overall if scope == "overall" else copy.sources.setdefault(scope, Limit())
    daily = period == "day"
    tokens = limit.daily_tokens if daily else limit.monthly_tokens
    usd = limit.daily_usd if daily else limit.monthly_usd
    if tokens is not None:
        value = -(-max(tokens * 2, needed_tokens, 1000) // 1000) * 1000
        setattr(limit, "daily_tokens" if daily else "monthly_tokens", value)
    if usd is not None:
        setattr(limit, "daily_usd" if daily else "monthly_usd", round(max(usd * 2, 0.01), 2))
    return copy
