"""A provider that can be replaced while the runtime runs, and the one place model calls pass.

The runtime is built once with a :class:`SwitchableProvider`; every part that calls a model
(the agent loop, subagents, the Consolidator, Dream, the heartbeat) holds this object, so
switching the model from the chat header is one atomic assignment: calls already running
finish on the provider they started with, every later call uses the new one. Nothing is
cancelled.

Every call also passes :meth:`SwitchableProvider._report`: listeners get
``(source, model, usage)`` for each answered call, where ``source`` comes from
:func:`usage_source` (``"agent"`` unless a caller tagged its calls, e.g. ``"title"`` for
automatic chat titles). A spend ledger hooks in there with :meth:`add_usage_listener`.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
from collections.abc import Callable, Iterator
from typing import Any

from desktop.core.providers.base import LLMProvider, LLMResponse, StreamCallback, Usage

log = logging.getLogger(__name__)

UsageListener = Callable[[str, str, Usage], None]
"""Called with ``(source, model, usage)`` after every answered model call."""

_SOURCE: contextvars.ContextVar[str] = contextvars.ContextVar("usage_source", default="agent")


@contextlib.contextmanager
def usage_source(source: str) -> Iterator[None]:
    """Tag the model calls made inside the block (in this task) with ``source``."""
    token = _SOURCE.set(source)
    try:
        yield
    finally:
        _SOURCE.reset(token)


def current_source() -> str:
    """The tag of calls made here (``"agent"`` by default)."""
    return _SOURCE.get()


class SwitchableProvider(LLMProvider):
    """Delegates every call to the current provider; :meth:`switch` replaces it.

    Args:
        provider: The provider to start with.
    """

    def __init__(self, provider: LLMProvider) -> None:
        self._current = provider
        self._listeners: list[UsageListener] = []

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

    def _report(self, model: str, response: LLMResponse) -> None:
        source = current_source()
        for listener in list(self._listeners):
            try:
                listener(source, model, response.usage)
            except Exception:  # accounting must never break a turn
                log.exception("usage listener failed")

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
        response = await provider.chat(
            messages,
            tools,
            model=model,
            max_tokens=max_tokens,
            temperature=temperature,
            tool_choice=tool_choice,
            reasoning_effort=reasoning_effort,
        )
        self._report(model or provider.model, response)
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
        self._report(model or provider.model, response)
        return response
