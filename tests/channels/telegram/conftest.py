"""Fixtures: the local Bot API server, and a real agent runtime whose Telegram channel talks
to it (the model is the scripted OpenAI-compatible server, through the real LiteLLM path)."""

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
from tests.channels.telegram.bot_api_server import TOKEN, BotApiServer
from tests.conftest import write_config
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import ScriptedOpenAIServer

CHAT = 4242


@pytest.fixture
async def api() -> AsyncIterator[BotApiServer]:
    """A running local Bot API server."""
    server = await BotApiServer().start()
    yield server
    await server.stop()


async def until(condition: Callable[[], Any], timeout: float = 30.0, what: str = "") -> None:
    """Wait until ``condition()`` is true (polled), or fail."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, f"not reached in {timeout} s: {what or condition}"
        await asyncio.sleep(0.01)


def config_file(
    tmp_path: Path,
    api: BotApiServer,
    *,
    telegram: dict[str, Any] | None = None,
    providers: dict[str, Any] | None = None,
) -> Path:
    """A config with the Telegram channel pointed at ``api``."""
    section = {
        "enabled": True,
        "token": TOKEN,
        "baseUrl": api.base_url,
        "allowFrom": ["*"],
        "reactEmoji": "",
        **(telegram or {}),
    }
    data = {
        "agents": {"defaults": {"workspace": str(tmp_path / "ws"), "timezone": "UTC"}},
        "channels": {"telegram": section},
        "providers": providers or {},
    }
    return write_config(tmp_path / "nanobot" / "config.json", data)


async def start_runtime(
    tmp_path: Path,
    api: BotApiServer,
    model: ScriptedOpenAIServer,
    *,
    approval: ApprovalPolicy | None = None,
    clock: Any = None,
    **sections: Any,
) -> Runtime:
    """Build and start a runtime whose Telegram channel is connected to ``api``."""
    config = load_config(config_file(tmp_path, api, **sections))
    runtime = await asyncio.to_thread(
        build_runtime, config, make_provider(model.url), approval=approval, clock=clock
    )
    await runtime.start()
    await until(lambda: runtime.channels.status("telegram").ok, what="connected")
    return runtime


def user_text(body: dict[str, Any]) -> str:
    """What the person wrote, from a chat-completion request (the last user message)."""
    content = next(m for m in reversed(body["messages"]) if m["role"] == "user")["content"]
    if isinstance(content, list):
        content = " ".join(p.get("text", "") for p in content if p.get("type") == "text")
    return str(content).split(RUNTIME_CLOSE, 1)[-1].strip()


def echo(prefix: str = "echo: ") -> Callable[[dict[str, Any]], Any]:
    """A router for the scripted server that answers with the person's text."""
    from tests.fakes.openai_server import Reply

    def route(body: dict[str, Any]) -> Any:
        return Reply(prefix + user_text(body))

    return route


def session_lines(runtime: Runtime, key: str) -> list[dict[str, Any]]:
    """The messages of a session file (without the metadata line)."""
    path = runtime.sessions.path_for(key)
    return [json.loads(line) for line in path.read_text().splitlines()][1:]
