"""modelPresets: a chat on a preset is answered by its model with its settings.

A real runtime on the scripted OpenAI server: the server sees the model, answer length,
temperature and reasoning effort each request carries.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

from desktop.core.assembly import build_runtime
from desktop.core.bus.events import InboundMessage, RunEvent
from desktop.core.config.schema import Config
from desktop.core.config.secrets import SecretStore
from desktop.core.providers.factory import build_provider
from desktop.core.providers.presets import SESSION_PRESET, default_target
from desktop.core.session.access import SessionAccess
from tests.core.agent.conftest import make_provider
from tests.core.usage.helpers import records_of
from tests.fakes.memory_keyring import MemoryKeyring
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.waiting import until

ENDS = ("turn_finished", "turn_stopped", "turn_failed")


def _ended(events: list[RunEvent], count: int) -> bool:
    return sum(e.kind in ENDS for e in events) == count


CAREFUL = {
    "model": "careful-model",
    "provider": "custom",
    "maxTokens": 777,
    "contextWindowTokens": 32_768,
    "temperature": 0.42,
    "reasoningEffort": "low",
}


def _config(server: ScriptedOpenAIServer, tmp_path: Path, **defaults: Any) -> Config:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    return Config.model_validate(
        {
            "agents": {"defaults": {"workspace": str(workspace), **defaults}},
            "providers": {"custom": {"apiBase": server.url}},
            "modelPresets": {"careful": CAREFUL},
        }
    )


async def test_a_chat_on_a_preset_sends_its_model_and_settings(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    """Chat A is put on the "careful" preset (nanobot's session key); its turn reaches the
    server with the preset's model, length, temperature and effort. Chat B, on no preset,
    stays on the default model; the ledger names each call's model."""
    scripted_server.route = lambda body: Reply(f"answered by {body['model']}")
    runtime = build_runtime(_config(scripted_server, tmp_path), make_provider(scripted_server.url))
    access = SessionAccess(runtime.agent.sessions, lock_for=runtime.agent.session_lock)
    await access.set_preset("desktop:a", "careful")
    assert await access.preset("desktop:a") == "careful"
    events: list[RunEvent] = []
    runtime.bus.subscribe(events.append)
    runtime.agent.start()
    try:
        for count, chat in enumerate(("a", "b"), start=1):
            await runtime.bus.publish_inbound(InboundMessage("desktop", "me", chat, "hello"))
            await until(partial(_ended, events, count))
    finally:
        await runtime.stop()

    first, second = (r.body for r in scripted_server.chat_requests())
    assert first["model"] == "careful-model"
    assert first["max_tokens"] == 777 and first["temperature"] == 0.42
    assert first["reasoning_effort"] == "low"
    assert second["model"] == "scripted" and second["temperature"] == 0.1
    assert "reasoning_effort" not in second
    ends = [e for e in events if e.kind == "turn_finished"]
    assert [getattr(e, "content", "") for e in ends] == [
        "answered by careful-model",
        "answered by scripted",
    ]
    assert [(r.session, r.model) for r in records_of(runtime.ledger.place)] == [
        ("desktop:a", "openai/careful-model"),
        ("desktop:b", "openai/scripted"),
    ]
    saved = runtime.agent.sessions.path_for("desktop:a").read_text(encoding="utf-8")
    assert json.loads(saved.splitlines()[0])["metadata"][SESSION_PRESET] == "careful"


async def test_back_to_the_default_and_a_preset_gone_from_the_config(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    """A chat taken off its preset, or whose preset was removed, uses the default model."""
    scripted_server.route = lambda body: Reply(f"answered by {body['model']}")
    config = _config(scripted_server, tmp_path)
    runtime = build_runtime(config, make_provider(scripted_server.url))
    access = SessionAccess(runtime.agent.sessions, lock_for=runtime.agent.session_lock)
    await access.set_preset("desktop:a", "careful")
    await access.set_preset("desktop:b", "careful")
    await access.set_preset("desktop:a", None)
    assert await access.preset("desktop:a") is None
    del config.model_presets["careful"]
    runtime.agent.start()
    try:
        for chat in ("a", "b"):
            outcome = await runtime.agent.process_direct("hello", session_key=f"desktop:{chat}")
            assert outcome == "answered by scripted"
    finally:
        await runtime.stop()


def test_the_active_preset_stands_in_for_the_default_model(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    """agents.defaults.modelPreset: the default provider is the preset's, with its settings;
    a model asked for by name is not."""
    config = _config(scripted_server, tmp_path, modelPreset="careful", model="scripted")
    built = build_provider(config, SecretStore())
    assert built.choice.model == "openai/careful-model" and built.choice.spec.name == "custom"
    provider: Any = built.provider
    assert (provider.max_tokens, provider.temperature, provider.reasoning_effort) == (
        777,
        0.42,
        "low",
    )
    target = default_target(config)
    assert (target.name, target.context_window_tokens) == ("careful", 32_768)
    assert config.agents.defaults.model == "scripted"  # the file's fields are left alone
    named = build_provider(config, SecretStore(), model="custom/other")
    assert named.choice.model == "openai/other"
