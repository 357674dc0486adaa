"""Fixtures: a real agent runtime whose WebSocket channel listens on a free local port (the
model is the scripted OpenAI-compatible server, through the real LiteLLM path), and a
``websockets`` client speaking nanobot 0.3.5's protocol to it."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from desktop.core.agent.approval import ApprovalPolicy
from desktop.core.agent.context import RUNTIME_CLOSE
from desktop.core.assembly import build_runtime
from desktop.core.config.loader import load_config
from desktop.core.runtime import Runtime
from tests.conftest import write_config
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.waiting import until

SECRET = "s3cret-login-word"


def free_port() -> int:
    """A port nobody listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def config_file(tmp_path: Path, **section: Any) -> Path:
    """A config with the WebSocket channel enabled on a free port (``section`` overrides)."""
    data = {
        "agents": {"defaults": {"workspace": str(tmp_path / "ws"), "timezone": "UTC"}},
        "channels": {"websocket": {"enabled": True, "port": free_port(), **section}},
    }
    return write_config(tmp_path / "nanobot" / "config.json", data)


async def start_runtime(
    tmp_path: Path,
    model: ScriptedOpenAIServer,
    *,
    approval: ApprovalPolicy | None = None,
    connected: bool = True,
    **section: Any,
) -> Runtime:
    """Build and start a runtime whose WebSocket channel listens."""
    path = tmp_path / "nanobot" / "config.json"
    if not path.exists() or section:
        config_file(tmp_path, **section)
    config = load_config(path)
    runtime = await asyncio.to_thread(
        build_runtime, config, make_provider(model.url), approval=approval
    )
    await runtime.start()
    if connected:
        await until(lambda: runtime.channels.status("websocket").ok, what="listening")
    return runtime


def url_of(runtime: Runtime, scheme: str = "ws") -> str:
    """The channel's base URL (``ws://127.0.0.1:<port>``)."""
    section = runtime.config.channels.websocket
    return f"{scheme}://127.0.0.1:{section.port}"


def user_text(body: dict[str, Any]) -> str:
    """What the person wrote, from a chat-completion request (the last user message)."""
    content = next(m for m in reversed(body["messages"]) if m["role"] == "user")["content"]
    if isinstance(content, list):
        content = " ".join(p.get("text", "") for p in content if p.get("type") == "text")
    return str(content).split(RUNTIME_CLOSE, 1)[-1].strip()


def echo(prefix: str = "echo: ", **reply: Any) -> Callable[[dict[str, Any]], Any]:
    """A router for the scripted server that answers with the person's text."""

    def route(body: dict[str, Any]) -> Any:
        return Reply(prefix + user_text(body), **reply)

    return route


class Client:
    """A WebSocket client of the channel that records every event it gets."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.events: list[dict[str, Any]] = []
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                self.events.append(json.loads(raw))
        except Exception:  # noqa: BLE001 - the connection ended; the test looks at events
            return

    @classmethod
    async def open(cls, url: str, **kwargs: Any) -> Client:
        """Connect and wait for ``ready``."""
        client = cls(await connect(url, **kwargs))
        await until(lambda: client.of("ready"), what="ready")
        return client

    @property
    def default_chat(self) -> str:
        """The chat of the ``ready`` event."""
        return str(self.of("ready")[0]["chat_id"])

    def of(self, event: str, chat_id: str | None = None) -> list[dict[str, Any]]:
        """Events named ``event`` (in ``chat_id`` when given)."""
        return [
            e
            for e in self.events
            if e.get("event") == event and (chat_id is None or e.get("chat_id") == chat_id)
        ]

    async def send(self, **envelope: Any) -> None:
        """Send a typed envelope."""
        await self.ws.send(json.dumps(envelope))

    async def close(self) -> None:
        """Close and stop reading."""
        await self.ws.close()
        await self._reader
