"""Fallback models: the next model answers when a call fails in a way another model may not.

nanobot 0.3.5's rule, kept here: after a model's own retries are spent, a server error, a rate
limit, a quota or billing stop, a timeout, a lost connection or a refused key moves the call to
the next entry of ``agents.defaults.fallbackModels``; a request the provider calls wrong (400,
404, a context too long), a budget refusal and a cancel do not -- another model would fail the
same way, or the person asked to stop. Each attempt is its own model call (guarded by the
budget governor and in the usage ledger with the model that made it); the chat is told which
model took over (:class:`~desktop.core.providers.base.StreamDelta` ``fallback``), and text
the failed model had already streamed is withdrawn (``reset``) first.

The chain is read from the live config on each use, and each fallback's provider is built when
it is needed (its key read from the keyring then), so a changed list or key applies at once.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from desktop.core.providers.base import LLMError, LLMProvider, StreamCallback, StreamDelta
from desktop.core.providers.factory import build_target
from desktop.core.providers.presets import ModelTarget, fallback_targets
from desktop.core.providers.retry import clause
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase

if TYPE_CHECKING:
    from desktop.core.config.schema import Config
    from desktop.core.config.secrets import SecretStore

log = logging.getLogger(__name__)

FALLBACK_KINDS = frozenset({"server", "rate_limit", "quota", "timeout", "connection", "auth"})
"""Error kinds another model may not share (after the failing model's own retries)."""


def should_fall_back(error: LLMError) -> bool:
    """Whether ``error`` moves the call on to the next fallback model."""
    return error.kind in FALLBACK_KINDS


class FallbackChain:
    """The configured fallback models and how to reach them.

    Args:
        config: The live config (``agents.defaults.fallbackModels``, ``modelPresets``).
        secrets: Where keys are found (``None``: the system keyring).
        build: Builds a target's provider (default: :func:`build_target`, for tests).
    """

    def __init__(
        self,
        config: Config,
        secrets: SecretStore | None = None,
        *,
        build: Callable[[ModelTarget], Awaitable[LLMProvider]] | None = None,
    ) -> None:
        self.config = config
        self.secrets = secrets
        self._build = build

    def targets(self) -> list[ModelTarget]:
        """The fallback models, in order (empty: none configured)."""
        return fallback_targets(self.config)

    async def provider(self, target: ModelTarget) -> LLMProvider:
        """``target``'s provider.

        Raises:
            LLMError: It cannot be built (no key, no provider fits).
        """
        if self._build is not None:
            return await self._build(target)
        return await build_target(self.config, self.secrets, target)


class StreamWatch:
    """Forwards a call's stream deltas and notes whether any text was shown (so a fallback
    knows to withdraw it first)."""

    def __init__(self, on_delta: StreamCallback | None) -> None:
        self.on_delta = on_delta
        self.shown = False

    async def forward(self, delta: StreamDelta) -> None:
        """The ``on_delta`` handed to the provider."""
        if delta.kind in ("text", "reasoning"):
            self.shown = True
        elif delta.kind == "reset":
            self.shown = False
        await self.emit(delta)

    async def emit(self, delta: StreamDelta) -> None:
        """Pass ``delta`` on to the caller's callback (awaited when it returns an awaitable)."""
        if self.on_delta is None:
            return
        result = self.on_delta(delta)
        if result is not None:
            await result

    async def switching(self, failed: str, target: ModelTarget, error: LLMError) -> None:
        """Tell the chat that ``target`` answers instead of ``failed`` (withdrawing what the
        failed model had shown)."""
        if self.shown:
            await self.emit(StreamDelta("reset"))
            self.shown = False
        notice = Phrase(
            QT_TR_NOOP("{failed} did not answer ({reason}); {target} answers instead."),
            failed=failed,
            reason=clause(error.message),
            target=target.label,
        )
        await self.emit(
            StreamDelta(
                "fallback",
                notice,
                model=target.model,
                previous_model=failed,
            )
        )
