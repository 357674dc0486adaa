"""Fixtures: the local Slack, and a real agent runtime whose Slack channel talks to it (the
model is the scripted OpenAI-compatible server, through the real LiteLLM path)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from desktop.core.agent.approval import ApprovalPolicy
from desktop.core.assembly import build_runtime
from desktop.core.config.loader import load_config
from desktop.core.runtime import Runtime
from tests.channels.harness import echo, until, user_text
from tests.channels.slack.slack_server import APP_TOKEN, BOT_TOKEN, SlackServer
from tests.conftest import write_config
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import ScriptedOpenAIServer

__all__ = ["echo", "until", "user_text"]

DM = "D0000DM1"
CHANNEL = "C0000GEN"


@pytest.fixture
async def slack() -> AsyncIterator[SlackServer]:
    """A running local Slack."""
    server = await SlackServer().start()
    yield server
    await server.stop()


def config_file(
    tmp_path: Path, slack: SlackServer, *, section: dict[str, Any] | None = None
) -> Path:
    """A config with the Slack channel pointed at ``slack``."""
    data = {
        "agents": {"defaults": {"workspace": str(tmp_path / "ws"), "timezone": "UTC"}},
        "channels": {
            "slack": {
                "enabled": True,
                "botToken": BOT_TOKEN,
                "appToken": APP_TOKEN,
                "baseUrl": slack.api_url,
                "allowFrom": ["*"],
                **(section or {}),
            }
        },
    }
    return write_config(tmp_path / "nanobot" / "config.json", data)


async def start_runtime(
    tmp_path: Path,
    slack: SlackServer,
    model: ScriptedOpenAIServer,
    *,
    approval: ApprovalPolicy | None = None,
    connected: bool = True,
    **section: Any,
) -> Runtime:
    """Build and start a runtime whose Slack channel is connected to ``slack``."""
    config = load_config(config_file(tmp_path, slack, section=section))
    runtime = await asyncio.to_thread(
        build_runtime, config, make_provider(model.url), approval=approval
    )
    await runtime.start()
    if connected:
        await until(lambda: runtime.channels.status("slack").ok, what="connected")
    return runtime


def session_lines(runtime: Runtime, key: str) -> list[dict[str, Any]]:
    """The messages of a session file (without the metadata line)."""
    path = runtime.sessions.path_for(key)
    return [json.loads(line) for line in path.read_text().splitlines()][1:]


def journal(tmp_path: Path) -> list[dict[str, Any]]:
    """The Slack channel's journal as saved."""
    path = tmp_path / "nanobot" / "channel-state" / "slack.json"
    if not path.exists():
        return []
    return list(json.loads(path.read_text())["values"].get("pending", []))


Route = Callable[[dict[str, Any]], Any]
