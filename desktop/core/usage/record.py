"""One model call as the usage ledger keeps it: :class:`UsageRecord`, and reading one back.

Below :mod:`desktop.core.usage.ledger` (the files) and :mod:`desktop.core.usage.checkpoint`
(the month marks), which both handle records. A parsed line that cannot be a real call
(:func:`implausible`) is not counted.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from desktop.core.providers.switchable import ModelCall

VERSION = 1
# Figures no single model call reaches: a record beyond them is forged or garbage.
MAX_CALL_TOKENS = 50_000_000
MAX_CALL_USD = 10_000.0
MAX_FUTURE_S = 86_400.0


@dataclass(frozen=True)
class UsageRecord:
    """One model call in the ledger.

    Attributes:
        time: When the call started (seconds since the epoch).
        source: What the call was for (see :class:`~desktop.core.providers.switchable.UsageTag`).
        session: The session key (``""`` when none).
        channel: The chat channel (``""`` when none).
        job: The cron job id (``""`` when none).
        phase: Dream's phase (1 or 2), else 0.
        run: Id shared by the calls of one background run (``""`` when none).
        model: The model asked.
        prompt_tokens: Prompt tokens the server reported.
        completion_tokens: Completion tokens the server reported.
        cached_tokens: Of the prompt tokens, those served from the cache.
        cost_usd: Price from LiteLLM's bundled price map; ``None`` when the model is not in it.
        duration_s: Wall time of the call.
        outcome: ``ok`` (answered), ``stopped`` (cancelled) or ``failed``.
        estimated: The tokens are an estimate (the server never reported them).
    """

    time: float
    source: str
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cost_usd: float | None = None
    duration_s: float = 0.0
    session: str = ""
    channel: str = ""
    job: str = ""
    phase: int = 0
    run: str = ""
    outcome: str = "ok"
    estimated: bool = False

    @property
    def tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    @classmethod
    def from_call(cls, call: ModelCall) -> UsageRecord:
        """The record of one call (answered, stopped or failed)."""
        tag, usage = call.tag, call.usage
        return cls(
            time=call.started,
            source=tag.source,
            model=call.model,
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            cached_tokens=usage.cached_tokens,
            cost_usd=usage.cost_usd,
            duration_s=round(call.duration_s, 3),
            session=tag.session,
            channel=tag.channel,
            job=tag.job,
            phase=tag.phase,
            run=tag.run,
            outcome=call.outcome,
            estimated=call.estimated,
        )

    def to_line(self) -> bytes:
        """The JSON line (newline included); ``time`` as ISO 8601 UTC for people reading it."""
        data: dict[str, Any] = {"v": VERSION, **asdict(self)}
        data["time"] = datetime.fromtimestamp(self.time, UTC).isoformat(timespec="milliseconds")
        if self.outcome == "ok":
            del data["outcome"]
        if not self.estimated:
            del data["estimated"]
        return json.dumps(data, ensure_ascii=False).encode("utf-8") + b"\n"

    @classmethod
    def from_json(cls, value: Any) -> UsageRecord | None:
        """A record from a parsed line (``None`` when it is not one)."""
        if not isinstance(value, dict):
            return None
        try:
            when = datetime.fromisoformat(str(value["time"])).timestamp()
            cost = value.get("cost_usd")
            return cls(
                time=when,
                source=str(value.get("source") or "agent"),
                model=str(value.get("model") or ""),
                prompt_tokens=_count(value.get("prompt_tokens")),
                completion_tokens=_count(value.get("completion_tokens")),
                cached_tokens=_count(value.get("cached_tokens")),
                cost_usd=float(cost) if isinstance(cost, int | float) and cost >= 0 else None,
                duration_s=float(value.get("duration_s") or 0.0),
                session=str(value.get("session") or ""),
                channel=str(value.get("channel") or ""),
                job=str(value.get("job") or ""),
                phase=_count(value.get("phase")),
                run=str(value.get("run") or ""),
                outcome=str(value.get("outcome") or "ok"),
                estimated=value.get("estimated") is True,
            )
        except (KeyError, TypeError, ValueError):
            return None


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    if isinstance(value, float) and not math.isfinite(value):
        return 0
    return max(0, int(value))


def implausible(value: Any, record: UsageRecord, now: float | None = None) -> str | None:
    """Why a parsed record cannot be a real call (``None``: it can).

    Negative or enormous token counts or cost, or a time more than a day ahead: a line like
    that is forged or garbage, and counting it could lock chats out with spend that never was.
    """
    for key in ("prompt_tokens", "completion_tokens", "cached_tokens"):
        raw = value.get(key)
        if isinstance(raw, int | float) and not isinstance(raw, bool) and raw < 0:
            return f"{key} is negative"
    cost = value.get("cost_usd")
    if isinstance(cost, int | float) and not isinstance(cost, bool) and cost < 0:
        return "cost_usd is negative"
    if record.tokens > MAX_CALL_TOKENS or record.cached_tokens > MAX_CALL_TOKENS:
        return f"{record.tokens:,} tokens in one call"
    if record.cost_usd is not None and record.cost_usd > MAX_CALL_USD:
        return f"${record.cost_usd:,.2f} for one call"
    if record.time > (now if now is not None else time.time()) + MAX_FUTURE_S:
        return "its time is in the future"
    return None


def parse_line(value: Any, now: float | None = None) -> UsageRecord | None:
    """The record of one parsed ledger line (``None``: damaged, forged or garbage)."""
    record = UsageRecord.from_json(value)
    if record is None or implausible(value, record, now) is not None:
        return None
    return record
