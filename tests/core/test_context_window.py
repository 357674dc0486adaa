"""The model's real context window (issue 9 B: not 65,536 for an 8k server).

Formats are checked against the scripted server's HTTP answers, the runtime's use of the window
with a real runtime (the usage event the context meter shows, the Consolidator's budget), and
saving the settings afterwards never writes the probed number.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from desktop.core.assembly import StartOptions, start_runtime
from desktop.core.bus.events import InboundMessage, RunEvent, TurnFinished, UsageReport
from desktop.core.bus.queue import MessageBus
from desktop.core.config.loader import load_config, save_config
from desktop.core.config.provider_registry import find_by_name
from desktop.core.config.secrets import SecretStore
from desktop.core.providers.context_window import (
    DEFAULT_WINDOW,
    apply_context_window,
    configured_window,
    litellm_window,
    probe_context_window,
    window_from_models,
)
from desktop.core.providers.matching import ProviderChoice
from tests.conftest import custom_config, write_config
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.waiting import until


def choice(url: str, model: str = "openai/scripted", provider: str = "custom") -> ProviderChoice:
    spec = find_by_name(provider)
    assert spec is not None
    return ProviderChoice(spec=spec, section=provider, model=model, api_base=url)


async def test_llama_cpp_props(scripted_server: ScriptedOpenAIServer) -> None:
    scripted_server.get_routes["/props"] = {
        "default_generation_settings": {"n_ctx": 8192, "temperature": 0.8},
        "total_slots": 1,
    }
    found = await probe_context_window(choice(scripted_server.url), use_litellm=False)
    assert found is not None and (found.tokens, found.source) == (8192, "llama.cpp /props")
    paths = [r.path for r in scripted_server.requests]
    assert paths == ["/props"]  # at the server root, not under /v1


@pytest.mark.parametrize(
    "fields",
    [{"max_model_len": 4096}, {"context_length": 4096}, {"max_context_length": 4096}],
)
async def test_models_entry(scripted_server: ScriptedOpenAIServer, fields: dict[str, Any]) -> None:
    scripted_server.model_fields.update(fields)
    found = await probe_context_window(
        choice(scripted_server.url, "hosted_vllm/scripted-model", "vllm"), use_litellm=False
    )
    assert found is not None and (found.tokens, found.source) == (4096, "/models")


def test_models_entry_is_matched_by_name() -> None:
    payload = {
        "data": [
            {"id": "small", "context_length": 2048},
            {"id": "big", "context_length": 131072},
        ]
    }
    assert window_from_models(payload, "openrouter/big") == 131072
    assert window_from_models(payload, "small") == 2048
    assert window_from_models(payload, "other") is None


async def test_nothing_known_is_none(scripted_server: ScriptedOpenAIServer) -> None:
    assert await probe_context_window(choice(scripted_server.url), use_litellm=False) is None
    unreachable = choice("http://127.0.0.1:9/v1")
    assert await probe_context_window(unreachable, timeout=2, use_litellm=False) is None


def test_litellm_table_knows_hosted_models() -> None:
    assert (litellm_window("gpt-4o-mini") or 0) >= 100_000
    assert litellm_window("openai/surely-not-a-model-name") is None


def test_applied_window_is_never_saved_and_a_chosen_one_wins(tmp_path: Path) -> None:
    path = custom_config(tmp_path, "http://127.0.0.1:9/v1")
    config = load_config(path)
    assert configured_window(config) is None
    assert apply_context_window(config, 2048) == 2048
    assert config.agents.defaults.context_window_tokens == 2048
    save_config(config)
    on_disk = json.loads(path.read_text())["agents"]["defaults"]
    assert on_disk.get("contextWindowTokens", DEFAULT_WINDOW) == DEFAULT_WINDOW
    assert apply_context_window(config, 4096) == 4096  # a new model, a new window
    config.agents.defaults.context_window_tokens = 16_000  # the person sets one
    assert apply_context_window(config, 4096) == 16_000
    save_config(config)
    assert json.loads(path.read_text())["agents"]["defaults"]["contextWindowTokens"] == 16_000
    chosen = load_config(path)
    assert apply_context_window(chosen, 2048) == 16_000


async def test_the_runtime_uses_the_server_window(
    tmp_path: Path, scripted_server: ScriptedOpenAIServer, memory_keyring: object
) -> None:
    scripted_server.get_routes["/props"] = {"default_generation_settings": {"n_ctx": 8192}}
    config = load_config(custom_config(tmp_path, scripted_server.url, maxTokens=2048))
    bus = MessageBus()
    events: list[RunEvent] = []
    bus.subscribe(events.append)
    runtime = await start_runtime(config, StartOptions(bus=bus, secrets=SecretStore()))
    try:
        deadline = asyncio.get_running_loop().time() + 15
        while config.agents.defaults.context_window_tokens != 8192:
            assert asyncio.get_running_loop().time() < deadline, "window never applied"
            await asyncio.sleep(0.01)
        assert runtime.memory.consolidator.budget == 8192 - 2048 - 1024
        assert runtime.subagents.context_window == 8192
        await bus.publish_inbound(InboundMessage("cli", "user", "direct", "hi"))
        while not any(isinstance(e, TurnFinished) for e in events):
            assert asyncio.get_running_loop().time() < deadline + 15
            await asyncio.sleep(0.01)
        usage = [e for e in events if isinstance(e, UsageReport)]
        assert usage and usage[-1].context_window == 8192  # what the context meter shows
    finally:
        await runtime.stop()


def litellm_route_config(tmp_path: Path, api_base: str, **defaults: Any) -> Path:
    """A config whose provider is reached through LiteLLM (Moonshot: LiteLLM's own route for
    an OpenAI-style server), pointed at ``api_base``."""
    data = {
        "agents": {
            "defaults": {
                "model": "any-name",
                "provider": "moonshot",
                "workspace": str(tmp_path / "workspace"),
                **defaults,
            }
        },
        "providers": {"moonshot": {"apiBase": api_base, "apiKey": "sk-moonshot-0123456789"}},
    }
    return write_config(tmp_path / "config" / "config.json", data)


async def test_the_table_waits_for_the_first_call(
    tmp_path: Path,
    scripted_server: ScriptedOpenAIServer,
    memory_keyring: object,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The server knows no window and the provider calls through LiteLLM: at start-up the
    table is not consulted until a call has imported LiteLLM; then it is, and its window
    applies."""
    from desktop.core.providers import context_window, litellm_provider

    monkeypatch.setattr(litellm_provider, "_litellm", None)  # as in a fresh process
    asked: list[str] = []

    def table(model: str) -> int:
        asked.append(model)
        return 12_000

    monkeypatch.setattr(context_window, "litellm_window", table)
    config = load_config(litellm_route_config(tmp_path, scripted_server.url, maxTokens=2048))
    runtime = await start_runtime(config, StartOptions(bus=MessageBus(), secrets=SecretStore()))
    try:
        await until(lambda: litellm_provider._waiters, 15, "the probe to wait for LiteLLM")
        assert any(r.path.endswith("/models") for r in scripted_server.requests)
        assert asked == []
        assert config.agents.defaults.context_window_tokens == DEFAULT_WINDOW
        await litellm_provider.aimport_litellm()  # what the first model call does
        await until(lambda: config.agents.defaults.context_window_tokens == 12_000, 15, "the table")
        assert [m.rsplit("/", 1)[-1] for m in asked] == ["any-name"]
        assert runtime.memory.consolidator.budget == 12_000 - 2048 - 1024
        assert not litellm_provider._waiters
    finally:
        await runtime.stop()


async def test_on_the_thin_path_the_table_is_read_at_once_without_litellm(
    tmp_path: Path,
    scripted_server: ScriptedOpenAIServer,
    memory_keyring: object,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An OpenAI-wire provider never loads LiteLLM: the window comes from LiteLLM's table
    read as a file at start-up (``gpt-4o``: 128,000), and LiteLLM stays unloaded."""
    from desktop.core.providers import litellm_provider

    monkeypatch.setattr(litellm_provider, "_litellm", None)  # as in a fresh process
    config = load_config(custom_config(tmp_path, scripted_server.url, model="gpt-4o"))
    runtime = await start_runtime(config, StartOptions(bus=MessageBus(), secrets=SecretStore()))
    try:
        await until(
            lambda: config.agents.defaults.context_window_tokens == 128_000, 15, "the table"
        )
        assert litellm_provider._litellm is None and not litellm_provider._waiters
    finally:
        await runtime.stop()
