"""Switching light → dark → light while the window is open (issue 9 A.6).

The window with its real tabs is built in the light scheme, then the scheme is switched with
the tabs alive. Each probed widget is grabbed and its pixels checked: the background must be
the scheme's (no white panel in the dark scheme) and the text must stand out from it (no dark
heading, tab label or token counter on a dark window).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication, QLabel, QListWidget, QScrollArea, QTabBar, QWidget
from pytestqt.qtbot import QtBot

from desktop.app import build_main_window, install_tabs
from desktop.core.config.schema import Config
from desktop.core.config.secrets import SecretStore
from desktop.ui.chat.chat_tab import ChatTab
from desktop.ui.chat.records import TurnUsage
from desktop.ui.main_window import MainWindow
from desktop.ui.services import AppServices
from desktop.ui.theme import Theme
from tests.typed import present
from tests.ui.conftest import run_async

SHOTS = Path(__file__).resolve().parents[2] / "test-output" / "screens"


def _luminance(colour: QColor) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return (
        0.2126 * channel(colour.red())
        + 0.7152 * channel(colour.green())
        + 0.0722 * channel(colour.blue())
    )


def contrast(a: QColor, b: QColor) -> float:
    """WCAG contrast ratio of two colours."""
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def pixels(widget: QWidget) -> tuple[QColor, QColor]:
    """The widget's background (its most common colour) and its strongest ink (the colour
    with the highest contrast to that background), from a real rendering."""
    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    counts = Counter(memoryview(image.constBits()).cast("I"))
    background = QColor.fromRgb(counts.most_common(1)[0][0])
    ink = max((QColor.fromRgb(p) for p in counts), key=lambda c: contrast(c, background))
    return background, ink


@pytest.fixture
def themed_window(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, qapp: QApplication, tmp_path: Path
) -> Iterator[tuple[MainWindow, Theme, AppServices]]:
    palette, sheet = qapp.palette(), qapp.styleSheet()
    theme = Theme(qapp, "light")
    (tmp_path / "ws").mkdir()
    config = Config.model_validate({"agents": {"defaults": {"workspace": str(tmp_path / "ws")}}})
    services = AppServices(config, tmp_path / "config.json", SecretStore())
    window = build_main_window()  # closed below, after its tabs (not by qtbot)
    install_tabs(window, services)
    window.resize(1024, 700)
    window.show()
    qtbot.waitExposed(window)
    yield window, theme, services
    run_async(qtbot, qloop, services.aclose_tabs())
    theme.setParent(None)
    qapp.setStyleSheet(sheet)
    qapp.setPalette(palette)
    window.allow_close()
    window.close()
    window.deleteLater()  # with its popups (combo lists, menus)


def _probes(window: MainWindow) -> dict[str, QWidget]:
    """The widgets the issue named: headings, the tab label, the token counter, panels."""
    settings = window.tab("settings")
    heading = next(
        w for w in settings.findChildren(QLabel) if w.text() == "Providers" and w.isVisible()
    )
    chat = window.tab("chat")
    assert isinstance(chat, ChatTab)
    return {
        "tab bar": present(window.tabs.findChild(QTabBar)),
        "settings heading": heading,
        "settings sidebar": present(settings.findChild(QListWidget)),
        "settings page body": present(
            next(a.widget() for a in settings.findChildren(QScrollArea) if a.isVisible())
        ),
        "token counter": chat.pane.usage.turn,
        "chat title": chat.pane.title,
    }


def _check(window: MainWindow, dark: bool, qtbot: QtBot) -> None:
    for name, widget in _probes(window).items():
        widget.repaint()
        background, ink = pixels(widget)
        assert (background.lightness() < 128) == dark, (
            f"{name}: background {background.name()} in the {'dark' if dark else 'light'} scheme"
        )
        assert contrast(ink, background) >= 4.0, (
            f"{name}: text {ink.name()} on {background.name()} is unreadable"
        )


def test_switching_the_scheme_restyles_every_widget(
    themed_window: tuple[MainWindow, Theme, AppServices], qtbot: QtBot
) -> None:
    window, theme, _services = themed_window
    chat = window.tab("chat")
    assert isinstance(chat, ChatTab)
    chat.pane.show_usage(TurnUsage(1234, 56, None, 2000, 8192))
    window.show_tab("chat")
    window.show_tab("settings")  # builds the Providers page
    qtbot.waitUntil(lambda: bool(_probes(window)["settings heading"]), timeout=5000)
    _check(window, False, qtbot)
    SHOTS.mkdir(parents=True, exist_ok=True)
    for scheme in ("dark", "light", "dark"):
        theme.set_appearance(scheme)

        def applied(s: str = scheme) -> bool:
            return theme.is_dark() == (s == "dark")

        qtbot.waitUntil(applied, timeout=1000)
        _check(window, scheme == "dark", qtbot)
        for tab in ("settings", "chat"):
            window.show_tab(tab)
            window.grab().save(str(SHOTS / f"theme-switch-{tab}-{scheme}.png"))
        window.show_tab("settings")


@pytest.mark.parametrize("dark", [False, True])
def test_check_boxes_and_radio_buttons_are_visible_in_both_schemes(
    qtbot: QtBot, qapp: QApplication, dark: bool
) -> None:
    """An unchecked box or radio button stands out from the window (WCAG non-text contrast,
    3:1); a checked one shows its mark. Fusion alone outlined them with the window colour
    darkened, which all but vanished on the dark window."""
    from PySide6.QtWidgets import QCheckBox, QRadioButton, QVBoxLayout

    palette, sheet = qapp.palette(), qapp.styleSheet()
    theme = Theme(qapp, "dark" if dark else "light")
    try:
        for kind in (QCheckBox, QRadioButton):
            holder = QWidget()
            qtbot.addWidget(holder)
            layout = QVBoxLayout(holder)
            off, on = kind(""), kind("")
            layout.addWidget(off)
            layout.addWidget(on)
            on.setChecked(True)
            if kind is QRadioButton:
                off.setAutoExclusive(False)
                on.setAutoExclusive(False)
            holder.show()
            qtbot.waitExposed(holder)
            window = qapp.palette().window().color()
            off.repaint()
            image = off.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
            colours = [QColor.fromRgb(p) for p in set(memoryview(image.constBits()).cast("I"))]
            strongest = max(colours, key=lambda c: contrast(c, window))
            assert contrast(strongest, window) >= 3.0, (
                f"unchecked {kind.__name__}: at best {strongest.name()} on {window.name()}"
            )
            checked = off.grab().toImage() != on.grab().toImage()
            assert checked, f"a checked {kind.__name__} looks like an unchecked one"
            holder.close()
    finally:
        theme.setParent(None)
        qapp.setStyleSheet(sheet)
        qapp.setPalette(palette)
