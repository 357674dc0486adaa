"""Fixtures: the local signal-cli daemon, and a real agent runtime whose Signal channel talks
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
from tests.channels.signal.daemon import ACCOUNT, ALICE, SignalDaemon
from tests.conftest import write_config
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.waiting import until

__all__ = ["until"]


@pytest.fixture
async def daemon(tmp_path: Path) -> AsyncIterator[SignalDaemon]:
    """A running local signal-cli daemon."""
    server = await SignalDaemon(tmp_path / "signal-cli" / "attachments").start()
    yield server
    await server.stop()


def section(daemon: SignalDaemon, **signal: Any) -> dict[str, Any]:
    """The ``channels.signal`` section pointed at ``daemon`` (Alice may write directly)."""
    return {
        "enabled": True,
        "phoneNumber": ACCOUNT,
        "daemonHost": "127.0.0.1",
        "daemonPort": daemon.port,
        "attachmentsDir": str(daemon.attachments),
        "dm": {"enabled": True, "policy": "allowlist", "allowFrom": [ALICE]},
        **signal,
    }


async def start_runtime(
    tmp_path: Path,
    daemon: SignalDaemon,
    model: ScriptedOpenAIServer,
    *,
    approval: ApprovalPolicy | None = None,
    raw: dict[str, Any] | None = None,
    **signal: Any,
) -> Runtime:
    """Build and start a runtime whose Signal channel listens to ``daemon``."""
    data = {
        "agents": {"defaults": {"workspace": str(tmp_path / "ws"), "timezone": "UTC"}},
        "channels": {"signal": raw if raw is not None else section(daemon, **signal)},
    }
    config = load_config(write_config(tmp_path / "nanobot" / "config.json", data))
    runtime = await asyncio.to_thread(
        build_runtime, config, make_provider(model.url), approval=approval
    )
    # Quick reconnects and send retries (the app's start at 1 s): the tests are about what
    # is resent, not how long the app waits first.
    runtime.channels.backoff = (0.2, 0.4, 0.8)
    runtime.channels.send_delays = (0.3, 1.0)
    await runtime.start()
    await until(lambda: runtime.channels.status("signal").ok, what="connected")
    await until(lambda: daemon.listening, what="subscribed to the events")
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
    path = tmp_path / "nanobot" / "channel-state" / "signal.json"
    if not path.exists():
        return []
    return list(json.loads(path.read_text())["values"].get("pending", []))
