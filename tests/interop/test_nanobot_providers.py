"""Providers, model presets and fallbacks with the real nanobot 0.3.5 beside ours.

- Every provider of nanobot's registry (and every transcription provider) is one of ours.
- The config nanobot writes on ``onboard`` loads in ours with every provider section filled,
  and each section routes one request through our LiteLLM path to where that provider's API
  is (the table in :mod:`tests.provider_wire`).
- A config of ours with presets, fallbacks and Bedrock's fields set is one nanobot runs.
- A chat's preset is shared both ways: one set with nanobot's ``/model`` answers in ours, one
  set in ours answers in nanobot.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic.alias_generators import to_snake

from desktop.core.config.loader import load_config, save_config
from desktop.core.config.provider_registry import PROVIDERS
from desktop.core.config.schema import InlineFallbackConfig, ModelPresetConfig
from desktop.core.config.secrets import SecretStore
from desktop.core.providers.chat_presets import set_session_preset
from desktop.core.providers.transcription import find_transcription
from desktop.core.session.manager import SessionManager
from tests.fakes.memory_keyring import MemoryKeyring
from tests.fakes.openai_server import Reply
from tests.fakes.wire_server import WireServer
from tests.interop.conftest import Shared
from tests.provider_wire import ROUTES, TRANSCRIPTION_ONLY, mismatches, route_one

CAREFUL = {"model": "careful-model", "provider": "custom", "temperature": 0.42}


def _nanobot_python(shared: Shared, code: str) -> str:
    """Run ``code`` with nanobot's own library (its venv's Python); return stdout."""
    result = shared.nanobot_python(code)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_every_nanobot_provider_is_ours(shared: Shared) -> None:
    """nanobot's chat providers and transcription providers, read from its own registries."""
    names = json.loads(
        _nanobot_python(
            shared,
            "import json\n"
            "from nanobot.providers.registry import PROVIDERS\n"
            "from nanobot.audio.transcription_registry import TRANSCRIPTION_PROVIDERS as T\n"
            "print(json.dumps([[p.name for p in PROVIDERS], [t.name for t in T]]))",
        )
    )
    chat, transcription = names
    assert len(chat) == 46
    assert set(chat) <= {spec.name for spec in PROVIDERS}
    assert all(find_transcription(name) is not None for name in transcription)


async def test_nanobots_onboarded_config_routes_every_section(
    shared: Shared, memory_keyring: MemoryKeyring
) -> None:
    """``nanobot onboard`` writes the default config; every provider section of it, filled,
    sends its request where the provider's API is, with its key and model."""
    target = shared.home / "fresh.json"
    shared.ok("nanobot", "onboard", "-c", str(target), "-w", str(shared.workspace))
    default: dict[str, Any] = json.loads(target.read_text(encoding="utf-8"))
    sections = {to_snake(name) for name in default["providers"]}
    assert {r.section for r in ROUTES} | TRANSCRIPTION_ONLY == sections
    wrong: dict[str, list[str]] = {}
    with WireServer() as wire:
        for route in ROUTES:
            response, seen = await route_one(default, route, wire, SecretStore())
            problems = mismatches(route, seen)
            if response.content != "pong":
                problems.append(f"answer {response.content!r}")
            if problems:
                wrong[route.section] = problems
    assert wrong == {}


def _with_presets(shared: Shared, **extra: Any) -> None:
    data = json.loads(shared.config.read_text(encoding="utf-8"))
    data["modelPresets"] = {"careful": CAREFUL}
    for key, value in extra.items():
        data.setdefault(key, {}).update(value)
    shared.config.write_text(json.dumps(data), encoding="utf-8")


def test_our_config_with_presets_fallbacks_and_bedrock_runs_nanobot(shared: Shared) -> None:
    """Saved by us with presets, an active preset, fallbacks and Bedrock's region: nanobot
    accepts the file and answers with the active preset's model and temperature."""
    config = load_config(shared.config, environ={})
    config.model_presets["careful"] = ModelPresetConfig.model_validate(CAREFUL)
    config.agents.defaults.model_preset = "careful"
    config.agents.defaults.provider = "auto"
    config.agents.defaults.fallback_models = [
        "careful",
        InlineFallbackConfig(model="backup-model", provider="custom"),
    ]
    config.providers.bedrock.region = "eu-central-1"
    save_config(config)
    saved = json.loads(shared.config.read_text(encoding="utf-8"))
    assert saved["agents"]["defaults"]["fallbackModels"][1] == {
        "model": "backup-model",
        "provider": "custom",
        "maxTokens": None,
        "contextWindowTokens": None,
        "temperature": None,
        "reasoningEffort": None,
    }
    shared.server.push(Reply("nanobot on the careful preset."))
    assert "nanobot on the careful preset." in shared.ok("nanobot", "agent", "-m", "hi")
    body = shared.server.chat_requests()[-1].body
    assert body["model"] == "careful-model" and body["temperature"] == 0.42
    shared.server.push(Reply("and ours too."))
    assert shared.ok("nanobot-desktop", "agent", "-m", "hi") == "and ours too.\n"
    body = shared.server.chat_requests()[-1].body
    assert body["model"] == "careful-model" and body["temperature"] == 0.42


def test_a_chats_preset_is_shared_both_ways(shared: Shared) -> None:
    """nanobot's ``/model careful`` in a chat: our next turn there uses the preset. A chat put
    on it by us: nanobot's next turn there does."""
    _with_presets(shared)
    out = shared.ok("nanobot", "agent", "-s", "cli:theirs", "-m", "/model careful")
    assert "careful" in out
    shared.server.push(Reply("ours, on their preset"))
    shared.ok("nanobot-desktop", "agent", "--session", "cli:theirs", "-m", "hello")
    body = shared.server.chat_requests()[-1].body
    assert body["model"] == "careful-model" and body["temperature"] == 0.42

    sessions = SessionManager(shared.workspace, config_dir=shared.home / ".nanobot")
    set_session_preset(sessions, "cli:ours", "careful")
    shared.server.push(Reply("theirs, on our preset"))
    shared.ok("nanobot", "agent", "-s", "cli:ours", "-m", "hello")
    body = shared.server.chat_requests()[-1].body
    assert body["model"] == "careful-model" and body["temperature"] == 0.42
