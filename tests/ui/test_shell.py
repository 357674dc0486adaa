"""The shell: main window, shortcuts, banners, layout at 1024×700, theme, close-to-tray,
error reporting, and the running application's start and shutdown (offscreen)."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from desktop.app import build_main_window
from desktop.ui.error_dialog import ExceptionReporter, install_exception_hooks
from desktop.ui.main_window import MainWindow
from desktop.ui.placeholder import PlaceholderTab
from desktop.ui.shell import DesktopApp
from desktop.ui.single_instance import SingleInstance
from desktop.ui.theme import Theme, _palette
from desktop.ui.tray import Tray
from tests.conftest import custom_config
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.typed import present
from tests.ui.conftest import run_async

pytestmark = pytest.mark.usefixtures("qloop")


@pytest.fixture
def window(qtbot: QtBot) -> Iterator[MainWindow]:
    """A shown main window that really closes at the end."""
    win = build_main_window()
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.allow_close()
    win.close()


@pytest.fixture
def restore_app_look(qapp: QApplication) -> Iterator[None]:
    """Theme tests change the application palette, style and stylesheet; put them back."""
    palette, sheet = qapp.palette(), qapp.styleSheet()
    yield
    qapp.setStyleSheet(sheet)
    qapp.setPalette(palette)


# -- window -----------------------------------------------------------------------------------
def test_title_tabs_and_status(window: MainWindow) -> None:
    """Title names nanobot; four tabs in order with placeholders; status says connecting."""
    assert window.windowTitle() == "nanobot Desktop"
    assert window.tab_keys() == ["chat", "settings", "skills", "memory"]
    assert [window.tabs.tabText(i) for i in range(4)] == ["Chat", "Settings", "Skills", "Memory"]
    assert all(isinstance(window.tab(k), PlaceholderTab) for k in window.tab_keys())
    assert window.status_label.text() == "connecting…"
    window.set_status("ready — m")
    assert window.status_label.text() == "ready — m"
    assert "Ready — m" in window.tab("chat").hint.text()  # type: ignore[attr-defined]


def test_set_tab_replaces_the_placeholder(window: MainWindow, qtbot: QtBot) -> None:
    """set_tab puts a widget in place, keeps title and current tab, deletes the old widget."""
    window.show_tab("skills")
    old = window.tab("settings")
    destroyed: list[bool] = []
    old.destroyed.connect(lambda: destroyed.append(True))
    real = QWidget()
    window.set_tab("settings", real)
    assert window.tab("settings") is real
    assert window.tabs.tabText(1) == "Settings"
    assert window.current_tab_key() == "skills"
    qtbot.waitUntil(lambda: bool(destroyed))
    with pytest.raises(KeyError):
        window.set_tab("nope", QWidget())


def _press(window: MainWindow, key: Qt.Key, ctrl: bool = True) -> None:
    modifier = Qt.KeyboardModifier.ControlModifier if ctrl else Qt.KeyboardModifier.NoModifier
    QTest.keyClick(window, key, modifier)


def test_shortcuts(window: MainWindow, qtbot: QtBot) -> None:
    """Ctrl+N, Ctrl+K, Esc, Ctrl+Q emit their signals; Ctrl+, and Ctrl+1…4 switch tabs."""
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    window.show_tab("memory")
    with qtbot.waitSignal(window.newChatRequested, timeout=1000):
        _press(window, Qt.Key.Key_N)
    assert window.current_tab_key() == "chat"
    window.show_tab("skills")
    with qtbot.waitSignal(window.searchRequested, timeout=1000):
        _press(window, Qt.Key.Key_K)
    assert window.current_tab_key() == "chat"
    with qtbot.waitSignal(window.stopRequested, timeout=1000):
        _press(window, Qt.Key.Key_Escape, ctrl=False)
    _press(window, Qt.Key.Key_Comma)
    assert window.current_tab_key() == "settings"
    for key, name in ((Qt.Key.Key_3, "skills"), (Qt.Key.Key_4, "memory"), (Qt.Key.Key_1, "chat")):
        _press(window, key)
        assert window.current_tab_key() == name
    with qtbot.waitSignal(window.quitRequested, timeout=1000):
        _press(window, Qt.Key.Key_Q)
    assert window.isVisible()  # quitting is the application's job, not the window's


def test_nothing_clipped_at_1024x700(window: MainWindow, qtbot: QtBot) -> None:
    """At 1024×700 with two banners, tabs, banner texts and the status fit."""
    window.resize(1024, 700)
    long = "No API key for OpenAI. Store one with 'nanobot-desktop keys set openai'. " * 3
    window.show_banner(
        "agent",
        long,
        severity="error",
        actions=[("Open Settings", lambda: None), ("Retry", lambda: None)],
    )
    window.show_banner(
        "reminder", "Reminder — Stretch: time to stand up.", actions=[("Open chat", lambda: None)]
    )
    window.set_status("ready — openrouter/anthropic/claude-sonnet-4 · OpenRouter")
    qtbot.waitUntil(lambda: window.size().width() == 1024 and window.size().height() == 700)
    QApplication.processEvents()
    assert window.minimumSizeHint().width() <= 1024 and window.minimumSizeHint().height() <= 700
    bar = window.tabs.tabBar()
    for i in range(bar.count()):
        rect = bar.tabRect(i)
        assert rect.right() <= bar.width()
        assert bar.fontMetrics().horizontalAdvance(bar.tabText(i)) < rect.width()
    for key in ("agent", "reminder"):
        banner = window.banner(key)
        assert banner is not None and banner.isVisible()
        label = banner.label
        assert label.height() >= label.heightForWidth(label.width())  # wrapped text fully shown
        for button in banner.buttons:
            assert button.width() >= button.sizeHint().width()
            top_left = button.mapTo(window, QPoint(0, 0))
            assert top_left.x() + button.width() <= window.width()
    status = window.status_label
    assert status.isVisible() and status.width() >= status.sizeHint().width()
    assert window.tabs.height() > 400


def test_banners(window: MainWindow, qtbot: QtBot) -> None:
    """Banners show, replace by key, run their actions, and disappear when dismissed."""
    clicked: list[str] = []
    banner = window.show_banner("x", "first", actions=[("Do it", lambda: clicked.append("x"))])
    assert window.banner("x") is banner
    replacement = window.show_banner("x", "second")
    assert window.banner("x") is replacement and replacement.text() == "second"
    banner = window.show_banner("y", "third", actions=[("Do it", lambda: clicked.append("y"))])
    banner.buttons[0].click()
    assert clicked == ["y"]
    banner.dismiss()
    assert window.banner("y") is None
    window.remove_banner("x")
    assert window.banner("x") is None
    qtbot.waitUntil(lambda: not window._banner_area.isVisible())


def test_geometry_round_trip(window: MainWindow, qtbot: QtBot) -> None:
    """The saved geometry text restores the size in a new window; junk is refused."""
    window.resize(790, 560)  # inside the offscreen screen (restoreGeometry keeps windows on screen)
    qtbot.waitUntil(lambda: window.width() == 790)
    text = window.geometry_text()
    again = build_main_window(text)
    qtbot.addWidget(again)
    assert (again.width(), again.height()) == (790, 560)
    assert not again.restore_geometry_text("not base64 geometry ✗")
    assert not again.restore_geometry_text(None)
    again.allow_close()


class _UserClose:
    """A close event as the window system sends it (spontaneous), for calling closeEvent."""

    def __init__(self) -> None:
        self.accepted = True

    def spontaneous(self) -> bool:
        return True

    def ignore(self) -> None:
        self.accepted = False

    def accept(self) -> None:
        self.accepted = True


def test_close_hides_to_tray_or_asks_to_quit(window: MainWindow, qtbot: QtBot) -> None:
    """The person's close hides to the tray (when enabled); a programmatic close (logout's
    QApplication.quit) or a close without a tray asks the application to quit."""
    window.hide_on_close = True
    event = _UserClose()
    with qtbot.waitSignal(window.hiddenToTray, timeout=1000):
        window.closeEvent(event)  # type: ignore[arg-type]
    assert not event.accepted and not window.isVisible()
    window.bring_to_front()
    qtbot.waitUntil(window.isVisible)
    window.showMinimized()
    window.bring_to_front()
    assert not window.isMinimized()
    with qtbot.waitSignal(window.quitRequested, timeout=1000):
        window.close()  # not spontaneous: quit, even with close-to-tray
    assert window.isVisible()
    window.hide_on_close = False
    with qtbot.waitSignal(window.quitRequested, timeout=1000):
        window.closeEvent(_UserClose())  # type: ignore[arg-type]
    assert window.isVisible()
    window.allow_close()
    window.close()
    assert not window.isVisible()


# -- theme ------------------------------------------------------------------------------------
def _contrast(a: QColor, b: QColor) -> float:
    def luminance(c: QColor) -> float:
        def channel(v: float) -> float:
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

        return (
            0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF())
        )

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("dark", [False, True])
def test_palettes_are_readable(dark: bool) -> None:
    """Text on window/base meets WCAG AA (4.5:1); hints and selections at least 3:1."""
    p = _palette(dark)
    role = QPalette.ColorRole
    assert _contrast(p.color(role.WindowText), p.color(role.Window)) >= 4.5
    assert _contrast(p.color(role.Text), p.color(role.Base)) >= 4.5
    assert _contrast(p.color(role.ButtonText), p.color(role.Button)) >= 4.5
    assert _contrast(p.color(role.PlaceholderText), p.color(role.Window)) >= 3
    assert _contrast(p.color(role.HighlightedText), p.color(role.Highlight)) >= 3
    assert _contrast(p.color(role.Link), p.color(role.Base)) >= 4.5


def test_theme_follows_the_appearance(
    qapp: QApplication, restore_app_look: None, qtbot: QtBot
) -> None:
    """dark/light set the palette; system follows the style hints; changes are signalled."""
    theme = Theme(qapp, "light")
    assert not theme.is_dark()
    assert qapp.palette().color(QPalette.ColorRole.Window).lightness() > 200
    with qtbot.waitSignal(theme.changed, timeout=1000) as signal:
        theme.set_appearance("dark")
    assert signal.args == [True]
    assert theme.is_dark() and qapp.palette().color(QPalette.ColorRole.Window).lightness() < 60
    theme.set_appearance("nonsense")
    assert theme.appearance == "system"
    assert theme.is_dark() == (qapp.styleHints().colorScheme() == Qt.ColorScheme.Dark)
    assert "mainTabs" in qapp.styleSheet()
    theme.setParent(None)  # stop following the system scheme after this test


# -- errors -----------------------------------------------------------------------------------
@pytest.fixture
def hooks_restored() -> Iterator[None]:
    """Tests that install the exception hooks put the interpreter's back."""
    previous = sys.excepthook, threading.excepthook
    yield
    sys.excepthook, threading.excepthook = previous


