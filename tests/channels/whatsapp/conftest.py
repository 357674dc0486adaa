"""Fixtures: the local WhatsApp bridge, and a real agent runtime whose WhatsApp channel talks
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
from desktop.core.channels.whatsapp.channel import WhatsAppChannel
from desktop.core.config.loader import load_config
from desktop.core.runtime import Runtime
from tests.channels.harness import echo as echo  # re-exported: shared
from tests.channels.harness import session_lines as session_lines
from tests.channels.harness import until as until
from tests.channels.harness import user_text as user_text
from tests.channels.whatsapp.bridge_server import TOKEN, BridgeServer
from tests.conftest import write_config
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import ScriptedOpenAIServer

FULL_AUTH_GRACE = WhatsAppChannel.auth_grace
"""The app's wait after the token for a refusal: tests that send a wrong token set it back."""


@pytest.fixture(autouse=True)
def _quick_auth_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    """Wait 0.05 s, not the app's 0.5 s, after the token for the bridge to refuse it. The
    local bridge accepts the right token, so the wait proves nothing there and only slowed
    every connect; a test that sends a wrong token sets :data:`FULL_AUTH_GRACE` back."""
    monkeypatch.setattr(WhatsAppChannel, "auth_grace", 0.05)


@pytest.fixture
async def bridge() -> AsyncIterator[BridgeServer]:
    """A running local bridge."""
    server = await BridgeServer().start()
    yield server
    await server.stop()


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
    # Quick reconnects and send retries (the app's start at 1 s): the tests are about what
    # is resent, not how long the app waits first.
    runtime.channels.backoff = (0.2, 0.4, 0.8)
    runtime.channels.send_delays = (0.3, 1.0)
    await runtime.start()
    if connected:
        await until(lambda: runtime.channels.status("whatsapp").ok, what="connected")
        await until(lambda: bridge.clients, what="authenticated at the bridge")
    return runtime


def journal(tmp_path: Path) -> list[dict[str, Any]]:
    """The channel's journal of messages not yet saved by the agent."""
    path = tmp_path / "nanobot" / "channel-state" / "whatsapp.json"
    if not path.exists():
        return []
    return list(json.loads(path.read_text())["values"].get("pending", []))
