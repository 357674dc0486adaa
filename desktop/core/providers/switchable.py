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
duration; the spend ledger (:mod:`desktop.core.usage.ledger`) hooks in there. They also get
the calls that ended without an answer -- ``stopped`` (cancelled: ``/stop``, a cancelled
background run, shutdown) or ``failed`` (after the provider's retries) -- with what those
cost as far as it is known (:mod:`desktop.core.providers.meter`; ``estimated`` when it is
not the server's own count). Call guards (:meth:`add_call_guard`) run *before* each call and
may refuse it (the budget governor); a refused call was never made and is not reported.

A chat on a model preset of its own (:mod:`desktop.core.providers.chat_presets`) runs its turn
inside :meth:`SwitchableProvider.pinned`: its calls (and those of tasks the turn starts) go to
the provider the pin resolves, still guarded, metered and reported here. Pins nest: one that
resolves nothing leaves the call to the pin around it, else to the current provider.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import dataclasses
import functools
import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

from desktop.core.providers.base import (
    LLMError,
    LLMProvider,
    LLMResponse,
    StreamCallback,
    Usage,
)
from desktop.core.providers.fallback import FallbackChain, StreamWatch, should_fall_back
from desktop.core.providers.meter import CallMeter, metering, spent

log = logging.getLogger(__name__)

UsageListener = Callable[[str, str, Usage], None]
"""Called with ``(source, model, usage)`` after every answered model call."""


@dataclass(frozen=True)
class UsageTag:
    """Who a model call is made for (set with :func:`usage_scope`, read by the ledger).

    Attributes:
        source: ``chat``, ``api``, ``subagent``, ``consolidation``, ``dream``, ``heartbeat``,
            ``cron``, ``title`` (``agent`` when nobody tagged the call).
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


CallOutcome = Literal["ok", "stopped", "failed"]


class CallSettings(TypedDict):
    """The per-call settings a fallback model may replace."""

    model: str | None
    max_tokens: int | None
    temperature: float | None
    reasoning_effort: str | None


@dataclass(frozen=True)
class ModelCall:
    """One model call, as call listeners see it.

    Attributes:
        tag: Who it was made for.
        model: The model asked.
        usage: Its tokens (and price, when known).
        started: ``time.time()`` when the call began.
        duration_s: Wall time of the call.
        outcome: ``ok`` (answered), ``stopped`` (cancelled) or ``failed``.
        estimated: ``usage`` is an estimate (the server never reported it).
    """

    tag: UsageTag
    model: str
    usage: Usage
    started: float
    duration_s: float
    outcome: CallOutcome = "ok"
    estimated: bool = False


TURN_SOURCES: dict[str, str] = {
    "message": "chat",
    "cron": "cron",
    "heartbeat": "heartbeat",
    "subagent": "subagent",
    "api": "api",
}
"""The ledger source of a turn, by what started it (a subagent's report counts as its spend)."""

CallListener = Callable[[ModelCall], Awaitable[None] | None]
"""Called with each :class:`ModelCall`, answered or not (awaited when it returns an awaitable)."""

CallGuard = Callable[[UsageTag, str], Awaitable[None]]
"""Awaited with ``(tag, model)`` before each call; raising refuses the call."""

PinResolver = Callable[[], Awaitable[LLMProvider | None]]
"""Awaited before each call made under a pin: the provider to use (``None``: the pin around
it, else the current one). It may raise :class:`~desktop.core.providers.base.LLMError` (the
call then fails as any call)."""

_UNTAGGED = UsageTag()  # frozen: safe to share as the default
_TAG: contextvars.ContextVar[UsageTag] = contextvars.ContextVar("usage_tag", default=_UNTAGGED)


@dataclass(frozen=True)
class _Pin:
    owner: SwitchableProvider
    resolve: PinResolver
    outer: _Pin | None


_PIN: contextvars.ContextVar[_Pin | None] = contextvars.ContextVar("provider_pin", default=None)


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

    A call the current provider fails in a way another model may not goes on to the configured
    fallback models in turn (:mod:`desktop.core.providers.fallback`); each attempt is a model
    call of its own for the guards and listeners.

    Args:
        provider: The provider to start with.
        fallbacks: The fallback models (``None``: a failed call stays failed).
    """

    def __init__(self, provider: LLMProvider, *, fallbacks: FallbackChain | None = None) -> None:
        self._current = provider
        self._owned: list[LLMProvider] = []  # providers keeping connections: closed by aclose
        self._own(provider)
        self.fallbacks = fallbacks
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
        self._own(provider)
        log.info("model switched: %s → %s", previous.model, provider.model)
        return previous

    def _own(self, provider: LLMProvider) -> None:
        """Have ``provider`` keep its connections, which :meth:`aclose` closes (an object that
        only looks like a provider, without those methods, keeps nothing)."""
        keep = getattr(provider, "keep_connections", None)
        if keep is not None and all(owned is not provider for owned in self._owned):
            keep()
            self._owned.append(provider)

    async def aclose(self) -> None:
        """Close the connections of every provider this one has sent calls to (the current
        one and those switched away from: their running calls may have used them)."""
        owned, self._owned = self._owned, []
        for provider in owned:
            try:
                await provider.aclose()
            except Exception:
                log.exception("closing %r failed", provider)

    @contextlib.contextmanager
    def pinned(self, resolve: PinResolver) -> Iterator[None]:
        """Inside the block (this task and the tasks it starts) calls go to the provider
        ``resolve()`` returns, asked before each call (``None``: as without this pin)."""
        token = _PIN.set(_Pin(self, resolve, _PIN.get()))
        try:
            yield
        finally:
            _PIN.reset(token)

    async def _target(self) -> LLMProvider:
        """The provider the next call here goes to (the innermost pin's choice, else the
        current one)."""
        pin = _PIN.get()
        while pin is not None:
            if pin.owner is self:
                chosen = await pin.resolve()
                if chosen is not None:
                    return chosen
            pin = pin.outer
        return self._current

    def add_usage_listener(self, listener: UsageListener) -> Callable[[], None]:
        """Call ``listener(source, model, usage)`` after each answered call; returns a remover."""
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return remove

    def add_call_listener(self, listener: CallListener) -> Callable[[], None]:
        """Call ``listener(call)`` after each call, answered, stopped or failed; returns a
        remover."""
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
        await self._tell(call)

    async def _tell(self, call: ModelCall) -> None:
        for call_listener in list(self._call_listeners):
            try:
                result = call_listener(call)
                if result is not None:
                    await result
            except Exception:  # accounting must never break a turn
                log.exception("call listener failed")

    async def _metered(
        self,
        provider: LLMProvider,
        model: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        call: Callable[[], Awaitable[LLMResponse]],
    ) -> LLMResponse:
        """Guard, make and report one call; a call that ends without an answer is reported
        too (``stopped`` or ``failed``) before its exception goes on, and so are the attempts
        of an answered call that were cut off and retried (``failed``, beside the answer)."""
        started = await self._before(model)
        with metering() as meter:
            try:
                response = await call()
            except (asyncio.CancelledError, Exception) as exc:
                cancelled = isinstance(exc, asyncio.CancelledError)
                report = self._unanswered(
                    provider, model, messages, tools, meter, started, cancelled
                )
                try:
                    # Shielded: a second cancel (shutdown while stopping) must not lose it.
                    await asyncio.shield(report)
                except asyncio.CancelledError:
                    if not cancelled:
                        raise  # a cancel during a failure's report goes on, never lost
                except Exception:
                    log.exception("reporting an unanswered call failed")
                raise
        await self._report(model, response, started)
        if len(meter.attempts) > 1:  # the server took earlier attempts, then they broke off
            retried = CallMeter(meter.attempts[:-1])
            try:
                await self._unanswered(provider, model, messages, tools, retried, started, False)
            except Exception:
                log.exception("reporting the retried attempts of a call failed")
        return response

    async def _unanswered(
        self,
        provider: LLMProvider,
        model: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        meter: CallMeter,
        started: float,
        cancelled: bool,
    ) -> None:
        if not self._call_listeners:
            return
        tag = _TAG.get()
        price = functools.partial(provider.price, model)
        usage, estimated = await asyncio.to_thread(spent, meter, messages, tools, price)
        outcome: CallOutcome = "stopped" if cancelled else "failed"
        duration = max(0.0, time.time() - started)
        await self._tell(ModelCall(tag, model, usage, started, duration, outcome, estimated))

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
        """One non-streaming call on the current (or pinned) provider, then the fallbacks."""
        provider = await self._target()

        def call(
            target: LLMProvider, settings: CallSettings, _watch: StreamWatch
        ) -> Awaitable[LLMResponse]:
            return target.chat(messages, tools, tool_choice=tool_choice, **settings)

        settings: CallSettings = {
            "model": model,
            "max_tokens": max_tokens,
            "temperature": temperature,
            "reasoning_effort": reasoning_effort,
        }
        return await self._answer(provider, messages, tools, settings, call, StreamWatch(None))

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
        """One streaming call on the current (or pinned) provider, then the fallbacks."""
        provider = await self._target()

        def call(
            target: LLMProvider, settings: CallSettings, watch: StreamWatch
        ) -> Awaitable[LLMResponse]:
            return target.chat_stream(
                messages, tools, on_delta=watch.forward, tool_choice=tool_choice, **settings
            )

        settings: CallSettings = {
            "model": model,
            "max_tokens": max_tokens,
            "temperature": temperature,
            "reasoning_effort": reasoning_effort,
        }
        watch = StreamWatch(on_delta)
        return await self._answer(provider, messages, tools, settings, call, watch)

    async def _answer(
        self,
        provider: LLMProvider,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        settings: CallSettings,
        call: Callable[[LLMProvider, CallSettings, StreamWatch], Awaitable[LLMResponse]],
        watch: StreamWatch,
    ) -> LLMResponse:
        """Make the call on ``provider``; on an error another model may not share, on each
        fallback model in turn (each one guarded, metered and reported as its own call)."""
        model = settings["model"] or provider.model
        try:
            return await self._metered(
                provider, model, messages, tools, lambda: call(provider, settings, watch)
            )
        except LLMError as exc:
            chain = self.fallbacks
            if chain is None or not should_fall_back(exc):
                raise
            failure, failed = exc, model
        for target in chain.targets():
            if target.model == failed:
                continue
            try:
                backup = await chain.provider(target)
            except LLMError as exc:
                log.warning("fallback model %s cannot be used: %s", target.label, exc.message)
                continue
            log.warning(
                "%s failed (%s); trying the fallback model %s",
                failed,
                failure.message,
                target.label,
            )
            await watch.switching(failed, target, failure)
            changed: CallSettings = {
                "model": None,
                "max_tokens": settings["max_tokens"] or target.max_tokens,
                "temperature": target.temperature,
                "reasoning_effort": target.reasoning_effort,
            }
            try:
                return await self._metered(
                    backup,
                    backup.model,
                    messages,
                    tools,
                    functools.partial(call, backup, changed, watch),
                )
            except LLMError as exc:
                if not should_fall_back(exc):
                    raise
                failure, failed = exc, backup.model
        raise failure
