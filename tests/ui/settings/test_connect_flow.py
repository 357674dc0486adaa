"""The Connect flow of a channel page (issue #27): Test connection → a plain result → Turn on;
a missing SDK offers to install its support first, showing the command, streaming its output,
then testing again by itself. And the "Telegram in under a minute" test: a person with a bot
token connects Telegram from an app that has never had it, with the keyboard only.

Real parts: the window (the app's own start-up path and wiring in the keyboard test), the
Telegram channel and its SDK against the local Bot API server of ``tests/channels/telegram``,
a real installer subprocess. The one stand-in: the install *command* of the first test is a
small Python program instead of pip (it writes the missing module where the app imports it),
because the real command would change the shared virtual environment; which command a source
install runs is checked on its own in ``tests/core/utils/test_extras.py``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import sys
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from desktop.app import build_main_window, install_tabs
from desktop.core.channels import registry
from desktop.core.utils.extras import InstallPlan
from desktop.ui.settings import SettingsTab
from desktop.ui.settings.channels_page import ChannelsPage
from desktop.ui.startup import AgentStarter
from tests.channels.telegram.bot_api_server import TOKEN, BotApiServer
from tests.conftest import REPO, custom_config, write_config
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.ui.conftest import run_async


def _lacking(monkeypatch: pytest.MonkeyPatch, module: str) -> str:
    """Make Telegram need ``module`` (missing until an install writes it); forgotten after."""
    info = registry.CHANNELS["telegram"]
    monkeypatch.setitem(
        registry.CHANNELS, "telegram", dataclasses.replace(info, requires=(*info.requires, module))
    )
    monkeypatch.delitem(sys.modules, module, raising=False)
    return info.install_hint


@pytest.fixture
def bot_api(qtbot: QtBot, qloop: asyncio.AbstractEventLoop) -> object:
    api = run_async(qtbot, qloop, BotApiServer().start())
    yield api
    run_async(qtbot, qloop, api.stop())


def _config(tmp_path: Path, server_url: str, api: BotApiServer) -> Path:
    """A working agent and a Telegram section that is off, with no token (as after install),
    its Bot API at the local server."""
    path = custom_config(tmp_path, server_url)
    import json

    data = json.loads(path.read_text(encoding="utf-8"))
    data["channels"] = {"telegram": {"enabled": False, "baseUrl": api.base_url}}
    return write_config(path, data)


def _tab_to(qtbot: QtBot, window: QWidget, target: QWidget, limit: int = 25) -> None:
    """Press Tab until ``target`` has the focus (keyboard only)."""
    for _ in range(limit):
        if window.focusWidget() is target:
            return
        focused = window.focusWidget()
        assert focused is not None
        QTest.keyClick(focused, Qt.Key.Key_Tab)
    raise AssertionError(f"Tab never reached {target.accessibleName()!r}")


def _press(widget: QWidget) -> None:
    """Space on the button that holds the window's focus (keyboard only)."""
    assert widget.window().focusWidget() is widget, widget.accessibleName()
    QTest.keyClick(widget, Qt.Key.Key_Space)


