"""Assemble an agent from a config: sessions, memory, context, tools, subagents, loop."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from desktop.core.agent.context import ContextBuilder
from desktop.core.agent.loop import AgentLoop
from desktop.core.agent.skills import SkillsLoader
from desktop.core.agent.subagents import SubagentManager
from desktop.core.bus.queue import MessageBus
from desktop.core.config.schema import Config
from desktop.core.cron.setup import attach_scheduler
from desktop.core.memory.commands import NAMES as MEMORY_COMMANDS
from desktop.core.memory.commands import handle_memory_command
from desktop.core.memory.consolidator import Consolidator, RequestBuilder
from desktop.core.memory.dream import Dream
from desktop.core.memory.git_store import GitStore
from desktop.core.memory.store import MemoryStore
from desktop.core.memory.templates import sync_workspace_templates
from desktop.core.providers.base import LLMProvider
from desktop.core.session.manager import Session, SessionManager
from desktop.core.tools.filesystem import filesystem_tools
from desktop.core.tools.mcp import MCPManager
from desktop.core.tools.messaging import MessageTool, SpawnTool
from desktop.core.tools.registry import ToolRegistry
from desktop.core.tools.shell import exec_tools
from desktop.core.tools.web import web_tools


def worker_tools(config: Config) -> ToolRegistry:
    """File, search, shell and web tools: what subagents get (and the base of the main set)."""
    registry = ToolRegistry()
    for tool in [*filesystem_tools(), *exec_tools(config.tools.exec), *web_tools(config.tools.web)]:
        registry.register(tool)
    return registry


def request_builder(context: ContextBuilder, tools: ToolRegistry) -> RequestBuilder:
    """What the Consolidator measures: the next request of a session (history, tools, no new text)."""

    def build(session: Session) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        channel, _, chat_id = session.key.partition(":")
        messages = context.build_messages(
            session.get_history(), "", channel=channel, chat_id=chat_id
        )
        return messages, tools.definitions()

    return build


def memory_commands(
    config: Config, provider: LLMProvider
) -> Callable[[str, str], Awaitable[str | None]]:
    """``/dream``, ``/dream-log``, ``/dream-restore`` for ``AgentLoop.extra_commands``.

    The memory repository is created or repaired (:meth:`GitStore.ensure_repo`) in a worker
    thread on the first memory command, not at build time.
    """
    defaults = config.agents.defaults
    workspace = config.workspace_path
    git = GitStore(workspace)
    ready = False

    def dream() -> Dream:
        settings = defaults.dream
        return Dream(
            provider,
            MemoryStore(workspace),
            git,
            workspace,
            max_batch_size=settings.max_batch_size,
            max_iterations=settings.max_iterations,
            token_budget=settings.token_budget,
            context_window=defaults.context_window_tokens,
            max_tokens=defaults.max_tokens,
        )

    async def handle(name: str, argument: str) -> str | None:
        nonlocal ready
        if name.lstrip("/") not in MEMORY_COMMANDS:
            return None
        if not ready:
            await asyncio.to_thread(git.ensure_repo)
            ready = True
        return await handle_memory_command(name, argument, dream_factory=dream, git=git)

    return handle


def build_agent(
    config: Config, provider: LLMProvider, *, bus: MessageBus | None = None
) -> AgentLoop:
    """A ready :class:`AgentLoop` for ``config`` (not yet consuming the bus)."""
    defaults = config.agents.defaults
    workspace = config.workspace_path
    bus = bus or MessageBus()
    sessions = SessionManager(workspace, max_tool_result_chars=defaults.max_tool_result_chars)
    context = ContextBuilder(
        workspace,
        timezone=defaults.effective_timezone,
        skills_section=SkillsLoader(workspace).sections,
    )
    tools = worker_tools(config)
    loop = AgentLoop(config, provider, bus, sessions, tools, context)
    sync_workspace_templates(workspace)
    consolidator = Consolidator(
        provider,
        MemoryStore(workspace),
        sessions,
        context_window=defaults.context_window_tokens,
        max_tokens=defaults.max_tokens,
        build_request=request_builder(context, tools),
    )
    loop.consolidate = consolidator.maybe_consolidate
    loop.on_new_session = consolidator.archive_all
    loop.extra_commands = memory_commands(config, provider)
    subagents = SubagentManager(
        provider,
        bus,
        lambda: worker_tools(config),
        max_concurrent=defaults.max_concurrent_subagents,
        context_window=defaults.context_window_tokens,
        max_tokens=defaults.max_tokens,
        on_started=loop.track_child,
    )
    tools.register(MessageTool(bus, on_sent=loop.mark_message_sent))
    tools.register(SpawnTool(subagents.spawn))
    loop.subagents = subagents
    if config.tools.mcp_servers:
        mcp = MCPManager(dict(config.tools.mcp_servers), registry=tools)
        loop.before_turn = mcp.ensure_connected
        loop.closers.append(mcp.aclose)
        loop.mcp = mcp
    attach_scheduler(loop, config, provider)
    return loop
