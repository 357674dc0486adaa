"""Ctrl+N from any tab puts the cursor in the composer of a new chat (issue 9 C)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop.app import build_main_window, install_tabs
from desktop.core.assembly import build_runtime
from desktop.core.config.loader import ConfigOrigin, save_config
from desktop.core.config.schema import Config
from desktop.core.config.secrets import SecretStore
from desktop.core.providers.litellm_provider import import_litellm
from desktop.ui.chat.chat_tab import ChatTab
from desktop.ui.services import AppServices
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.ui.conftest import run_async


def test_ctrl_n_from_any_tab_focuses_the_composer(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    tmp_path: Path,
    scripted_server: ScriptedOpenAIServer,
) -> None:
    (tmp_path / "ws").mkdir()
    config = Config.model_validate(
        {
            "agents": {
                "defaults": {"workspace": str(tmp_path / "ws"), "provider": "custom", "model": "m"}
            },
            "providers": {"custom": {"apiBase": scripted_server.url}},  # no onboarding
        }
    )
    config._origin = ConfigOrigin(save_config(config, tmp_path / "config.json"), existed=True)
    services = AppServices(config, tmp_path / "config.json", SecretStore())
    window = build_main_window()
    install_tabs(window, services)
    import_litellm()
    runtime = build_runtime(config, make_provider(scripted_server.url))
    run_async(qtbot, qloop, runtime.start())
    services.set_runtime(runtime)
    window.show()
    window.activateWindow()
    qtbot.waitExposed(window)
    qtbot.waitUntil(window.isActiveWindow)
    chat = window.tab("chat")
    assert isinstance(chat, ChatTab)
    qtbot.waitUntil(lambda: bool(chat.current))
    try:
        for tab in ("settings", "memory", "skills", "chat"):
            chat.pane.composer.edit.setPlainText("hello")
            chat.pane.composer.submit()  # the open chat is not empty: Ctrl+N makes a new one
            qtbot.waitUntil(lambda: not chat.state.sent and not chat.state.live, timeout=10_000)
            window.show_tab(tab)
            window.tab(tab).setFocus()
            before = chat.current
            QTest.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
            qtbot.waitUntil(lambda: window.current_tab_key() == "chat")

            def moved(b: str = before) -> bool:
                return chat.current != b

            qtbot.waitUntil(moved)
            qtbot.waitUntil(lambda: QApplication.focusWidget() is chat.pane.composer.edit)
    finally:
        run_async(qtbot, qloop, services.aclose_tabs())
        run_async(qtbot, qloop, runtime.stop())
        window.allow_close()
        window.close()
        window.deleteLater()  # with its popups (combo lists, menus)
