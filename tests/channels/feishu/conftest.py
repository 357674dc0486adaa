"""Fixtures: the local Feishu platform, and a real agent runtime whose Feishu channel talks
to it (the model is the scripted OpenAI-compatible server, through the real LiteLLM path)."""

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
from tests.channels.feishu.feishu_server import APP_ID, APP_SECRET, FeishuServer
from tests.channels.harness import echo, until, user_text
from tests.conftest import write_config
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import ScriptedOpenAIServer

__all__ = ["CHAT", "USER", "echo", "start_runtime", "until", "user_text"]

CHAT = "oc_chat_0001"
USER = "ou_user_0001"


@pytest.fixture
async def feishu() -> AsyncIterator[FeishuServer]:
    """A running local Feishu platform."""
    server = await FeishuServer().start()
    yield server
    await server.stop()


def section(server: FeishuServer, **overrides: Any) -> dict[str, Any]:
    """A ``channels.feishu`` section pointed at ``server``."""
    return {
        "enabled": True,
        "appId": APP_ID,
        "appSecret": APP_SECRET,
        "baseUrl": server.base_url,
        "allowFrom": ["*"],
        "reactEmoji": "",
        **overrides,
    }


def config_file(
    tmp_path: Path, server: FeishuServer, channels: dict[str, Any] | None = None, **overrides: Any
) -> Path:
    """A config whose only channel is Feishu, pointed at ``server`` (``channels``: settings
    shared by all channels, like ``sendToolHints``)."""
    data = {
        "agents": {"defaults": {"workspace": str(tmp_path / "ws"), "timezone": "UTC"}},
        "channels": {**(channels or {}), "feishu": section(server, **overrides)},
        "providers": {},
    }
    return write_config(tmp_path / "nanobot" / "config.json", data)


async def start_runtime(
    tmp_path: Path,
    server: FeishuServer,
    model: ScriptedOpenAIServer,
    *,
    approval: ApprovalPolicy | None = None,
    connected: bool = True,
    clock: Any = None,
    channels: dict[str, Any] | None = None,
    **overrides: Any,
) -> Runtime:
    """Build and start a runtime whose Feishu channel is connected to ``server``."""
    config = load_config(config_file(tmp_path, server, channels, **overrides))
    runtime = await asyncio.to_thread(
        build_runtime, config, make_provider(model.url), approval=approval, clock=clock
    )
    await runtime.start()
    if connected:
        await until(lambda: runtime.channels.status("feishu").ok, what="connected")
    return runtime


def journal(tmp_path: Path) -> list[dict[str, Any]]:
    """The channel's journal of messages not yet safe with the agent."""
    path = tmp_path / "nanobot" / "channel-state" / "feishu.json"
    if not path.exists():
        return []
    return list(json.loads(path.read_text())["values"].get("pending", []))
