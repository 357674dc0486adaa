"""End to end: a tool call round trip on the real local model (llama.cpp server).

The model is forced to call the tool on its first request (``tool_choice``; SmolLM2 is too
small to choose tools reliably); everything else is the real path: the agent loop, the
runner, the real tool, the LiteLLM HTTP path and llama.cpp's chat template on the second
request, which carries the assistant's tool call and the tool result.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest

from desktop.core.agent.context import ContextBuilder
from desktop.core.bus.queue import MessageBus
from desktop.core.config.provider_registry import find_by_name
from desktop.core.config.schema import Config
from desktop.core.providers.base import LLMResponse
from desktop.core.providers.litellm_provider import LiteLLMProvider
from desktop.core.providers.matching import ProviderChoice
from desktop.core.session.manager import SessionManager
from desktop.core.tools.base import Tool, ToolContext, ToolResult
from desktop.core.tools.registry import ToolRegistry
from tests.core.agent.conftest import new_loop

pytestmark = pytest.mark.e2e


class Clock(Tool):
    """A tiny read-only tool with a recognisable result."""

    name: ClassVar[str] = "clock"
    description: ClassVar[str] = "Tell the current time."
    parameters: ClassVar[dict[str, Any]] = {"type": "object", "properties": {}}
    read_only: ClassVar[bool] = True

    def __init__(self) -> None:
        self.calls = 0

    async def execute(self, ctx: ToolContext, **kwargs: Any) -> ToolResult:
        self.calls += 1
        return ToolResult("It is 10:30.")


class FirstCallForced(LiteLLMProvider):
    """The real provider; only its first request with tools forces the ``clock`` call."""

    forced = False

    async def chat_stream(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None, **kw: Any
    ) -> LLMResponse:
        if tools and not self.forced:
            self.forced = True
            kw["tool_choice"] = {"type": "function", "function": {"name": "clock"}}
        return await super().chat_stream(messages, tools, **kw)


async def test_tool_call_round_trip_on_the_local_model(
    local_model_url: str, tmp_path: Path
) -> None:
    """The model calls the tool (streamed), the result goes back, the model answers."""
    config = Config.model_validate(
        {
            "agents": {
                "defaults": {
                    "workspace": str(tmp_path),
                    "contextWindowTokens": 2048,
                    "maxTokens": 60,
                }
            }
        }
    )
    spec = find_by_name("custom")
    assert spec is not None
    provider = FirstCallForced(
        ProviderChoice(spec, "custom", "openai/smollm2", local_model_url),
        max_tokens=60,
        temperature=0.0,
    )
    clock = Clock()
    tools = ToolRegistry()
    tools.register(clock)
    loop = new_loop(
        config, provider, MessageBus(), SessionManager(tmp_path), tools, ContextBuilder(tmp_path)
    )
    answer = await loop.process_direct(
        "What time is it?", session_key="desktop:e2e", channel="desktop", chat_id="e2e"
    )
    assert clock.calls == 1, "the streamed tool call was assembled with the right name"
    assert answer.strip()
    saved = SessionManager(tmp_path).get_or_create("desktop:e2e").messages
    assert [m["role"] for m in saved] == ["user", "assistant", "tool", "assistant"]
    assert saved[1]["tool_calls"][0]["function"]["name"] == "clock"
    assert saved[2]["content"] == "It is 10:30." and saved[3]["content"] == answer
    await loop.stop()