def test_unhandled_errors_are_redacted_logged_and_shown(
    tmp_path: Path,
    qtbot: QtBot,
    window: MainWindow,
    caplog: pytest.LogCaptureFixture,
    hooks_restored: None,
    qloop: asyncio.AbstractEventLoop,
) -> None:
    """sys.excepthook, thread and loop errors: one non-modal dialog, secrets masked everywhere."""
    from desktop.core.utils.logs import setup_logging

    log_path = setup_logging(tmp_path / "logs")
    reporter = ExceptionReporter(log_path, lambda: window)
    install_exception_hooks(reporter, qloop)
    secret = "sk-proj-abcdefghijklmnopqrstuvwxyz123456"
    try:
        try:
            raise ValueError(f"provider said no to {secret}")
        except ValueError as exc:
            sys.excepthook(type(exc), exc, exc.__traceback__)
        qtbot.waitUntil(lambda: reporter.dialog is not None and reporter.dialog.isVisible())
        dialog = reporter.dialog
        assert dialog is not None and not dialog.isModal()
        assert secret not in dialog.summary.text() and "[REDACTED]" in dialog.summary.text()
        assert secret not in dialog.details.toPlainText()

        thread = threading.Thread(target=lambda: 1 / 0, name="worker")
        thread.start()
        thread.join()

        async def fail() -> None:
            raise RuntimeError("loop failure")

        task = qloop.create_task(fail())
        qtbot.waitUntil(task.done)
        del task  # "Task exception was never retrieved" goes to the loop handler
        import gc

        gc.collect()
        qtbot.waitUntil(lambda: len(reporter.reports) >= 3, timeout=3000)
        assert dialog.more >= 2 and "more error" in dialog.where.text()
        assert any("ZeroDivisionError" in s and "thread worker" in s for s, _ in reporter.reports)
        assert any("RuntimeError: loop failure" in s for s, _ in reporter.reports)
        text = log_path.read_text()
        assert "unhandled error" in text and "Traceback" in text
        assert secret not in text and "[REDACTED]" in text
    finally:
        qloop.set_exception_handler(None)
        if reporter.dialog is not None:
            reporter.dialog.close()
        for handler in list(logging.getLogger().handlers):
            if getattr(handler, "_nanobot_desktop", False):
                logging.getLogger().removeHandler(handler)
                handler.close()


