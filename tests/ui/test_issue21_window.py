"""What a new user hit in the window (issue 21, part 2): banners that went stale or pushed the
page away under the pointer.

The real start-up path (AgentStarter: config file, keyring, provider, runtime) on the scripted
model server, the window's tabs installed as the app does; a channel is a real Telegram
channel against the local Bot API server of ``tests/channels/telegram``.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop.app import build_main_window, install_tabs
from desktop.ui.banner import Banner
from desktop.ui.main_window import MainWindow
from desktop.ui.onboarding import OnboardingWizard
from desktop.ui.services import AppServices
from desktop.ui.settings import SettingsTab
from desktop.ui.settings.providers_page import ProvidersPage
from desktop.ui.shell import DesktopApp
from desktop.ui.single_instance import SingleInstance
from desktop.ui.startup import AgentStarter
from desktop.ui.theme import Theme
from tests.channels.telegram.bot_api_server import TOKEN, BotApiServer
from tests.conftest import custom_config
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.ui.conftest import run_async
from tests.ui.settings.pages import page_of, widget_as


class Running:
    """The started app parts of one test."""

    def __init__(self, starter: AgentStarter, window: MainWindow) -> None:
        self.starter, self.window = starter, window

    @property
    def services(self) -> AppServices:
        assert self.starter.services is not None
        return self.starter.services


@pytest.fixture
def running(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    tmp_path: Path,
    scripted_server: ScriptedOpenAIServer,
    memory_keyring: object,
) -> Iterator[Running]:
    path = custom_config(tmp_path, scripted_server.url, model="model-a")
    starter = AgentStarter(path)
    window = build_main_window()
    window.resize(1000, 700)
    window.show()
    try:
        starter.configLoaded.connect(lambda services: install_tabs(window, services))
        starter.start()
        qtbot.waitUntil(
            lambda: bool(starter.services is not None and starter.services.runtime), timeout=20_000
        )
        yield Running(starter, window)
    finally:
        if starter.services is not None:
            run_async(qtbot, qloop, starter.services.aclose_tabs())
        run_async(qtbot, qloop, starter.stop(), timeout_ms=20_000)
        window.allow_close()
        window.close()
        window.deleteLater()


def _page_origin(window: MainWindow) -> QPoint:
    page = window.tabs.currentWidget()
    assert page is not None
    return page.mapTo(window, QPoint(0, 0))


def test_a_channel_saved_in_settings_connects_without_a_stale_reconnect_banner(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, running: Running
) -> None:
    """Item 11: the channel's own settings restart that channel; no "reconnect" banner is
    left behind once it connected."""
    api = run_async(qtbot, qloop, BotApiServer().start())
    try:
        services, window = running.services, running.window
        runtime = services.runtime
        assert runtime is not None
        telegram = services.config.channels.telegram
        telegram.enabled = True
        telegram.token = TOKEN
        telegram.base_url = api.base_url
        telegram.allow_from = ["*"]
        run_async(qtbot, qloop, services.save_config())
        qtbot.waitUntil(
            lambda: runtime.channels.status("telegram").state == "connected", timeout=30_000
        )
        assert window.banner("restart") is None
        assert services.runtime is runtime  # nothing was rebuilt, no answer stopped
        # disabling it stops it, again without a reconnect
        telegram.enabled = False
        run_async(qtbot, qloop, services.save_config())
        qtbot.waitUntil(lambda: runtime.channels.status("telegram").state == "stopped")
        assert window.banner("restart") is None
    finally:
        run_async(qtbot, qloop, api.stop())


def test_banners_float_over_the_page_and_go_when_no_longer_true(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, running: Running
) -> None:
    """Item 11: a banner never moves the page under the pointer; a reconnect banner goes
    when the setting that needed it is put back."""
    services, window = running.services, running.window
    qtbot.waitUntil(lambda: window.painted)
    before = _page_origin(window)
    timeout = services.config.tools.exec.timeout
    services.config.tools.exec.timeout = timeout + 5  # baked into the exec tool at start
    run_async(qtbot, qloop, services.save_config())
    qtbot.waitUntil(lambda: window.banner("restart") is not None, timeout=5_000)
    banner = window.banner("restart")
    assert banner is not None
    qtbot.waitUntil(banner.isVisible)
    assert _page_origin(window) == before  # the page did not move
    page = window.tabs.currentWidget()
    assert page is not None
    page_rect = page.rect().translated(_page_origin(window))
    banner_rect = banner.rect().translated(banner.mapTo(window, QPoint(0, 0)))
    assert page_rect.contains(banner_rect.topLeft()) and page_rect.contains(
        banner_rect.bottomRight()
    )  # over the page, inside it
    assert banner_rect.top() >= window.tabs.tabBar().mapTo(window, QPoint(0, 0)).y() + 1
    # put back: nothing needs a reconnect any more, the banner goes
    services.config.tools.exec.timeout = timeout
    run_async(qtbot, qloop, services.save_config())
    qtbot.waitUntil(lambda: window.banner("restart") is None, timeout=5_000)
    assert _page_origin(window) == before


# -- item 12: the first run -------------------------------------------------------------------
@pytest.fixture
def app_state(qapp: QApplication, qloop: asyncio.AbstractEventLoop) -> Iterator[None]:
    """What a running app changes in the process (look, hooks, log handlers) is put back."""
    palette, sheet = qapp.palette(), qapp.styleSheet()
    hooks = sys.excepthook, threading.excepthook
    yield
    qloop.set_exception_handler(None)
    sys.excepthook, threading.excepthook = hooks
    for handler in list(logging.getLogger().handlers):
        if getattr(handler, "_nanobot_desktop", False):
            logging.getLogger().removeHandler(handler)
            handler.close()
    qapp.setStyleSheet(sheet)
    qapp.setPalette(palette)


def _wizards(window: MainWindow) -> list[OnboardingWizard]:
    return [w for w in window.findChildren(OnboardingWizard) if w.isVisible()]


def test_first_run_shows_no_error_about_a_provider_nobody_chose_and_skip_leaves_a_way_back(
    qapp: QApplication,
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    tmp_path: Path,
    app_state: None,
    memory_keyring: object,
    scripted_server: ScriptedOpenAIServer,
) -> None:
    config = tmp_path / "home" / ".nanobot" / "config.json"  # a first start: no file yet
    window = build_main_window()
    window.show()
    theme = Theme(qapp, "light")
    instance = SingleInstance(config.parent)
    assert instance.acquire()
    app = DesktopApp(
        qapp,
        window,
        theme,
        instance,
        prefs_file=config.parent / "desktop.json",
        config_path=config,
        install_tabs=install_tabs,
    )
    try:
        run_async(qtbot, qloop, app.start())
        qtbot.waitUntil(lambda: bool(_wizards(window)), timeout=30_000)
        starter = app.starter
        assert starter is not None
        qtbot.waitUntil(lambda: not starter.busy, timeout=30_000)  # the agent start failed
        assert starter.runtime is None
        # no red "No API key for Anthropic" behind the setup: the person chose no provider
        assert window.banner("agent") is None
        assert not [b for b in window.findChildren(Banner) if b.isVisible()]
        # Skip: a way back into the setup stays
        _wizards(window)[0].skip_button.click()
        qtbot.waitUntil(lambda: window.banner("setup") is not None)
        banner = window.banner("setup")
        assert banner is not None and banner.isVisible() and window.banner("agent") is None
        assert [b.text() for b in banner.buttons] == ["Set up now"]
        banner.buttons[0].click()
        qtbot.waitUntil(lambda: bool(_wizards(window)))
        assert window.banner("setup") is None
        # ... and so does Settings → Providers
        wizard = _wizards(window)[0]
        wizard.skip_button.click()
        qtbot.waitUntil(lambda: not _wizards(window))
        settings = widget_as(window.tab("settings"), SettingsTab)
        settings.show_section("providers")
        page_of(settings, "providers", ProvidersPage).setup_button.click()
        qtbot.waitUntil(lambda: bool(_wizards(window)))
        # finishing: Settings opens on the provider just set up
        wizard = _wizards(window)[0]
        wizard.provider_step.select("custom")
        assert run_async(qtbot, qloop, wizard.next())
        wizard.connect_step.api_base.setText(scripted_server.url)
        assert run_async(qtbot, qloop, wizard.next(), 30_000)
        wizard.model_step.model.setEditText("scripted-model")
        assert run_async(qtbot, qloop, wizard.next())
        wizard.workspace_step.picker.edit.setText(str(tmp_path / "workspace"))
        assert run_async(qtbot, qloop, wizard.next(), 30_000)
        qtbot.waitUntil(lambda: starter.runtime is not None, timeout=30_000)
        assert settings.current_section() == "providers"
        page = page_of(settings, "providers", ProvidersPage)
        assert page.list.currentItem().data(Qt.ItemDataRole.UserRole) == "custom"
        assert window.banner("setup") is None and window.banner("agent") is None
    finally:
        app.request_quit()
        run_async(qtbot, qloop, app.shutdown(), timeout_ms=30_000)
        instance.release()
        theme.setParent(None)
        window.deleteLater()
