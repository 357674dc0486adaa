"""Fixtures: local Microsoft login, Bot Framework and Connector services, and a real agent
runtime whose Teams channel serves its endpoint on a local port (the model is the scripted
OpenAI-compatible server, through the real LiteLLM path)."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from desktop.core.agent.approval import ApprovalPolicy
from desktop.core.assembly import build_runtime
from desktop.core.config.loader import load_config
from desktop.core.runtime import Runtime
from tests.channels.msteams.server import (
    APP_ID,
    APP_PASSWORD,
    BotFrameworkServer,
    LoginServer,
    self_signed,
)
from tests.channels.telegram.conftest import echo, user_text
from tests.conftest import write_config
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.waiting import until

__all__ = ["echo", "until", "user_text"]


@dataclass
class Microsoft:
    """The local Microsoft services, and the port the bot's endpoint listens on."""

    login: LoginServer
    bot_framework: BotFrameworkServer
    port: int

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/messages"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
async def microsoft(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Microsoft]:
    """The running services; MSAL (requests) trusts the login server's certificate."""
    cert, key = await asyncio.to_thread(self_signed, tmp_path)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(cert))
    login = await LoginServer(cert, key).start()
    bot_framework = await BotFrameworkServer().start()
    yield Microsoft(login, bot_framework, free_port())
    await bot_framework.stop()
    await login.stop()


def section(services: Microsoft, **extra: Any) -> dict[str, Any]:
    """The channel's settings, pointed at the local services."""
    return {
        "enabled": True,
        "appId": APP_ID,
        "appPassword": APP_PASSWORD,
        "host": "127.0.0.1",
        "port": services.port,
        "allowFrom": ["*"],
        "trustedServiceUrlHosts": ["127.0.0.1"],
        "openIdMetadataUrl": services.bot_framework.metadata_url,
        "loginUrl": services.login.url,
        **extra,
    }


async def start_runtime(
    tmp_path: Path,
    services: Microsoft,
    model: ScriptedOpenAIServer,
    *,
    approval: ApprovalPolicy | None = None,
    connected: bool = True,
    raw_section: dict[str, Any] | None = None,
    **extra: Any,
) -> Runtime:
    """Build and start a runtime whose Teams channel uses the local services."""
    data = {
        "agents": {"defaults": {"workspace": str(tmp_path / "ws"), "timezone": "UTC"}},
        "channels": {"msteams": raw_section or section(services, **extra)},
    }
    config = load_config(write_config(tmp_path / "nanobot" / "config.json", data))
    runtime = await asyncio.to_thread(
        build_runtime, config, make_provider(model.url), approval=approval
    )
    await runtime.start()
    if connected:
        await until(lambda: runtime.channels.status("msteams").ok, what="listening")
    return runtime


def journal(tmp_path: Path) -> list[dict[str, Any]]:
    """The Teams channel's journal as saved."""
    path = tmp_path / "nanobot" / "channel-state" / "msteams.json"
    if not path.exists():
        return []
    return list(json.loads(path.read_text())["values"].get("pending", []))
