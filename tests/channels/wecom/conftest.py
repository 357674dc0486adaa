"""Fixtures: the local WeCom server, and a real agent runtime whose WeCom channel (the real bot
SDK) talks to it (the model is the scripted OpenAI-compatible server, through LiteLLM)."""

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
from tests.channels.telegram.conftest import echo, until, user_text
from tests.channels.wecom.server import BOT_ID, SECRET, WecomServer
from tests.conftest import write_config
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import ScriptedOpenAIServer

__all__ = ["echo", "until", "user_text"]


@pytest.fixture
async def wecom() -> AsyncIterator[WecomServer]:
    """A running local WeCom server."""
    server = await WecomServer().start()
    yield server
    await server.stop()


def config_file(tmp_path: Path, server: WecomServer, **section: Any) -> Path:
    """A config with the WeCom channel pointed at ``server``."""
    data = {
        "agents": {"defaults": {"workspace": str(tmp_path / "ws"), "timezone": "UTC"}},
        "channels": {
            "wecom": {
                "enabled": True,
                "botId": BOT_ID,
                "secret": SECRET,
                "allowFrom": ["*"],
                "wsUrl": server.ws_url,
                **section,
            }
        },
    }
    return write_config(tmp_path / "nanobot" / "config.json", data)


async def start_runtime(
    tmp_path: Path,
    server: WecomServer,
    model: ScriptedOpenAIServer,
    *,
    approval: ApprovalPolicy | None = None,
    connected: bool = True,
    **section: Any,
) -> Runtime:
    """Build and start a runtime whose WeCom channel is connected to ``server``."""
    config = load_config(config_file(tmp_path, server, **section))
    runtime = await asyncio.to_thread(
        build_runtime, config, make_provider(model.url), approval=approval
    )
    await runtime.start()
    if connected:
        await until(lambda: runtime.channels.status("wecom").ok, what="connected")
    return runtime


def state_file(tmp_path: Path) -> dict[str, Any]:
    """The WeCom channel's state file."""
    path = tmp_path / "nanobot" / "channel-state" / "wecom.json"
    return dict(json.loads(path.read_text())["values"]) if path.exists() else {}
