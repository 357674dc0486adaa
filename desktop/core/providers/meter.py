"""What a model call has spent so far, for the calls that end without an answer.

An answered call is counted from the usage the server reports with its answer. A call that
is stopped (``/stop``, a cancelled background run, shutdown) or fails (a stream cut off, a
server that gave up) never gets that far, yet it may have cost tokens: the prompt of every
attempt the server took, and whatever it streamed before the end. The
:class:`~desktop.core.providers.switchable.SwitchableProvider` opens a :class:`CallMeter`
around each call (:func:`metering`); the provider notes in it, as the call goes, each
attempt sent, each piece of output streamed and any usage the server reported
(:func:`current_meter`). :func:`spent` then tells what the call cost: the server's own numbers
where it sent them, else an estimate (tiktoken) of the prompt and of the output seen.

A provider that notes nothing (a test double) leaves the meter empty: such a call is counted
with zero tokens.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from desktop.core.providers.base import Usage
from desktop.core.providers.tokens import count_messages, count_text, count_tools

Price = Callable[[int, int], float | None]
"""The price in dollars of ``(prompt_tokens, completion_tokens)`` (``None``: unknown)."""


@dataclass
class Attempt:
    """One HTTP attempt the server took.

    Attributes:
        output: Text, reasoning and tool-call arguments streamed so far.
        usage: The usage the server reported for it (``None``: none yet).
    """

    output: list[str] = field(default_factory=list)
    usage: Usage | None = None


@dataclass
class CallMeter:
    """The attempts of one model call (see the module docstring)."""

    attempts: list[Attempt] = field(default_factory=list)

    def sending(self) -> None:
        """A request is going out (it counts unless :meth:`refused` follows)."""
        self.attempts.append(Attempt())

    def refused(self) -> None:
        """The request of the last attempt was answered with an error: it cost nothing."""
        if self.attempts:
            self.attempts.pop()

    def output(self, piece: str) -> None:
        """The server streamed ``piece`` in the current attempt."""
        if self.attempts and piece:
            self.attempts[-1].output.append(piece)

    def reported(self, usage: Usage) -> None:
        """The server reported ``usage`` for the current attempt."""
        if self.attempts:
            self.attempts[-1].usage = usage


_METER: contextvars.ContextVar[CallMeter | None] = contextvars.ContextVar(
    "call_meter", default=None
)


@contextlib.contextmanager
def metering() -> Iterator[CallMeter]:
    """A fresh :class:`CallMeter` for the call made inside the block."""
    meter = CallMeter()
    token = _METER.set(meter)
    try:
        yield meter
    finally:
        _METER.reset(token)


def current_meter() -> CallMeter | None:
    """The meter of the call in progress here (``None`` outside a metered call)."""
    return _METER.get()


def spent(
    meter: CallMeter,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
    price: Price,
) -> tuple[Usage, bool]:
    """What the call metered by ``meter`` cost, and whether that is an estimate.

    Blocking (token counting): call it in a thread.

    Args:
        meter: The call's meter.
        messages: The request's messages (for the prompt estimate).
        tools: The request's tool definitions.
        price: Prices the total (``None``: the model's price is unknown).
    """
    prompt = completion = cached = 0
    estimated = False
    request: int | None = None
    for attempt in meter.attempts:
        if attempt.usage is not None:
            prompt += attempt.usage.prompt_tokens
            completion += attempt.usage.completion_tokens
            cached += attempt.usage.cached_tokens
            continue
        if request is None:
            request = count_messages(messages) + count_tools(tools)
        prompt += request
        completion += count_text("".join(attempt.output))
        estimated = True
    if not prompt and not completion:
        return Usage(cost_usd=0.0), False
    return Usage(prompt, completion, cached, price(prompt, completion)), estimated
