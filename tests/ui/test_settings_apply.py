"""Saved settings reach the running agent without a needless reconnect (issue 9 B).

The real start-up path (AgentStarter: config file, keyring, provider, runtime) on the scripted
server; the window's tabs installed as the app does.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from pytestqt.qtbot import QtBot

from desktop.app import build_main_window, install_tabs
from desktop.ui.settings import SettingsTab
from desktop.ui.startup import AgentStarter
from tests.conftest import custom_config
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.ui.conftest import run_async
from tests.ui.settings.pages import widget_as


def test_model_changes_switch_live_and_only_wiring_changes_ask_to_reconnect(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    tmp_path: Path,
    scripted_server: ScriptedOpenAIServer,
    memory_keyring: object,
) -> None:
    path = custom_config(tmp_path, scripted_server.url, model="model-a")
    starter = AgentStarter(path)
    window = build_main_window()
    try:
        starter.configLoaded.connect(lambda services: install_tabs(window, services))
        starter.start()
        qtbot.waitUntil(
            lambda: bool(starter.services is not None and starter.services.runtime), timeout=20_000
        )
        services = starter.services
        assert services is not None and services.runtime is not None
        runtime = services.runtime
        first = runtime.provider.current

        services.config.agents.defaults.model = "model-b"
        services.config.agents.defaults.temperature = 0.6
        run_async(qtbot, qloop, services.save_config())
        qtbot.waitUntil(lambda: runtime.provider.current is not first, timeout=10_000)
        assert runtime.provider.model.endswith("model-b")
        assert window.banner("restart") is None  # no reconnect for a model change
        assert services.runtime is runtime  # nothing was rebuilt, nothing stopped

        second = runtime.provider.current
        services.config.tools.exec.timeout = 7  # baked into the exec tool at start
        run_async(qtbot, qloop, services.save_config())
        qtbot.waitUntil(lambda: window.banner("restart") is not None, timeout=5_000)
        assert runtime.provider.current is second

        settings = widget_as(window.tab("settings"), SettingsTab)
        settings.keyChanged.emit("custom")  # the key of the provider in use
        qtbot.waitUntil(lambda: runtime.provider.current is not second, timeout=10_000)
    finally:
        if starter.services is not None:
            run_async(qtbot, qloop, starter.services.aclose_tabs())
        run_async(qtbot, qloop, starter.stop(), timeout_ms=20_000)
        window.allow_close()
        window.close()
        window.deleteLater()  # with its popups (combo lists, menus)
