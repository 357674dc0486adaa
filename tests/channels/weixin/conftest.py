"""Fixtures: the local iLink server, and a real agent runtime whose WeChat channel talks to it
(the model is the scripted OpenAI-compatible server, through LiteLLM)."""

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
from tests.channels.weixin.server import BOT, TOKEN, IlinkServer
from tests.conftest import write_config
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import ScriptedOpenAIServer

__all__ = ["echo", "until", "user_text"]
ALICE = "alice@im.wechat"


@pytest.fixture
async def ilink() -> AsyncIterator[IlinkServer]:
    """A running local iLink server."""
    server = await IlinkServer().start()
    yield server
    await server.stop()


def account_file(tmp_path: Path) -> Path:
    """nanobot's account.json beside the test config."""
    return tmp_path / "nanobot" / "weixin" / "account.json"


def logged_in(tmp_path: Path, server: IlinkServer, **values: Any) -> None:
    """An account.json as nanobot 0.3.5 writes it after a login."""
    path = account_file(tmp_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"token": TOKEN, "get_updates_buf": "", "context_tokens": {}, "typing_tickets": {},
            "base_url": server.url, **values}  # fmt: skip
    path.write_text(json.dumps(data))


def config_file(tmp_path: Path, server: IlinkServer, **section: Any) -> Path:
    data = {
        "agents": {"defaults": {"workspace": str(tmp_path / "ws"), "timezone": "UTC"}},
        "channels": {
            "weixin": {"enabled": True, "allowFrom": ["*"], "baseUrl": server.url, **section}
        },
    }
    return write_config(tmp_path / "nanobot" / "config.json", data)


async def start_runtime(
    tmp_path: Path,
    server: IlinkServer,
    model: ScriptedOpenAIServer,
    *,
    approval: ApprovalPolicy | None = None,
    connected: bool = True,
    **section: Any,
) -> Runtime:
    config = load_config(config_file(tmp_path, server, **section))
    runtime = await asyncio.to_thread(
        build_runtime, config, make_provider(model.url), approval=approval
    )
    await runtime.start()
    if connected:
        await until(lambda: runtime.channels.status("weixin").ok, what="connected")
    return runtime


__all__ += ["BOT", "TOKEN"]
