"""Providers for chats that use a model of their own (not the default).

A chat's model lives in its session metadata (:mod:`desktop.core.providers.chat_model`). The
agent loop runs each turn inside :meth:`ChatModels.pin`: before every model call of the turn
the chat's model is looked up and its provider built (once, then cached; LiteLLM objects are
cheap, the keyring lookup is not) — so the person's message is saved before anything can fail,
and a model that cannot be used (no key any more, a provider that went away) fails the call
like any provider error: the turn waits for a Retry, the chat shows why.

Chats without a model of their own, or whose model is the default, use the runtime's current
provider as before. :meth:`ChatModels.forget` drops the cache when keys or endpoints change.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

from desktop.core.providers.base import ErrorKind, LLMError, LLMProvider, said
from desktop.core.providers.chat_model import AUTO, ModelChoice, chat_model
from desktop.core.providers.switchable import SwitchableProvider
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase

if TYPE_CHECKING:
    from desktop.core.config.schema import Config
    from desktop.core.config.secrets import SecretStore
    from desktop.core.providers.factory import BuiltProvider
    from desktop.core.session.manager import SessionManager


class ChatModels:
    """Builds, caches and pins the providers of chats with a model of their own.

    Args:
        config: The live config (its defaults say which model is the default).
        provider: The runtime's switchable provider (calls stay metered and guarded there).
        sessions: Where chats keep their model.
        secrets: The key store (``None``: the system keyring).
    """

    def __init__(
        self,
        config: Config,
        provider: SwitchableProvider,
        sessions: SessionManager,
        secrets: SecretStore | None = None,
    ) -> None:
        self.config = config
        self.provider = provider
        self.sessions = sessions
        self.secrets = secrets
        self._built: dict[ModelChoice, LLMProvider] = {}
        self._lock = asyncio.Lock()

    def is_default(self, choice: ModelChoice) -> bool:
        """Whether ``choice`` is the configured default model."""
        defaults = self.config.agents.defaults
        return (choice.model, choice.provider or AUTO) == (
            defaults.model,
            defaults.provider or AUTO,
        )

    async def build(self, choice: ModelChoice) -> BuiltProvider:
        """Build a provider for ``choice`` now (and keep it for the chats that use it).

        Raises:
            desktop.core.providers.factory.MissingKeyError: No key for its provider.
            desktop.core.providers.matching.ProviderNotFound: No provider fits the model.
        """
        from desktop.core.config.secrets import SecretStore
        from desktop.core.providers.factory import abuild_provider

        trial = self.config.model_copy(deep=True)
        trial._origin = self.config._origin
        trial.agents.defaults.provider = choice.provider or AUTO
        built = await abuild_provider(trial, self.secrets or SecretStore(), model=choice.model)
        self._built[choice] = built.provider
        return built

    async def provider_for(self, choice: ModelChoice | None) -> LLMProvider | None:
        """The provider of a chat's model (``None``: the chat uses the default one).

        Raises:
            LLMError: The model cannot be used (``auth`` for a missing key, ``not_found``
                for a provider that fits no more); the text says how to fix it.
        """
        if choice is None or self.is_default(choice):
            return None
        async with self._lock:  # one build per model, however many calls ask at once
            cached = self._built.get(choice)
            if cached is not None:
                return cached
            try:
                return (await self.build(choice)).provider
            except LookupError as exc:
                from desktop.core.providers.factory import MissingKeyError

                kind: ErrorKind = "auth" if isinstance(exc, MissingKeyError) else "not_found"
                raise LLMError(
                    Phrase(
                        QT_TR_NOOP(
                            "This chat's model {model} cannot be used: {reason} "
                            "Pick another model in the chat's header."
                        ),
                        model=choice.model,
                        reason=said(exc),
                    ),
                    kind=kind,
                    details=str(exc),
                ) from exc

    @contextlib.contextmanager
    def pin(self, key: str) -> Iterator[None]:
        """Run the block's model calls on chat ``key``'s model.

        The chat's model is looked up at the block's first call and kept for the rest of it:
        a turn that is running when the person picks another model finishes on the one it
        started with.
        """
        found: list[LLMProvider | None] = []

        async def resolve() -> LLMProvider | None:
            if found:
                return found[0]
            cached = self.sessions.cached_metadata(key)
            if cached is None:
                cached = await asyncio.to_thread(
                    lambda: dict(self.sessions.get_or_create(key).metadata)
                )
            provider = await self.provider_for(chat_model(cached))
            found[:] = [provider]
            return provider

        with self.provider.pinned(resolve):
            yield

    def forget(self) -> None:
        """Drop the built providers (keys, endpoints or the default changed)."""
        self._built.clear()
