"""Fixtures: the local Mochat server, and a real agent runtime whose Mochat channel talks to it
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
from tests.channels.harness import echo as echo  # re-exported: shared
from tests.channels.harness import until as until
from tests.channels.harness import user_text as user_text
from tests.channels.mochat.server import AGENT, TOKEN, MochatServer
from tests.conftest import write_config
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import ScriptedOpenAIServer

SESSION = "session_alice"
PANEL = "panel-general"


@pytest.fixture
async def mochat() -> AsyncIterator[MochatServer]:
    """A running local Mochat server."""
    server = await MochatServer().start()
    server.add_session(SESSION)
    yield server
    await server.stop()


def config_file(
    tmp_path: Path, server: MochatServer, *, channels: dict[str, Any] | None = None, **section: Any
) -> Path:
    """A config with the Mochat channel pointed at ``server`` (``channels``: settings shared
    by every channel, such as ``sendToolHints``)."""
    data = {
        "agents": {"defaults": {"workspace": str(tmp_path / "ws"), "timezone": "UTC"}},
        "channels": {
            "mochat": {
                "enabled": True,
                "baseUrl": server.url,
                "clawToken": TOKEN,
                "agentUserId": AGENT,
                "sessions": [SESSION],
                "panels": [PANEL],
                "allowFrom": ["*"],
                "replyDelayMode": "off",
                **section,
            },
            **(channels or {}),
        },
    }
    return write_config(tmp_path / "nanobot" / "config.json", data)


async def start_runtime(
    tmp_path: Path,
    server: MochatServer,
    model: ScriptedOpenAIServer,
    *,
    approval: ApprovalPolicy | None = None,
    clock: Any = None,
    connected: bool = True,
    channels: dict[str, Any] | None = None,
    **section: Any,
) -> Runtime:
    """Build and start a runtime whose Mochat channel is connected to ``server``."""
    config = load_config(config_file(tmp_path, server, channels=channels, **section))
    runtime = await asyncio.to_thread(
        build_runtime, config, make_provider(model.url), approval=approval, clock=clock
    )
    await runtime.start()
    if connected:
        await until(lambda: runtime.channels.status("mochat").ok, what="connected")
    return runtime


def state_file(tmp_path: Path) -> dict[str, Any]:
    """The Mochat channel's state file."""
    path = tmp_path / "nanobot" / "channel-state" / "mochat.json"
    return dict(json.loads(path.read_text())["values"]) if path.exists() else {}
