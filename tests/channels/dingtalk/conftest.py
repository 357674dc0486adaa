"""Fixtures: the local DingTalk, and a real agent runtime whose DingTalk channel talks to it
(the model is the scripted OpenAI-compatible server, through the real LiteLLM path)."""

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
from tests.channels.dingtalk.server import CLIENT_ID, CLIENT_SECRET, DingTalkServer
from tests.conftest import write_config
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.waiting import until as until


@pytest.fixture
async def dingtalk() -> AsyncIterator[DingTalkServer]:
    """A running local DingTalk."""
    server = await DingTalkServer().start()
    yield server
    await server.stop()


def config_file(tmp_path: Path, server: DingTalkServer, **section: Any) -> Path:
    """A config with the DingTalk channel pointed at ``server``."""
    data = {
        "agents": {"defaults": {"workspace": str(tmp_path / "ws"), "timezone": "UTC"}},
        "channels": {
            "dingtalk": {
                "enabled": True,
                "clientId": CLIENT_ID,
                "clientSecret": CLIENT_SECRET,
                "allowFrom": ["*"],
                "baseUrl": server.base_url,
                "oapiUrl": server.base_url,
                **section,
            }
        },
    }
    return write_config(tmp_path / "nanobot" / "config.json", data)


async def start_runtime(
    tmp_path: Path,
    server: DingTalkServer,
    model: ScriptedOpenAIServer,
    *,
    approval: ApprovalPolicy | None = None,
    connected: bool = True,
    **section: Any,
) -> Runtime:
    """Build and start a runtime whose DingTalk channel connects to ``server``."""
    config = load_config(config_file(tmp_path, server, **section))
    runtime = await asyncio.to_thread(
        build_runtime, config, make_provider(model.url), approval=approval
    )
    await runtime.start()
    if connected:
        await until(lambda: runtime.channels.status("dingtalk").ok, what="connected")
        await until(lambda: server.connected, what="the stream is open")
    return runtime


def state_values(tmp_path: Path) -> dict[str, Any]:
    """The channel's saved state values."""
    path = tmp_path / "nanobot" / "channel-state" / "dingtalk.json"
    if not path.exists():
        return {}
    return dict(json.loads(path.read_text())["values"])
