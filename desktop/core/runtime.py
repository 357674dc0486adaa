"""Starting and stopping everything that runs in the background: agent, scheduler, heartbeat.

Used by ``nanobot-desktop gateway`` and by the desktop app (which calls :func:`start_runtime`
after its window is up, since building a provider imports litellm).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from desktop.core.agent.factory import build_agent
from desktop.core.bus.queue import MessageBus
from desktop.core.cron.setup import sync_system_jobs

if TYPE_CHECKING:
    from desktop.core.agent.loop import AgentLoop
    from desktop.core.config.schema import Config
    from desktop.core.config.secrets import SecretStore
    from desktop.core.cron.service import CronService
    from desktop.core.heartbeat.service import HeartbeatService
    from desktop.core.providers.base import LLMProvider

log = logging.getLogger(__name__)


@dataclass
class Runtime:
    """A running agent with its scheduler."""

    agent: AgentLoop
    cron: CronService
    heartbeat: HeartbeatService

    @property
    def bus(self) -> MessageBus:
        """The agent's message bus."""
        return self.agent.bus

    async def stop(self) -> None:
        """Stop the scheduler, then cancel running turns and close MCP servers."""
        await self.cron.stop()
        await self.agent.stop()


async def start_runtime(
    config: Config,
    *,
    provider: LLMProvider | None = None,
    bus: MessageBus | None = None,
    secrets: SecretStore | None = None,
) -> Runtime:
    """Build the agent, register the system jobs and start the loop and the scheduler.

    Blocking work (importing litellm for the provider, keyring, syncing templates, reading
    jobs.json) runs in worker threads, so a window on the same event loop stays responsive.

    Raises:
        desktop.core.providers.factory.MissingKeyError: No key for the configured provider.
        desktop.core.providers.factory.ProviderNotFound: No provider fits the model.
    """
    from desktop.core.config.secret_fields import inject_stored_secrets
    from desktop.core.config.secrets import SecretStore

    secrets = secrets or SecretStore()
    # Channel tokens and the web-search key stored in the keyring take effect in memory.
    await inject_stored_secrets(config, secrets)
    if provider is None:
        from desktop.core.providers.factory import abuild_provider

        provider = (await abuild_provider(config, secrets)).provider
    agent = await asyncio.to_thread(build_agent, config, provider, bus=bus or MessageBus())
    cron: CronService = agent.cron
    await asyncio.to_thread(sync_system_jobs, cron, config)
    agent.start()
    await cron.start()
    if cron.warning:
        log.warning(cron.warning)
    return Runtime(agent, cron, agent.heartbeat)
