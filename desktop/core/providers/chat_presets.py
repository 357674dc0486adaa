"""Chats on a model preset of their own.

A chat's session metadata may name one of the config's ``modelPresets`` under
``_nanobot_model_preset`` (nanobot 0.3.5's key and meaning: nanobot answers that chat with the
preset too). The agent loop asks :meth:`ChatPresets.target_for` at the start of a turn and runs
the turn's model calls inside :meth:`ChatPresets.pin`: they go to the preset's provider (built
once, then kept), with its answer length, temperature and reasoning effort, still through the
runtime's switchable provider (guards, ledger, fallback models). A preset that is gone from the
config leaves the chat on the default model.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from desktop.core.providers.base import LLMProvider
from desktop.core.providers.chat_model import CHAT_MODEL
from desktop.core.providers.factory import build_target
from desktop.core.providers.presets import (
    SESSION_PRESET,
    ModelTarget,
    preset_target,
    session_preset,
)
from desktop.core.providers.switchable import SwitchableProvider

if TYPE_CHECKING:
    from desktop.core.config.schema import Config
    from desktop.core.config.secrets import SecretStore
    from desktop.core.session.manager import SessionManager


class ChatPresets:
    """Resolves, builds, caches and pins the presets chats are on.

    Args:
        config: The live config (``modelPresets``).
        provider: The runtime's switchable provider.
        secrets: The key store (``None``: the system keyring).
    """

    def __init__(
        self, config: Config, provider: SwitchableProvider, secrets: SecretStore | None = None
    ) -> None:
        self.config = config
        self.provider = provider
        self.secrets = secrets
        self._built: dict[ModelTarget, LLMProvider] = {}
        self._lock = asyncio.Lock()

    def target_for(self, metadata: Mapping[str, Any]) -> ModelTarget | None:
        """The preset a chat's session metadata names (``None``: the default model)."""
        return preset_target(self.config, session_preset(metadata))

    async def provider_for(self, target: ModelTarget) -> LLMProvider:
        """``target``'s provider (built on first use, then kept).

        Raises:
            LLMError: It cannot be built (no key, no provider fits); the text says which.
        """
        async with self._lock:  # one build per preset, however many calls ask at once
            built = self._built.get(target)
            if built is None:
                built = self._built[target] = await build_target(self.config, self.secrets, target)
            return built

    @contextlib.contextmanager
    def pin(self, target: ModelTarget | None) -> Iterator[None]:
        """Run the block's model calls on ``target`` (nothing changes for ``None``)."""
        if target is None:
            yield
            return

        async def resolve() -> LLMProvider:
            return await self.provider_for(target)

        with self.provider.pinned(resolve):
            yield

    def forget(self) -> None:
        """Drop the built providers (keys, endpoints or presets changed)."""
        self._built.clear()


def set_session_preset(sessions: SessionManager, key: str, name: str | None) -> None:
    """Put chat ``key`` on preset ``name`` (``None``: back to the default model) and save.

    Blocking file I/O: call it in a worker thread, under the session's lock.
    """
    session = sessions.get_or_create(key)
    if name is None:
        if SESSION_PRESET not in session.metadata:
            return
        session.metadata.pop(SESSION_PRESET)
    else:
        session.metadata[SESSION_PRESET] = name
        session.metadata.pop(CHAT_MODEL, None)  # a preset replaces a model of the chat's own
    sessions.save(session)
