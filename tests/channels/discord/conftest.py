"""Fixtures: the local Discord (REST + gateway), and a real agent runtime whose Discord channel
talks to it (the model is the scripted OpenAI-compatible server, through the real LiteLLM
path)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from desktop.core.agent.approval import ApprovalPolicy
from desktop.core.assembly import build_runtime
from desktop.core.channels.discord.channel import DiscordChannel
from desktop.core.config.loader import load_config
from desktop.core.runtime import Runtime
from tests.channels.discord.discord_server import GUILD_READY_TIMEOUT, TOKEN, DiscordServer
from tests.channels.harness import echo as echo  # re-exported: shared
from tests.channels.harness import session_lines as session_lines
from tests.channels.harness import until as until
from tests.channels.harness import user_text as user_text
from tests.conftest import write_config
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import ScriptedOpenAIServer


@pytest.fixture
async def discord_api(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[DiscordServer]:
    """A running local Discord (and channels that wait only briefly for its servers)."""
    monkeypatch.setattr(DiscordChannel, "guild_ready_timeout", GUILD_READY_TIMEOUT)
    server = await DiscordServer().start()
    yield server
    await server.stop()


def config_file(
    tmp_path: Path, api: DiscordServer, *, discord: dict[str, Any] | None = None
) -> Path:
    """A config with the Discord channel pointed at ``api``."""
    section = {
        "enabled": True,
        "token": TOKEN,
        "apiBase": api.base_url,
        "allowFrom": ["*"],
        "readReceiptEmoji": "",
        **(discord or {}),
    }
    data = {
        "agents": {"defaults": {"workspace": str(tmp_path / "ws"), "timezone": "UTC"}},
        "channels": {"discord": section},
    }
    return write_config(tmp_path / "nanobot" / "config.json", data)


async def start_runtime(
    tmp_path: Path,
    api: DiscordServer,
    model: ScriptedOpenAIServer,
    *,
    approval: ApprovalPolicy | None = None,
    discord: dict[str, Any] | None = None,
) -> Runtime:
    """Build and start a runtime whose Discord channel is connected to ``api``."""
    config = load_config(config_file(tmp_path, api, discord=discord))
    runtime = await asyncio.to_thread(
        build_runtime, config, make_provider(model.url), approval=approval
    )
    await runtime.start()
    await until(lambda: runtime.channels.status("discord").ok, what="connected")
    return runtime
