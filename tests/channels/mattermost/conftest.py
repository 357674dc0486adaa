"""Fixtures: the local Mattermost server, and a real agent runtime whose Mattermost channel
talks to it (the model is the scripted OpenAI-compatible server, through the real LiteLLM
path)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from desktop.core.agent.approval import ApprovalPolicy
from desktop.core.assembly import build_runtime
from desktop.core.config.loader import load_config
from desktop.core.runtime import Runtime
from tests.channels.mattermost.server import TOKEN, MattermostServer
from tests.channels.telegram.conftest import echo, user_text
from tests.conftest import write_config
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.waiting import until

__all__ = ["echo", "until", "user_text"]


@pytest.fixture
async def mattermost() -> AsyncIterator[MattermostServer]:
    """A running local Mattermost server."""
    server = await MattermostServer().start()
    yield server
    await server.stop()


def config_file(tmp_path: Path, server: MattermostServer, **section: Any) -> Path:
    """A config with the Mattermost channel pointed at ``server``."""
    data = {
        "agents": {"defaults": {"workspace": str(tmp_path / "ws"), "timezone": "UTC"}},
        "channels": {
            "mattermost": {
                "enabled": True,
                "serverUrl": server.url,
                "token": TOKEN,
                "allowFrom": ["*"],
                **section,
            }
        },
    }
    return write_config(tmp_path / "nanobot" / "config.json", data)


async def start_runtime(
    tmp_path: Path,
    server: MattermostServer,
    model: ScriptedOpenAIServer,
    *,
    approval: ApprovalPolicy | None = None,
    connected: bool = True,
    **section: Any,
) -> Runtime:
    """Build and start a runtime whose Mattermost channel is connected to ``server``."""
    config = load_config(config_file(tmp_path, server, **section))
    runtime = await asyncio.to_thread(
        build_runtime, config, make_provider(model.url), approval=approval
    )
    await runtime.start()
    if connected:
        await until(lambda: runtime.channels.status("mattermost").ok, what="connected")
    return runtime


def journal(tmp_path: Path) -> list[dict[str, Any]]:
    """The Mattermost channel's journal as saved."""
    path = tmp_path / "nanobot" / "channel-state" / "mattermost.json"
    if not path.exists():
        return []
    return list(json.loads(path.read_text())["values"].get("pending", []))
