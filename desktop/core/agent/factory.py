"""Assemble an agent from a config: sessions, context, tools, subagents, loop."""

from __future__ import annotations

from desktop.core.agent.context import ContextBuilder
from desktop.core.agent.loop import AgentLoop
from desktop.core.agent.subagents import SubagentManager
from desktop.core.bus.queue import MessageBus
from desktop.core.config.schema import Config
from desktop.core.providers.base import LLMProvider
from desktop.core.session.manager import SessionManager
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


def build_agent(config: Config, provider: LLMProvider, *, bus: MessageBus | None = None) -> AgentLoop:
    """A ready :class:`AgentLoop` for ``config`` (not yet consuming the bus)."""
    defaults = config.agents.defaults
    workspace = config.workspace_path
    bus = bus or MessageBus()
    sessions = SessionManager(workspace, max_tool_result_chars=defaults.max_tool_result_chars)
    context = ContextBuilder(workspace, timezone=defaults.effective_timezone)
    tools = worker_tools(config)
    loop = AgentLoop(config, provider, bus, sessions, tools, context)
    subagents = SubagentManager(
        provider, bus, lambda: worker_tools(config), max_concurrent=defaults.max_concurrent_subagents,
        context_window=defaults.context_window_tokens, max_tokens=defaults.max_tokens,
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
    return loop
