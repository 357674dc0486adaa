"""Fixtures: the local Bot API server, and a real agent runtime whose Telegram channel talks
to it (the model is the scripted OpenAI-compatible server, through the real LiteLLM path)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from desktop.core.agent.approval import ApprovalPolicy
from desktop.core.assembly import build_runtime
from desktop.core.config.loader import load_config
from desktop.core.runtime import Runtime
from tests.channels.harness import echo as echo  # re-exported: shared
from tests.channels.harness import session_lines as session_lines
from tests.channels.harness import until as until
from tests.channels.harness import user_text as user_text
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
    # Quick reconnects and send retries (the app's start at 1 s): the tests are about what
    # is resent, not how long the app waits first.
    runtime.channels.backoff = (0.2, 0.4, 0.8)
    runtime.channels.send_delays = (0.3, 1.0)
    await runtime.start()
    await until(lambda: runtime.channels.status("telegram").ok, what="connected")
    return runtime