def test_a_missing_sdk_is_installed_tested_again_and_the_channel_turned_on(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    tmp_path: Path,
    scripted_server: ScriptedOpenAIServer,
    memory_keyring: object,
    bot_api: BotApiServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from desktop.core.config.loader import load_config
    from desktop.core.config.secrets import SecretStore
    from desktop.ui.services import AppServices

    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    missing = "nb_connect_flow_sdk_installed"
    _lacking(monkeypatch, missing)
    program = (
        "import pathlib, sys\n"
        "print('Collecting the Telegram SDK')\n"
        f"pathlib.Path(sys.argv[1], '{missing}.py').write_text('READY = True\\n')\n"
        "print('Successfully installed nb-connect-flow-sdk-1.0')\n"
    )
    plan = InstallPlan("telegram", (sys.executable, "-c", program, str(site)), REPO)
    monkeypatch.setattr("desktop.ui.settings.channel_form.install_plan", lambda extra: plan)

    path = _config(tmp_path, scripted_server.url, bot_api)
    services = AppServices(load_config(path), path, SecretStore("nanobot-desktop-connect-flow"))
    tab = SettingsTab(services)
    qtbot.addWidget(tab)
    tab.resize(1000, 760)
    tab.show()
    tab.show_section("channels/telegram")
    page = tab.page("channels")
    assert isinstance(page, ChannelsPage)
    form = page.form("telegram")
    form.keys["token"].edit.setText(TOKEN)  # typed, not saved: the test uses it

    form.test_button.click()
    qtbot.waitUntil(lambda: form.steps.install_button.isVisible(), timeout=15_000)
    assert "needs a package that is not installed" in form.test_status.text()
    assert f"This runs: {plan.command}" == form.steps.command.text()
    assert not form.steps.enable_button.isVisible()

    form.steps.install_button.click()
    qtbot.waitUntil(lambda: "@" in form.test_status.text(), timeout=30_000)  # tested again
    assert form.test_status.kind == "ok", form.test_status.text()
    assert form.steps.transcript == [
        "Collecting the Telegram SDK",
        "Successfully installed nb-connect-flow-sdk-1.0",
    ]
    assert (site / f"{missing}.py").is_file()
    assert not form.steps.progress.isVisible() and not form.steps.install_button.isVisible()
    assert form.steps.enable_button.isVisible()  # the test worked and the channel is off

    form.steps.enable_button.click()
    qtbot.waitUntil(lambda: "is on" in form.test_status.text(), timeout=15_000)
    assert services.config.channels.telegram.enabled
    saved = load_config(path)
    assert saved.channels.telegram.enabled
    assert TOKEN not in path.read_text(encoding="utf-8")  # the token went to the keyring
    assert not page.dirty and not form.steps.isVisible()
    run_async(qtbot, qloop, services.aclose_tabs())


def test_a_failing_install_says_why_and_loses_nothing(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    tmp_path: Path,
    scripted_server: ScriptedOpenAIServer,
    memory_keyring: object,
    bot_api: BotApiServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from desktop.core.config.loader import load_config
    from desktop.core.config.secrets import SecretStore
    from desktop.ui.services import AppServices

    _lacking(monkeypatch, "nb_connect_flow_sdk_failing")
    program = "import sys\nprint('ERROR: No matching distribution found')\nsys.exit(1)\n"
    plan = InstallPlan("telegram", (sys.executable, "-c", program), REPO)
    monkeypatch.setattr("desktop.ui.settings.channel_form.install_plan", lambda extra: plan)
    path = _config(tmp_path, scripted_server.url, bot_api)
    before = path.read_text(encoding="utf-8")
    services = AppServices(load_config(path), path, SecretStore("nanobot-desktop-connect-flow"))
    tab = SettingsTab(services)
    qtbot.addWidget(tab)
    tab.show()
    tab.show_section("channels/telegram")
    page = tab.page("channels")
    assert isinstance(page, ChannelsPage)
    form = page.form("telegram")
    form.test_button.click()
    qtbot.waitUntil(lambda: form.steps.install_button.isVisible(), timeout=15_000)
    form.steps.install_button.click()
    qtbot.waitUntil(lambda: "install failed" in form.test_status.text(), timeout=30_000)
    assert "No matching distribution found" in form.test_status.text()
    assert form.test_button.isEnabled() and not form.steps.progress.isVisible()
    assert path.read_text(encoding="utf-8") == before
    run_async(qtbot, qloop, services.aclose_tabs())


def test_where_the_app_must_not_install_it_shows_the_command(
    qtbot: QtBot,
    tmp_path: Path,
    qloop: asyncio.AbstractEventLoop,
    scripted_server: ScriptedOpenAIServer,
    memory_keyring: object,
    bot_api: BotApiServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from desktop.core.config.loader import load_config
    from desktop.core.config.secrets import SecretStore
    from desktop.ui.services import AppServices

    install_hint = _lacking(monkeypatch, "nb_connect_flow_sdk_frozen")
    monkeypatch.setattr(sys, "frozen", True, raising=False)  # a bundle never changes itself
    path = _config(tmp_path, scripted_server.url, bot_api)
    services = AppServices(load_config(path), path, SecretStore("nanobot-desktop-connect-flow"))
    tab = SettingsTab(services)
    qtbot.addWidget(tab)
    tab.show()
    tab.show_section("channels/telegram")
    page = tab.page("channels")
    assert isinstance(page, ChannelsPage)
    form = page.form("telegram")
    form.test_button.click()
    qtbot.waitUntil(lambda: form.steps.command.isVisible(), timeout=15_000)
    assert form.steps.command.text() == f"To add it, run: {install_hint}"
    assert not form.steps.install_button.isVisible()
    run_async(qtbot, qloop, services.aclose_tabs())


def test_telegram_connects_in_under_a_minute_with_the_keyboard_only(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    tmp_path: Path,
    scripted_server: ScriptedOpenAIServer,
    memory_keyring: object,
    bot_api: BotApiServer,
) -> None:
    path = _config(tmp_path, scripted_server.url, bot_api)
    starter = AgentStarter(path)
    window = build_main_window()
    try:
        starter.configLoaded.connect(lambda services: install_tabs(window, services))
        starter.start()
        qtbot.waitUntil(
            lambda: bool(starter.services is not None and starter.services.runtime), timeout=30_000
        )
        services = starter.services
        assert services is not None and services.runtime is not None
        window.resize(1100, 800)
        window.show()
        window.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
        started = time.monotonic()

        # Ctrl+, opens Settings; Ctrl+F finds the token field; Return jumps there.
        focused = window.focusWidget() or window
        QTest.keyClick(focused, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
        settings = window.tab("settings")
        assert isinstance(settings, SettingsTab)
        qtbot.waitUntil(settings.isVisible)
        settings.activateWindow()
        start = window.focusWidget()
        assert start is not None
        QTest.keyClick(start, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(settings.search.field.hasFocus)
        QTest.keyClicks(settings.search.field, "telegram token")
        qtbot.waitUntil(lambda: settings.search.results.count() > 0)
        first = settings.search.results.currentItem()
        assert first is not None and "Telegram" in first.text(), first.text()
        QTest.keyClick(settings.search.field, Qt.Key.Key_Return)
        page = settings.page("channels")
        assert isinstance(page, ChannelsPage)
        form = page.forms["telegram"]
        key = form.keys["token"]
        qtbot.waitUntil(lambda: window.focusWidget() is key.edit)

        # Paste the token (typed here), Tab to "Test connection", Space.
        QTest.keyClicks(key.edit, TOKEN)
        _tab_to(qtbot, window, form.test_button)
        _press(form.test_button)
        qtbot.waitUntil(lambda: form.steps.enable_button.isVisible(), timeout=20_000)
        assert form.test_status.kind == "ok" and "@" in form.test_status.text()

        # Tab to "Turn on Telegram", Space: saved, enabled, connected.
        _tab_to(qtbot, window, form.steps.enable_button)
        _press(form.steps.enable_button)
        runtime = services.runtime
        qtbot.waitUntil(lambda: runtime.channels.status("telegram").ok, timeout=30_000)
        qtbot.waitUntil(lambda: "Connected as @" in form.status.text(), timeout=10_000)
        elapsed = time.monotonic() - started
        assert elapsed < 60, f"took {elapsed:.1f} s"
        assert services.config.channels.telegram.enabled
        assert TOKEN not in path.read_text(encoding="utf-8")
    finally:
        if starter.services is not None:
            run_async(qtbot, qloop, starter.services.aclose_tabs())
        run_async(qtbot, qloop, starter.stop(), timeout_ms=20_000)
        window.allow_close()
        window.close()
        window.deleteLater()
