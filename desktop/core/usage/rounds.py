"""One chat's model calls, round by round, and where its context was compacted: what the
chat's context view draws, read from the usage ledger (what the provider reported).

Every model call made for a session is in the ledger with the session's key
(:class:`~desktop.core.usage.record.UsageRecord`): the turn's calls (one per round of the
agent: a request, its answer, maybe tool calls) and the Consolidator's summary calls, which
are tagged ``consolidation`` whatever started them (a request over budget, ``/compact``, idle
compaction, ``/new``). :func:`session_context` folds those records into
:class:`SessionContext`: the rounds in time order and the compactions between them.

Pure data and one blocking reader (:func:`load_session_context`, for a worker thread).
"""

from __future__ import annotations

import time as _time
from collections.abc import Iterable
from dataclasses import dataclass

from desktop.core.usage.ledger import read_records
from desktop.core.usage.place import LedgerPlace
from desktop.core.usage.record import UsageRecord

COMPACTION_SOURCE = "consolidation"
ROUND_SOURCES = frozenset({"chat", "api", "cron", "heartbeat", "agent"})
"""Sources whose calls send the chat's own context (a subagent, a title or Dream do not)."""
LOOKBACK_S = 92 * 86_400.0
"""How far back :func:`load_session_context` reads by default (about three months)."""


@dataclass(frozen=True)
class Round:
    """One model call of the chat's turns.

    Attributes:
        time: When the call started (seconds since the epoch).
        model: The model asked.
        prompt_tokens: Input tokens the server reported.
        completion_tokens: Output tokens the server reported.
        cached_tokens: Of the input tokens, those the provider served from its cache (0 when
            it reported none).
        outcome: ``ok``, ``stopped`` or ``failed``.
        estimated: The tokens are an estimate (the server never reported them).
    """

    time: float
    model: str
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int = 0
    outcome: str = "ok"
    estimated: bool = False


@dataclass(frozen=True)
class Compaction:
    """The chat's history was summarised (its later rounds send the summary instead).

    Attributes:
        time: When the (first) summary call started.
        after: How many rounds came before it (it sits between ``rounds[after - 1]`` and
            ``rounds[after]``).
        calls: Summary calls it took.
        tokens: Their input plus output tokens.
    """

    time: float
    after: int
    calls: int = 1
    tokens: int = 0


@dataclass(frozen=True)
class SessionContext:
    """A chat's rounds and compactions, oldest first.

    Attributes:
        key: The session key.
        rounds: The model calls of its turns.
        compactions: Where its history was summarised.
    """

    key: str
    rounds: tuple[Round, ...] = ()
    compactions: tuple[Compaction, ...] = ()

    @property
    def cached_reported(self) -> bool:
        """Whether the provider reported cache hits for any round."""
        return any(r.cached_tokens for r in self.rounds)


def session_context(records: Iterable[UsageRecord], key: str) -> SessionContext:
    """Fold the ledger ``records`` of session ``key`` into its rounds and compactions.

    Summary calls with no round between them are one compaction (the Consolidator may need
    several calls to bring a long chat under its budget).
    """
    mine = sorted((r for r in records if r.session == key), key=lambda r: r.time)
    rounds: list[Round] = []
    compactions: list[Compaction] = []
    for record in mine:
        if record.source == COMPACTION_SOURCE:
            last = compactions[-1] if compactions else None
            if last is not None and last.after == len(rounds):
                compactions[-1] = Compaction(
                    last.time, last.after, last.calls + 1, last.tokens + record.tokens
                )
            else:
                compactions.append(Compaction(record.time, len(rounds), 1, record.tokens))
        elif record.source in ROUND_SOURCES:
            rounds.append(
                Round(
                    time=record.time,
                    model=record.model,
                    prompt_tokens=record.prompt_tokens,
                    completion_tokens=record.completion_tokens,
                    cached_tokens=min(record.cached_tokens, record.prompt_tokens),
                    outcome=record.outcome,
                    estimated=record.estimated,
                )
            )
    return SessionContext(key, tuple(rounds), tuple(compactions))


def load_session_context(
    place: LedgerPlace, key: str, *, since: float | None = None, until: float | None = None
) -> SessionContext:
    """Session ``key``'s context from the ledger (blocking: call it in a worker thread).

    Args:
        place: Where the workspace's ledger is.
        key: The session key.
        since: Read calls from this time on (default: :data:`LOOKBACK_S` ago).
        until: Up to this time (default: a minute from now).
    """
    now = _time.time()
    start = now - LOOKBACK_S if since is None else since
    end = now + 60.0 if until is None else until
    return session_context(read_records(place, start, end), key)
