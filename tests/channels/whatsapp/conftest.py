"""Fixtures: the local WhatsApp bridge, and a real agent runtime whose WhatsApp channel talks
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
from tests.channels.whatsapp.bridge_server import TOKEN, BridgeServer
from tests.conftest import write_config
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


@pytest.fixture
async def bridge() -> AsyncIterator[BridgeServer]:
    """A running local bridge."""
    server = await BridgeServer().start()
    yield server
    await server.stop()


async def until(condition: Callable[[], Any], timeout: float = 30.0, what: str = "") -> None:
    """Wait until ``condition()`` is true (polled), or fail."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, f"not reached in {timeout} s: {what or condition}"
        await asyncio.sleep(0.01)


def config_file(tmp_path: Path, bridge: BridgeServer, **whatsapp: Any) -> Path:
    """A config with the WhatsApp channel pointed at ``bridge``."""
    section = {
        "enabled": True,
        "bridgeUrl": bridge.url,
        "bridgeToken": TOKEN,
        "allowFrom": ["*"],
        **whatsapp,
    }
    data = {
        "agents": {"defaults": {"workspace": str(tmp_path / "ws"), "timezone": "UTC"}},
        "channels": {"whatsapp": section},
    }
    return write_config(tmp_path / "nanobot" / "config.json", data)


async def start_runtime(
    tmp_path: Path,
    bridge: BridgeServer,
    model: ScriptedOpenAIServer,
    *,
    approval: ApprovalPolicy | None = None,
    clock: Any = None,
    connected: bool = True,
    **whatsapp: Any,
) -> Runtime:
    """Build and start a runtime whose WhatsApp channel is connected to ``bridge``."""
    config = load_config(config_file(tmp_path, bridge, **whatsapp))
    runtime = await asyncio.to_thread(
        build_runtime, config, make_provider(model.url), approval=approval, clock=clock
    )
    await runtime.start()
    if connected:
        await until(lambda: runtime.channels.status("whatsapp").ok, what="connected")
        await until(lambda: bridge.clients, what="authenticated at the bridge")
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


def session_lines(runtime: Runtime, key: str) -> list[dict[str, Any]]:
    """The messages of a session file (without the metadata line)."""
    path = runtime.sessions.path_for(key)
    return [json.loads(line) for line in path.read_text().splitlines()][1:]


def journal(tmp_path: Path) -> list[dict[str, Any]]:
    """The channel's journal of messages not yet saved by the agent."""
    path = tmp_path / "nanobot" / "channel-state" / "whatsapp.json"
    if not path.exists():
        return []
    return list(json.loads(path.read_text())["values"].get("pending", []))
