"""Switching the model while the runtime runs (issue 9 B: the chat header's model picker).

Two scripted servers stand for two providers; everything between the runtime and them is real
(the factory, the keyring lookup, LiteLLM's HTTP path, the agent loop).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from desktop.core.assembly import StartOptions, start_runtime
from desktop.core.bus.events import (
    InboundMessage,
    RunEvent,
    TextDelta,
    TurnFinished,
)
from desktop.core.bus.queue import MessageBus
from desktop.core.config.loader import load_config, save_config
from desktop.core.config.secrets import SecretStore
from desktop.core.providers.base import LLMResponse, Usage
from desktop.core.providers.reconfigure import plan, snapshot
from desktop.core.providers.switchable import SwitchableProvider, usage_source
from desktop.core.runtime import Runtime
from tests.conftest import custom_config, write_config
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.waiting import until


@pytest.fixture
def second_server() -> Any:
    with ScriptedOpenAIServer(Reply("Answer from B.")) as server:
        yield server


@pytest.fixture
async def running(
    tmp_path: Path,
    scripted_server: ScriptedOpenAIServer,
    second_server: ScriptedOpenAIServer,
    memory_keyring: object,
) -> AsyncIterator[tuple[Runtime, list[RunEvent]]]:
    path = custom_config(tmp_path, scripted_server.url, model="model-a")
    data = __import__("json").loads(path.read_text())
    data["providers"]["vllm"] = {"apiBase": second_server.url}
    write_config(path, data)
    config = load_config(path)
    bus = MessageBus()
    events: list[RunEvent] = []
    bus.subscribe(events.append)
    runtime = await start_runtime(config, StartOptions(bus=bus, secrets=SecretStore()))
    yield runtime, events
    await runtime.stop()


def _send(runtime: Runtime, text: str) -> InboundMessage:
    message = InboundMessage("cli", "user", "direct", text)
    asyncio.get_running_loop().create_task(runtime.bus.publish_inbound(message))
    return message


async def test_a_running_turn_finishes_on_its_model_and_the_next_uses_the_new_one(
    running: tuple[Runtime, list[RunEvent]],
    scripted_server: ScriptedOpenAIServer,
    second_server: ScriptedOpenAIServer,
) -> None:
    runtime, events = running
    assert isinstance(runtime.provider, SwitchableProvider)
    scripted_server.push(Reply("Slow answer from A, " * 8, chunk=3, delay=0.03))
    _send(runtime, "first")
    await until(lambda: any(isinstance(e, TextDelta) for e in events))

    await runtime.use_model("hosted_vllm/model-b", provider="vllm")

    await until(lambda: sum(isinstance(e, TurnFinished) for e in events) == 1)
    first = next(e for e in events if isinstance(e, TurnFinished))
    assert first.content.startswith("Slow answer from A")  # not cancelled, not moved
    assert runtime.config.agents.defaults.model == "hosted_vllm/model-b"
    assert runtime.config.agents.defaults.provider == "vllm"
    _send(runtime, "second")
    await until(lambda: sum(isinstance(e, TurnFinished) for e in events) == 2)
    second = [e for e in events if isinstance(e, TurnFinished)][1]
    assert second.content == "Answer from B."
    assert len(scripted_server.chat_requests()) == 1
    assert [r.body["model"] for r in second_server.chat_requests()] == ["model-b"]


async def test_a_failed_switch_changes_nothing(
    running: tuple[Runtime, list[RunEvent]], scripted_server: ScriptedOpenAIServer
) -> None:
    from desktop.core.providers.factory import MissingKeyError

    runtime, _events = running
    before = runtime.provider.current
    with pytest.raises(MissingKeyError):
        await runtime.use_model("anthropic/claude-3-5-haiku-latest", provider="anthropic")
    assert runtime.provider.current is before
    assert runtime.config.agents.defaults.model == "model-a"
    assert runtime.config.agents.defaults.provider == "custom"


def test_plan_tells_a_switch_from_a_rebuild(tmp_path: Path) -> None:
    config = load_config(custom_config(tmp_path, "http://127.0.0.1:9/v1"))
    before = snapshot(config)
    assert plan(before, config) == "none"
    config.agents.defaults.max_tool_iterations = 5  # read on every turn
    assert plan(before, config) == "none"
    config.agents.defaults.model = "other"
    config.agents.defaults.temperature = 0.7
    config.providers.custom.api_base = "http://127.0.0.1:10/v1"
    assert plan(before, config) == "switch"
    config.tools.restrict_to_workspace = True  # live as well
    assert plan(before, config) == "switch"
    config.agents.defaults.workspace = str(tmp_path / "elsewhere")
    assert plan(before, config) == "rebuild"
    fresh = load_config(custom_config(tmp_path / "b", "http://127.0.0.1:9/v1"))
    before = snapshot(fresh)
    fresh.tools.exec.timeout = 7  # baked into the exec tool
    assert plan(before, fresh) == "rebuild"


def test_a_channels_own_settings_need_only_that_channel_restarted(tmp_path: Path) -> None:
    """Issue 21 item 11: saving a channel's form restarts that channel, not the agent."""
    from desktop.core.providers.reconfigure import absorb_channel, changed_channels

    config = load_config(custom_config(tmp_path, "http://127.0.0.1:9/v1"))
    before = snapshot(config)
    config.channels.send_progress = not config.channels.send_progress  # read live
    assert plan(before, config) == "none"
    config.channels.telegram.enabled = True
    config.channels.telegram.token = "123:abc"
    assert plan(before, config) == "channel"
    assert changed_channels(before, config) == {"telegram"}
    absorb_channel(before, config, "telegram")
    assert changed_channels(before, config) == set() and plan(before, config) == "none"
    config.tools.exec.timeout = 7
    assert plan(before, config) == "rebuild"


async def test_usage_listeners_see_the_source_tag() -> None:
    class Stub:  # one layer's unit test: the listener plumbing, not the HTTP path
        model = "stub-model"

        async def chat(self, *args: Any, **kwargs: Any) -> LLMResponse:
            return LLMResponse("ok", usage=Usage(3, 2))

    provider = SwitchableProvider(Stub())  # type: ignore[arg-type]
    seen: list[tuple[str, str, int]] = []
    remove = provider.add_usage_listener(lambda s, m, u: seen.append((s, m, u.total_tokens)))
    await provider.chat([{"role": "user", "content": "hi"}])
    with usage_source("title"):
        await provider.chat([{"role": "user", "content": "hi"}], max_tokens=5)
    remove()
    await provider.chat([{"role": "user", "content": "hi"}])
    assert seen == [("agent", "stub-model", 5), ("title", "stub-model", 5)]


async def test_saving_after_a_switch_keeps_the_file_honest(
    running: tuple[Runtime, list[RunEvent]], tmp_path: Path
) -> None:
    runtime, _events = running
    await runtime.use_model("hosted_vllm/model-b", provider="vllm")
    path = save_config(runtime.config)
    saved = load_config(path)
    assert saved.agents.defaults.model == "hosted_vllm/model-b"
    assert plan(runtime.applied, runtime.config) == "none"
