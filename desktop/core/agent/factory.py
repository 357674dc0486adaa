"""Assemble an agent from a config: sessions, context, tools, loop."""

from __future__ import annotations

from desktop.core.agent.context import ContextBuilder
from desktop.core.agent.loop import AgentLoop
from desktop.core.bus.queue import MessageBus
from desktop.core.config.schema import Config
from desktop.core.providers.base import LLMProvider
from desktop.core.session.manager import SessionManager
from desktop.core.tools.filesystem import filesystem_tools
from desktop.core.tools.registry import ToolRegistry


def build_tools(config: Config) -> ToolRegistry:
    """The builtin tools for the main agent (filled in as tool families land)."""
    registry = ToolRegistry()
    for tool in filesystem_tools():
        registry.register(tool)
    return registry


def build_agent(config: Config, provider: LLMProvider, *, bus: MessageBus | None = None) -> AgentLoop:
    """A ready :class:`AgentLoop` for ``config`` (not yet consuming the bus)."""
    defaults = config.agents.defaults
    workspace = config.workspace_path
    sessions = SessionManager(workspace, max_tool_result_chars=defaults.max_tool_result_chars)
    context = ContextBuilder(workspace, timezone=defaults.effective_timezone)
    return AgentLoop(config, provider, bus or MessageBus(), sessions, build_tools(config), context)
