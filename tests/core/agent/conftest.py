"""Fixtures for agent tests: a real LiteLLM provider on the scripted server, a loop factory."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest

from desktop.core.agent.context import ContextBuilder
from desktop.core.agent.loop import AgentLoop
from desktop.core.agent.work import SessionWork
from desktop.core.bus.queue import MessageBus
from desktop.core.config.provider_registry import find_by_name
from desktop.core.config.schema import Config
from desktop.core.providers.litellm_provider import LiteLLMProvider
from desktop.core.providers.matching import ProviderChoice
from desktop.core.session.manager import SessionManager
from desktop.core.tools.base import Tool, ToolContext, ToolResult
from desktop.core.tools.registry import ToolRegistry
from desktop.core.utils.tasks import TaskOwner
from tests.fakes.openai_server import ScriptedOpenAIServer


class Timeline:
    """Records (name, start, end) of tool runs to check overlap."""

    def __init__(self) -> None:
        self.spans: list[tuple[str, float, float]] = []
        self.started = asyncio.Event()


class SlowRead(Tool):
    """A read-only tool that takes a while."""

    name: ClassVar[str] = "slow_read"
    description: ClassVar[str] = "Read slowly."
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {"n": {"type": "integer"}},
        "required": ["n"],
    }
    read_only: ClassVar[bool] = True

    def __init__(self, timeline: Timeline, seconds: float = 0.3) -> None:
        self.timeline, self.seconds = timeline, seconds

    async def execute(self, ctx: ToolContext, **kwargs: Any) -> ToolResult:
        start = time.monotonic()
        self.timeline.started.set()
        await asyncio.sleep(self.seconds)
        self.timeline.spans.append((f"{self.name}:{kwargs['n']}", start, time.monotonic()))
        return ToolResult(f"read {kwargs['n']}")


class Exclusive(SlowRead):
    """An exclusive tool (like exec)."""

    name: ClassVar[str] = "exclusive_op"
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {"n": {"type": "integer"}},
    }
    read_only: ClassVar[bool] = False
    exclusive: ClassVar[bool] = True

    async def execute(self, ctx: ToolContext, **kwargs: Any) -> ToolResult:
        kwargs.setdefault("n", 0)
        return await super().execute(ctx, **kwargs)


class Forever(SlowRead):
    """A tool that never finishes on its own."""

    name: ClassVar[str] = "forever"
    parameters: ClassVar[dict[str, Any]] = {"type": "object", "properties": {}}

    async def execute(self, ctx: ToolContext, **kwargs: Any) -> ToolResult:
        self.timeline.started.set()
        await asyncio.sleep(3600)
        return ToolResult("never")


def new_loop(
    config: Config,
    provider: LiteLLMProvider,
    bus: MessageBus,
    sessions: SessionManager,
    tools: ToolRegistry,
    context: ContextBuilder,
    **parts: Any,
) -> AgentLoop:
    """An AgentLoop from explicit parts (a fresh work registry and task owner)."""
    return AgentLoop(
        config=config,
        provider=provider,
        bus=bus,
        sessions=sessions,
        tools=tools,
        context=context,
        work=SessionWork(),
        owner=TaskOwner("test-agent"),
        **parts,
    )


def make_provider(url: str) -> LiteLLMProvider:
    """A real LiteLLM provider pointed at ``url``."""
    spec = find_by_name("custom")
    assert spec is not None
    return LiteLLMProvider(
        ProviderChoice(spec, "custom", "openai/scripted", url), retry_delays=(0.01,)
    )


@pytest.fixture
def timeline() -> Timeline:
    """A fresh tool timeline."""
    return Timeline()


MakeLoop = Callable[..., AgentLoop]
"""The ``make_loop`` fixture: builds an AgentLoop (keywords: agent defaults, ``consolidation``)."""


@pytest.fixture
async def make_loop(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, timeline: Timeline
) -> AsyncIterator[MakeLoop]:
    """Build an AgentLoop on the scripted server with the test tools; stopped afterwards."""
    made: list[AgentLoop] = []

    def factory(*, consolidation: Any = None, **defaults: Any) -> AgentLoop:
        config = Config.model_validate(
            {"agents": {"defaults": {"workspace": str(tmp_path / "ws"), **defaults}}}
        )
        tools = ToolRegistry()
        for tool in (SlowRead(timeline), Exclusive(timeline), Forever(timeline)):
            tools.register(tool)
        workspace = tmp_path / "ws"
        workspace.mkdir(exist_ok=True)
        loop = new_loop(
            config,
            make_provider(scripted_server.url),
            MessageBus(),
            SessionManager(workspace),
            tools,
            ContextBuilder(workspace),
            consolidation=consolidation,
        )
        made.append(loop)
        return loop

    yield factory
    for loop in made:  # background work (consolidation) ends with its loop
        await loop.stop()
