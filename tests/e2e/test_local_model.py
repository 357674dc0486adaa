"""End to end: the real CLI, the real LiteLLM path, a real model."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from desktop.core.session.manager import SessionManager
from tests.conftest import CLI, cli_env, custom_config

pytestmark = pytest.mark.e2e


def test_agent_message_streams_a_reply_and_persists_the_turn(
    local_model_url: str, tmp_path: Path, isolated_env: Path
) -> None:
    """`agent -m` against SmolLM2: a non-empty streamed reply, saved to the session."""
    config = custom_config(
        tmp_path, local_model_url, model="smollm2", maxTokens=40, temperature=0.0
    )
    result = subprocess.run(
        [CLI, "agent", "-m", "Say hello in one short sentence.", "--config", str(config)],
        capture_output=True,
        text=True,
        check=False,
        timeout=240,
        env=cli_env(isolated_env),
    )
    assert result.returncode == 0, result.stderr
    reply = result.stdout.strip()
    assert reply and reply != "(the model returned no text)"
    path = SessionManager(tmp_path / "workspace", config_dir=config.parent).path_for("cli:direct")
    lines = path.read_text().splitlines()
    meta, *messages = (json.loads(line) for line in lines)
    assert meta["_type"] == "metadata" and meta["key"] == "cli:direct"
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert messages[0]["content"] == "Say hello in one short sentence."
    assert messages[1]["content"].strip() and messages[1]["content"].strip() in reply


async def test_provider_streams_deltas_from_the_real_model(local_model_url: str) -> None:
    """The provider streams more than one delta and reports usage from the real server."""
    from desktop.core.config.provider_registry import find_by_name
    from desktop.core.providers.litellm_provider import LiteLLMProvider
    from desktop.core.providers.matching import ProviderChoice

    spec = find_by_name("custom")
    assert spec is not None
    provider = LiteLLMProvider(
        ProviderChoice(spec, "custom", "openai/smollm2", local_model_url),
        max_tokens=30,
        temperature=0.0,
    )
    deltas: list[str] = []
    response = await provider.chat_stream(
        [{"role": "user", "content": "Count from one to five."}],
        on_delta=lambda d: deltas.append(d.text),
    )
    assert len(deltas) > 1
    assert response.content and "".join(deltas).strip() == response.content
    assert response.usage.completion_tokens > 0
