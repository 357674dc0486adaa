"""A provider that can be replaced while the runtime runs, and the one place model calls pass.

The runtime is built once with a :class:`SwitchableProvider`; every part that calls a model
(the agent loop, subagents, the Consolidator, Dream, the heartbeat) holds this object, so
switching the model from the chat header is one atomic assignment: calls already running
finish on the provider they started with, every later call uses the new one. Nothing is
cancelled.

Every call also passes :meth:`SwitchableProvider._report`: listeners get
``(source, model, usage)`` for each answered call, where ``source`` comes from
:func:`usage_source` (``"agent"`` unless a caller tagged its calls, e.g. ``"title"`` for
automatic chat titles). Call listeners (:meth:`add_call_listener`) get a whole
:class:`ModelCall`: the :class:`UsageTag` in force (source, session, channel, cron job, Dream
phase, set with :func:`usage_scope` by whoever starts the work), the model, the usage and the
duration; the spend ledger (:mod:`desktop.core.usage.ledger`) hooks in there. Call guards
(:meth:`add_call_guard`) run *before* each call and may refuse it (the budget governor).
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any

from desktop.core.providers.base import LLMProvider, LLMResponse, StreamCallback, Usage

log = logging.getLogger(__name__)

UsageListener = Callable[[str, str, Usage], None]
"""Called with ``(source, model, usage)`` after every answered model call."""


@dataclass(frozen=True)
class UsageTag:
    """Who a model call is made for (set with :func:`usage_scope`, read by the ledger).

    Attributes:
        source: ``chat``, ``subagent``, ``consolidation``, ``dream``, ``heartbeat``, ``cron``,
            ``title`` (``agent`` when nobody tagged the call).
        session: The session key the work belongs to (``""`` when none).
        channel: The chat channel of that session (``""`` when none).
        job: The cron job id when a scheduled job started the work.
        phase: Dream's phase (1 analysis, 2 edits); 0 otherwise.
        run: An id shared by the calls of one background run (the runaway guard's unit).
    """

    source: str = "agent"
    session: str = ""
    channel: str = ""
    job: str = ""
    phase: int = 0
    run: str = ""


@dataclass(frozen=True)
class ModelCall:
    """One answered model call, as call listeners see it."""

    tag: UsageTag
    model: str
    usage: Usage
    started: float  # time.time() when the call began
    duration_s: float


TURN_SOURCES: dict[str, str] = {
    "message": "chat",
    "cron": "cron",
    "heartbeat": "heartbeat",
    "subagent": "subagent",
}
"""The ledger source of a turn, by what started it (a subagent's report counts as its spend)."""

CallListener = Callable[[ModelCall], Awaitable[None] | None]
"""Called with each answered :class:`ModelCall` (awaited when it returns an awaitable)."""

CallGuard = Callable[[UsageTag, str], Awaitable[None]]
"""Awaited with ``(tag, model)`` before each call; raising refuses the call."""

_UNTAGGED = UsageTag()  # frozen: safe to share as the default
_TAG: contextvars.ContextVar[UsageTag] = contextvars.ContextVar("usage_tag", default=_UNTAGGED)


@contextlib.contextmanager
def usage_scope(**changes: Any) -> Iterator[UsageTag]:
    """Tag the model calls made inside the block (in this task and tasks it starts).

    ``changes`` are :class:`UsageTag` fields; the others keep the enclosing scope's values
    (a cron job's id stays on the Dream run it started).
    """
    tag = dataclasses.replace(_TAG.get(), **changes)
    token = _TAG.set(tag)
    try:
        yield tag
    finally:
        _TAG.reset(token)


@contextlib.contextmanager
def usage_source(source: str) -> Iterator[None]:
    """Tag the model calls made inside the block (in this task) with ``source``."""
    with usage_scope(source=source):
        yield


def current_source() -> str:
    """The tag of calls made here (``"agent"`` by default)."""
    return _TAG.get().source


def current_tag() -> UsageTag:
    """The whole :class:`UsageTag` in force here."""
    return _TAG.get()


class SwitchableProvider(LLMProvider):
    """Delegates every call to the current provider; :meth:`switch` replaces it.

    Args:
        provider: The provider to start with.
    """

    def __init__(self, provider: LLMProvider) -> None:
        self._current = provider
        self._listeners: list[UsageListener] = []
        self._call_listeners: list[CallListener] = []
        self._guards: list[CallGuard] = []

    def __repr__(self) -> str:
        return f"SwitchableProvider({self._current!r})"

    @property
    def current(self) -> LLMProvider:
        """The provider later calls go to."""
        return self._current

    @property
    def model(self) -> str:
        """The current provider's model."""
        return self._current.model

    @property
    def choice(self) -> Any:
        """The current provider's routing (``None`` for providers without one)."""
        return getattr(self._current, "choice", None)

    def switch(self, provider: LLMProvider) -> LLMProvider:
        """Send every later call to ``provider``; returns the previous one.

        Calls already running are not touched (they finish on the provider they started on).
        """
        if isinstance(provider, SwitchableProvider):
            raise TypeError("cannot switch to another SwitchableProvider")
        previous, self._current = self._current, provider
        log.info("model switched: %s → %s", previous.model, provider.model)
        return previous

    def add_usage_listener(self, listener: UsageListener) -> Callable[[], None]:
        """Call ``listener(source, model, usage)`` after each answered call; returns a remover."""
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return remove

    def add_call_listener(self, listener: CallListener) -> Callable[[], None]:
        """Call ``listener(call)`` after each answered call; returns a remover."""
        self._call_listeners.append(listener)
        return lambda: (
            self._call_listeners.remove(listener) if listener in self._call_listeners else None
        )

    def add_call_guard(self, guard: CallGuard) -> Callable[[], None]:
        """Await ``guard(tag, model)`` before each call (it may raise); returns a remover."""
        self._guards.append(guard)
        return lambda: self._guards.remove(guard) if guard in self._guards else None

    async def _before(self, model: str) -> float:
        tag = _TAG.get()
        for guard in list(self._guards):
            await guard(tag, model)
        return time.time()

    async def _report(self, model: str, response: LLMResponse, started: float) -> None:
        tag = _TAG.get()
        for listener in list(self._listeners):
            try:
                listener(tag.source, model, response.usage)
            except Exception:  # accounting must never break a turn
                log.exception("usage listener failed")
        call = ModelCall(tag, model, response.usage, started, max(0.0, time.time() - started))
        for call_listener in list(self._call_listeners):
            try:
                result = call_listener(call)
                if result is not None:
                    await result
            except Exception:  # accounting must never break a turn
                log.exception("call listener failed")

    async def chat(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        *,
        model: str | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        tool_choice: str | dict[str, Any] | None = None,
        reasoning_effort: str | None = None,
    ) -> LLMResponse:
        """One non-streaming call on the current provider."""
        provider = self._current
        started = await self._before(model or provider.model)
        response = await provider.chat(
            messages,
            tools,
            model=model,
            max_tokens=max_tokens,
            temperature=temperature,
            tool_choice=tool_choice,
            reasoning_effort=reasoning_effort,
        )
        await self._report(model or provider.model, response, started)
        return response

    async def chat_stream(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        *,
        on_delta: StreamCallback | None = None,
        model: str | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        tool_choice: str | dict[str, Any] | None = None,
        reasoning_effort: str | None = None,
    ) -> LLMResponse:
        """One streaming call on the current provider."""
        provider = self._current
        started = await self._before(model or provider.model)
        response = await provider.chat_stream(
            messages,
            tools,
            on_delta=on_delta,
            model=model,
            max_tokens=max_tokens,
            temperature=temperature,
            tool_choice=tool_choice,
            reasoning_effort=reasoning_effort,
        )
        await self._report(model or provider.model, response, started)
        return response
