"""What :func:`desktop.core.assembly.build_runtime` returns: the running parts, typed.

:class:`Runtime` holds every part of a built runtime (passed in at construction, nothing set
afterwards) and starts, stops and re-points them (:meth:`Runtime.use_model`);
:class:`MemoryParts` groups long-term memory (files, git history, Dream, the Consolidator).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from desktop.core.agent.approval import ApprovalGate
from desktop.core.agent.idle_compaction import IdleCompactor
from desktop.core.agent.loop import AgentLoop
from desktop.core.agent.subagents import SubagentManager
from desktop.core.agent.turn_parts import CommandHandler
from desktop.core.agent.work import SessionWork
from desktop.core.bus.queue import MessageBus
from desktop.core.channels.manager import ChannelManager
from desktop.core.config.schema import Config
from desktop.core.cron.delivery import JobRunner
from desktop.core.cron.service import CronService
from desktop.core.cron.system_jobs import sync_system_jobs
from desktop.core.heartbeat.service import HeartbeatService
from desktop.core.ipc.server import AgentSocketServer
from desktop.core.memory.commands import NAMES as MEMORY_COMMANDS
from desktop.core.memory.commands import handle_memory_command
from desktop.core.memory.consolidator import Consolidator
from desktop.core.memory.dream import Dream
from desktop.core.memory.git_store import GitStore
from desktop.core.memory.store import MemoryStore
from desktop.core.providers.base import LLMProvider
from desktop.core.providers.chat_models import ChatModels
from desktop.core.providers.reconfigure import absorb
from desktop.core.providers.switchable import SwitchableProvider
from desktop.core.session.manager import SessionManager
from desktop.core.tools.mcp import MCPManager
from desktop.core.tools.registry import ToolRegistry
from desktop.core.triggers.queue import TriggerQueue
from desktop.core.usage.governor import SpendGovernor
from desktop.core.usage.ledger import UsageLedger
from desktop.core.utils.tasks import TaskOwner

if TYPE_CHECKING:
    from desktop.core.config.secrets import SecretStore
    from desktop.core.providers.factory import BuiltProvider
    from desktop.core.providers.matching import ProviderChoice

log = logging.getLogger(__name__)


def never() -> bool:
    """A switch that is always off (the default of the optional ``review`` switch)."""
    return False


@dataclass(frozen=True)
class MemoryParts:
    """Long-term memory: the files, their git history and Dream.

    Attributes:
        store: ``memory/`` files and ``history.jsonl``.
        git: The memory repository (created or repaired on first use, in a thread).
        consolidator: Archives old turns of oversized sessions.
        config: For Dream's limits.
        provider: Dream's model.
        review: Whether Dream runs in review mode now (``desktop.json``'s ``reviewDream``):
            it stores a proposal instead of changing the files.
    """

    store: MemoryStore
    git: GitStore
    consolidator: Consolidator
    config: Config
    provider: LLMProvider
    review: Callable[[], bool] = never

    def dream(self) -> Dream:
        """A Dream run configured from the settings (one object per run)."""
        defaults = self.config.agents.defaults
        settings = defaults.dream
        return Dream(
            self.provider,
            MemoryStore(self.config.workspace_path),
            self.git,
            self.config.workspace_path,
            max_batch_size=settings.max_batch_size,
            max_iterations=settings.max_iterations,
            token_budget=settings.token_budget,
            context_window=defaults.context_window_tokens,
            max_tokens=defaults.max_tokens,
            review=self.review(),
        )

    def command_handler(self) -> CommandHandler:
        """``/dream``, ``/dream-log``, ``/dream-restore``, ``/dream-prompt`` (the repo is readied on
        first use)."""
        ready = False

        async def handle(name: str, argument: str) -> str | None:
            nonlocal ready
            if name.lstrip("/") not in MEMORY_COMMANDS:
                return None
            if not ready:
                await asyncio.to_thread(self.git.ensure_repo)
                ready = True
            return await handle_memory_command(
                name, argument, dream_factory=self.dream, git=self.git
            )

        return handle


@dataclass(frozen=True)
class Runtime:
    """Everything that runs in the background, built once and passed around typed.

    Attributes:
        config: The config it was built from.
        bus: Inbound/outbound messages and run events.
        provider: The model backend every part calls; :meth:`use_model` switches what is
            behind it without stopping anything.
        sessions: Conversations on disk.
        tools: The main agent's tools.
        work: What runs per session (the source of truth for "busy").
        agent: The agent loop.
        subagents: Background subagents.
        mcp: MCP servers (possibly none configured).
        approval: The approval gate, or ``None`` (nothing is asked: nanobot's behaviour).
        memory: Memory files, repo, Dream, Consolidator.
        heartbeat: The heartbeat.
        cron: The scheduler.
        channels: Delivers outbound messages to the window and the chat networks.
        owner: Owns every background task (closed by :meth:`stop`).
        reminders: Runs jobs and delivers reminders (:meth:`JobRunner.deliver_kept` shows the
            ones kept while no front end was there).
        ledger: The usage ledger every answered model call is appended to.
        governor: Checks budgets and runaway runs before each model call.
        ipc: The local socket the CLI hands its messages to (app and gateway only).
        applied: The settings the runtime runs with (see
            :mod:`desktop.core.providers.reconfigure`: what a later change needs).
        detach: Removes the runtime's listeners from the provider (called by :meth:`stop`).
        chat_models: The providers of chats with a model of their own (the agent loop runs
            their turns on them); ``None`` when built without.
        idle: Compacts chats left idle (``idleCompactAfterMinutes``); started by
            :meth:`start` (app and gateway), never by a one-shot ``agent -m``.
        triggers: Delivers queued trigger messages (``nanobot-desktop trigger``); started by
            :meth:`start` with the scheduler (app and gateway); a one-shot ``trigger`` drains
            it itself.
    """

    config: Config
    bus: MessageBus
    provider: SwitchableProvider
    sessions: SessionManager
    tools: ToolRegistry
    work: SessionWork
    agent: AgentLoop
    subagents: SubagentManager
    mcp: MCPManager
    approval: ApprovalGate | None
    memory: MemoryParts
    heartbeat: HeartbeatService
    cron: CronService
    channels: ChannelManager
    owner: TaskOwner
    reminders: JobRunner
    ledger: UsageLedger
    governor: SpendGovernor
    ipc: AgentSocketServer | None = None
    applied: dict[tuple[str, ...], Any] = field(default_factory=dict)
    detach: tuple[Callable[[], None], ...] = ()
    chat_models: ChatModels | None = None
    idle: IdleCompactor | None = None
    triggers: TriggerQueue | None = None

    async def use_model(
        self,
        model: str | None = None,
        secrets: SecretStore | None = None,
        *,
        provider: str | None = None,
    ) -> BuiltProvider:
        """Build a provider for ``model`` off the loop and switch every later call to it.

        Running turns keep going (on the provider they started with). On success the live
        config's model (and forced provider) are set and the context window is asked from
        the new server; saving the config is the caller's business. ``model=None`` rebuilds
        the configured one (a new key, endpoint or temperature).

        Raises:
            desktop.core.providers.factory.MissingKeyError: No key for that provider.
            desktop.core.providers.matching.ProviderNotFound: No provider fits the model.
        """
        from desktop.core.config.secrets import SecretStore
        from desktop.core.providers.factory import abuild_provider

        config = self.config
        trial = config
        if provider is not None and provider != config.agents.defaults.provider:
            trial = config.model_copy(deep=True)
            trial._origin = config._origin
            trial.agents.defaults.provider = provider
        built = await abuild_provider(trial, secrets or SecretStore(), model=model)
        self.provider.switch(built.provider)
        if self.chat_models is not None:  # keys or endpoints may have changed too
            self.chat_models.forget()
        if self.agent.presets is not None:  # keys, endpoints or presets may have changed too
            self.agent.presets.forget()
        defaults = config.agents.defaults
        if model:
            defaults.model = model
            defaults.model_preset = None  # a model chosen by name replaces the active preset
        if provider is not None:
            defaults.provider = provider
        absorb(self.applied, config)
        await self.refresh_context_window(built.choice, built.key.value)
        return built

    async def refresh_context_window(
        self,
        choice: ProviderChoice | None = None,
        api_key: str | None = None,
        *,
        table_when_loaded: bool = False,
    ) -> int:
        """Ask the server (then LiteLLM's model table) for the model's real context window and
        use it where the person did not set one; returns the window in force.

        ``table_when_loaded``: consult LiteLLM's table only once a model call has imported
        LiteLLM (start-up: importing it for the table alone kept ≈200 MB resident in an app
        that may wait for hours; until the first call, the window only matters to that call,
        which loads LiteLLM anyway).
        """
        from desktop.core.providers.context_window import (
            ContextWindow,
            apply_context_window,
            litellm_window,
            probe_context_window,
        )
        from desktop.core.providers.litellm_provider import litellm_loaded

        choice = choice or self.provider.choice
        found: ContextWindow | None = None
        if choice is not None:
            try:
                found = await probe_context_window(choice, api_key, use_litellm=False)
                if found is None:
                    if table_when_loaded:
                        await litellm_loaded()
                        if self.provider.choice is not choice:  # switched meanwhile:
                            # the switch asked for its own model's window
                            return self.config.agents.defaults.context_window_tokens
                    tokens = await asyncio.to_thread(litellm_window, choice.model)
                    found = ContextWindow(tokens, "LiteLLM model info") if tokens else None
            except asyncio.CancelledError:
                raise
            except Exception:  # a probe must never break the runtime
                log.exception("probing the context window failed")
        defaults = self.config.agents.defaults
        window = apply_context_window(self.config, found.tokens if found else None)
        self.memory.consolidator.set_limits(context_window=window, max_tokens=defaults.max_tokens)
        self.subagents.set_limits(context_window=window, max_tokens=defaults.max_tokens)
        if found is not None and choice is not None:
            log.info("context window of %s: %d tokens (%s)", choice.model, window, found.source)
        return window

    async def start(self, *, networks: bool = True, scheduler: bool = True) -> None:
        """Start the channels, the loop, the socket the CLI talks to (when built) and the
        scheduler.

        Args:
            networks: Connect the chat channels enabled in the config (a terminal command
                delivers to the terminal only).
            scheduler: Register the system jobs and run the scheduler (``cron run`` runs one
                job itself; ``agent`` runs none).
        """
        if scheduler:
            await asyncio.to_thread(sync_system_jobs, self.cron, self.config)
        await self.channels.start(networks=networks)
        self.agent.start()
        if self.ipc is not None and await self.ipc.start():
            self.channels.register(self.ipc)
        if scheduler:  # the app and the gateway: jobs, and idle chats compacted
            await self.cron.start()
            if self.idle is not None:
                self.idle.start(self.bus)
            if self.triggers is not None:
                self.triggers.start()
            if self.cron.warning:
                log.warning(self.cron.warning)

    async def stop(self) -> None:
        """Stop the scheduler and the channels, cancel turns, subagents and background work,
        close MCP."""
        await self.cron.stop()
        if self.idle is not None:
            await self.idle.aclose()
        if self.ipc is not None:
            await self.ipc.stop()
        await self.channels.stop()
        await self.owner.aclose()
        for remove in self.detach:
            remove()
        try:
            await self.mcp.aclose()
        except Exception:
            log.exception("closing the MCP servers failed")
        await self.provider.aclose()  # kept HTTP connections (nothing calls any more)