# -- the running application ------------------------------------------------------------------
def test_desktop_app_starts_and_shuts_down(
    tmp_path: Path,
    qtbot: QtBot,
    qapp: QApplication,
    qloop: asyncio.AbstractEventLoop,
    restore_app_look: None,
    hooks_restored: None,
    memory_keyring: object,
) -> None:
    """Start: prefs, agent, status; close without a tray asks to quit; shutdown stops the agent,
    saves the geometry and releases the lock."""
    server = ScriptedOpenAIServer().start()
    config = custom_config(tmp_path, server.url)
    (config.parent / "desktop.json").write_text(json.dumps({"appearance": "dark", "extra": 1}))
    window = build_main_window()
    qtbot.addWidget(window)
    window.show()
    theme = Theme(qapp, "light")
    instance = SingleInstance(config.parent)
    assert instance.acquire()
    tabs: list[object] = []
    app = DesktopApp(
        qapp,
        window,
        theme,
        instance,
        prefs_file=config.parent / "desktop.json",
        config_path=config,
        install_tabs=lambda w, s: tabs.append(s),
    )
    try:
        run_async(qtbot, qloop, app.start())
        assert theme.is_dark()  # the validated prefs were applied
        assert app.starter is not None
        qtbot.waitUntil(lambda: present(app.starter).runtime is not None, timeout=20_000)
        services = app.starter.services
        assert services is not None and tabs == [services]
        assert services.agent is not None and services.cron is not None
        assert services.prefs is app.prefs
        assert window.status_label.text().startswith("ready — any-name")
        assert app.tray is None and window.hide_on_close is False  # offscreen: no tray
        app.tray = Tray()  # close-to-tray follows the preference once a tray exists
        present(app.prefs).update(close_to_tray=True)
        present(app.prefs).update(close_to_tray=False)
        assert window.hide_on_close is False
        present(app.prefs).update(close_to_tray=True)
        assert window.hide_on_close is True
        app.tray.hide()
        app.tray = None
        window.close()  # a programmatic close asks to quit
        assert app.quit_requested
        agent = services.agent
        with qtbot.waitSignal(window.shuttingDown, timeout=1000):
            run_async(qtbot, qloop, app.shutdown(), timeout_ms=20_000)
        assert not agent.running  # stopped
        assert not window.isVisible()
        saved = json.loads((config.parent / "desktop.json").read_text())
        assert saved["windowGeometry"] and saved["extra"] == 1 and saved["closeToTray"] is True
        again = SingleInstance(config.parent)
        assert again.acquire()
        again.release()
    finally:
        qloop.set_exception_handler(None)
        for handler in list(logging.getLogger().handlers):
            if getattr(handler, "_nanobot_desktop", False):
                logging.getLogger().removeHandler(handler)
                handler.close()
        instance.release()
        theme.setParent(None)
        server.stop()
