"""Fixtures: the local NapCat (OneBot v11) server, and a real agent runtime whose NapCat
channel talks to it (the model is the scripted OpenAI-compatible server, through the real
LiteLLM path)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from desktop.core.agent.approval import ApprovalPolicy
from desktop.core.agent.context import RUNTIME_CLOSE
from desktop.core.assembly import build_runtime
from desktop.core.config.loader import load_config
from desktop.core.runtime import Runtime
from tests.channels.napcat.onebot_server import ALICE, TOKEN, OneBotServer
from tests.conftest import write_config
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.waiting import until

__all__ = ["until"]
PRIVATE = f"private:{ALICE}"


@pytest.fixture
async def napcat() -> AsyncIterator[OneBotServer]:
    """A running local NapCat."""
    server = await OneBotServer().start()
    yield server
    await server.stop()


def section(server: OneBotServer, **napcat: Any) -> dict[str, Any]:
    """The ``channels.napcat`` section pointed at ``server`` (Alice may write)."""
    return {
        "enabled": True,
        "wsUrl": server.url,
        "accessToken": TOKEN,
        "allowFrom": [str(ALICE)],
        **napcat,
    }


async def start_runtime(
    tmp_path: Path,
    server: OneBotServer,
    model: ScriptedOpenAIServer | None,
    *,
    approval: ApprovalPolicy | None = None,
    raw: dict[str, Any] | None = None,
    connected: bool = True,
    **napcat: Any,
) -> Runtime:
    """Build and start a runtime whose NapCat channel is connected to ``server``."""
    data = {
        "agents": {"defaults": {"workspace": str(tmp_path / "ws"), "timezone": "UTC"}},
        "channels": {"napcat": raw if raw is not None else section(server, **napcat)},
    }
    config = load_config(write_config(tmp_path / "nanobot" / "config.json", data))
    url = model.url if model is not None else "http://127.0.0.1:9"
    runtime = await asyncio.to_thread(build_runtime, config, make_provider(url), approval=approval)
    # Quick reconnects and send retries (the app's start at 1 s): the tests are about what
    # is resent, not how long the app waits first.
    runtime.channels.backoff = (0.2, 0.4, 0.8)
    runtime.channels.send_delays = (0.3, 1.0)
    await runtime.start()
    if connected:
        await until(lambda: runtime.channels.status("napcat").ok, what="connected")
    return runtime


def user_text(body: dict[str, Any]) -> str:
    """What the person wrote, from a chat-completion request (the last user message)."""
    content = next(m for m in reversed(body["messages"]) if m["role"] == "user")["content"]
    if isinstance(content, list):
        content = " ".join(p.get("text", "") for p in content if p.get("type") == "text")
    return str(content).split(RUNTIME_CLOSE, 1)[-1].strip()


def echo(prefix: str = "echo: ") -> Callable[[dict[str, Any]], Any]:
    """A router for the scripted server that answers with the person's text."""

    def route(body: dict[str, Any]) -> Any:
        return Reply(prefix + user_text(body))

    return route


def journal(tmp_path: Path) -> list[dict[str, Any]]:
    """The channel's journal of messages not yet saved by the agent."""
    path = tmp_path / "nanobot" / "channel-state" / "napcat.json"
    if not path.exists():
        return []
    return list(json.loads(path.read_text())["values"].get("pending", []))
