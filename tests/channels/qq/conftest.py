"""Fixtures: the local QQ platform, and a real agent runtime whose QQ channel talks to it (the
model is the scripted OpenAI-compatible server, through the real LiteLLM path).

botpy has no setting for its API host or token address: the test points botpy's ``Route``
constants (``SCHEME``, ``DOMAIN``) and the channel's ``TOKEN_URL`` at the local server, and
lets attachments come from 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from botpy.http import Route

from desktop.core.agent.approval import ApprovalPolicy
from desktop.core.assembly import build_runtime
from desktop.core.channels.qq import client
from desktop.core.channels.qq.channel import QQChannel
from desktop.core.config.loader import load_config
from desktop.core.runtime import Runtime
from tests.channels.harness import echo as echo  # re-exported: shared
from tests.channels.harness import until as until
from tests.channels.harness import user_text as user_text
from tests.channels.qq.qq_server import APP_ID, SECRET, QQServer
from tests.conftest import write_config
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import ScriptedOpenAIServer

USER = "E4F4AEA33253A2797FB897C50B81D7ED"


@pytest.fixture
async def qq(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[QQServer]:
    """A running local QQ platform with botpy and the channel pointed at it."""
    server = await QQServer().start()
    monkeypatch.setattr(Route, "SCHEME", "http")
    monkeypatch.setattr(Route, "DOMAIN", server.host)
    monkeypatch.setattr(client, "TOKEN_URL", f"http://{server.host}/app/getAppAccessToken")
    monkeypatch.setattr(QQChannel, "media_hosts", ("127.0.0.1",))
    yield server
    await server.stop()


def config_file(tmp_path: Path, qq_section: dict[str, Any] | None = None) -> Path:
    """A config with the QQ channel enabled."""
    section = {
        "enabled": True,
        "appId": APP_ID,
        "secret": SECRET,
        "allowFrom": ["*"],
        "ackMessage": "",
        **(qq_section or {}),
    }
    data = {
        "agents": {"defaults": {"workspace": str(tmp_path / "ws"), "timezone": "UTC"}},
        "channels": {"qq": section, "sendProgress": False, "sendToolHints": False},
        "providers": {},
    }
    return write_config(tmp_path / "nanobot" / "config.json", data)


async def start_runtime(
    tmp_path: Path,
    model: ScriptedOpenAIServer,
    *,
    qq: dict[str, Any] | None = None,
    approval: ApprovalPolicy | None = None,
    wait: bool = True,
) -> Runtime:
    """Build and start a runtime whose QQ channel connects to the local platform."""
    config = load_config(config_file(tmp_path, qq))
    runtime = await asyncio.to_thread(
        build_runtime, config, make_provider(model.url), approval=approval
    )
    await runtime.start()
    if wait:
        await until(lambda: runtime.channels.status("qq").ok, what="connected")
    return runtime


def state(tmp_path: Path) -> dict[str, Any]:
    """The channel's state file."""
    path = tmp_path / "nanobot" / "channel-state" / "qq.json"
    return dict(json.loads(path.read_text())["values"]) if path.exists() else {}
