"""The app's start (``AgentStarter``) puts a secret saved in the real keyring into effect.

The same check as ``tests/core/test_start_secrets.py`` makes for ``agent -m``, ``cron run``
and the gateway: the web-search key is stored in the real Secret Service only; the scripted
model asks for ``web_search``, and the tool's result (repeated by the model) says it went to
Brave Search, which it does only with the key. Web traffic goes to a refusing loopback port.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.config.secrets import SERVICE_ENV
from desktop.ui.startup import AgentStarter
from tests.core.test_start_secrets import (
    KEY,
    _check,
    _config,
    _route,
    refusing_port,
    stored_key,
)
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.ui.conftest import run_async

__all__ = ["refusing_port", "stored_key"]  # fixtures, used by name

pytestmark = [pytest.mark.keyring_real, pytest.mark.usefixtures("qloop")]


def test_the_app_start_uses_the_stored_key(
    stored_key: str,
    scripted_server: ScriptedOpenAIServer,
    refusing_port: int,
    tmp_path: Path,
    isolated_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
) -> None:
    monkeypatch.setenv(SERVICE_ENV, stored_key)  # the app's SecretStore() uses this service
    scripted_server.route = _route
    starter = AgentStarter(Path(_config(tmp_path, scripted_server, refusing_port)))
    try:
        with qtbot.waitSignal(starter.agentReady, timeout=60_000):
            starter.start()
        runtime = starter.runtime
        assert runtime is not None
        answer = run_async(qtbot, qloop, runtime.agent.process_direct("search"), timeout_ms=60_000)
    finally:
        run_async(qtbot, qloop, starter.stop(), timeout_ms=30_000)
    _check(answer)
    assert KEY not in (tmp_path / "config" / "config.json").read_text()
