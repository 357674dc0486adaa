"""Keyboard use of Settings and the setup (issue 21 item 8): Save and Revert are the first
stops after the section list, Ctrl+S and Return save; Return advances the setup; every focus
stop shows a ring in both schemes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QImage, QPalette
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QHBoxLayout, QPushButton, QSpinBox, QWidget
from pytestqt.qtbot import QtBot

from desktop.ui.onboarding import OnboardingWizard
from desktop.ui.services import AppServices
from desktop.ui.settings import SettingsTab
from desktop.ui.settings.agent_page import AgentPage
from desktop.ui.theme import Theme
from tests.ui.settings.conftest import on_disk
from tests.ui.settings.pages import page_of, widget_as


def _focus(qtbot: QtBot, widget: QWidget) -> None:
    widget.activateWindow()
    widget.setFocus(Qt.FocusReason.OtherFocusReason)
    qtbot.waitUntil(widget.hasFocus)


def test_save_and_revert_are_the_first_stops_after_the_section_list(
    make_tab: Callable[[], SettingsTab], qtbot: QtBot, config_path: Path
) -> None:
    tab = make_tab()
    tab.show_section("agent")
    page = page_of(tab, "agent", AgentPage)
    assert page.save_button is not None and page.revert_button is not None
    widget_as(page.iterations, QSpinBox).setValue(widget_as(page.iterations, QSpinBox).value() + 3)
    page._edited()
    _focus(qtbot, tab.sidebar)
    QTest.keyClick(tab.sidebar, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is page.revert_button
    QTest.keyClick(page.revert_button, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is page.save_button
    QTest.keyClick(page.save_button, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: not page.dirty)
    saved = on_disk(config_path)["agents"]["defaults"]["maxToolIterations"]
    assert saved == widget_as(page.iterations, QSpinBox).value()
    # the buttons are at the top of the page, beside its heading
    assert page.save_button.mapTo(page, QPoint(0, 0)).y() < 60
    # Ctrl+S saves too, and Return in a one-line field
    widget_as(page.iterations, QSpinBox).setValue(widget_as(page.iterations, QSpinBox).value() + 1)
    page._edited()
    _focus(qtbot, page.timezone)
    QTest.keyClick(page.timezone, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: not page.dirty)
    page.timezone.setText("Europe/Paris")
    page._edited()
    QTest.keyClick(page.timezone, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not page.dirty)
    assert on_disk(config_path)["agents"]["defaults"]["timezone"] == "Europe/Paris"


def test_return_advances_the_setup(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    services: AppServices,
) -> None:
    wizard = OnboardingWizard(services)
    qtbot.addWidget(wizard)
    wizard.resize(900, 640)
    wizard.show()
    qtbot.waitExposed(wizard)
    wizard.provider_step.select("ollama")
    _focus(qtbot, wizard.provider_step.list)
    QTest.keyClick(wizard.provider_step.list, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: wizard.index == 1)
    api_base = wizard.connect_step.api_base
    _focus(qtbot, api_base)
    api_base.setText("http://127.0.0.1:11434/v1")
    QTest.keyClick(api_base, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: wizard.index == 2, timeout=20_000)
    # Return on another focused button presses that button, not Next
    back = wizard.back_button
    _focus(qtbot, back)
    QTest.keyClick(back, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: wizard.index == 1)
    future = asyncio.ensure_future(wizard.aclose())
    qtbot.waitUntil(future.done)


@pytest.fixture
def schemes(qapp: QApplication) -> Iterator[None]:
    palette, sheet = qapp.palette(), qapp.styleSheet()
    yield
    qapp.setStyleSheet(sheet)
    qapp.setPalette(palette)


def _ring_pixels(image: QImage, colour: QColor, left: int, right: int) -> int:
    """Pixels near ``colour`` in the columns ``left``..``right`` (a button's frame)."""
    count = 0
    for x in range(left, right):
        for y in range(image.height()):
            pixel = image.pixelColor(x, y)
            if (
                abs(pixel.red() - colour.red())
                + abs(pixel.green() - colour.green())
                + abs(pixel.blue() - colour.blue())
                < 60
            ):
                count += 1
    return count


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_focused_button_shows_a_ring_in_both_schemes(
    qapp: QApplication, qtbot: QtBot, schemes: None, scheme: str
) -> None:
    theme = Theme(qapp, scheme)
    try:
        holder = QWidget()
        qtbot.addWidget(holder)
        row = QHBoxLayout(holder)
        first, second = QPushButton("First"), QPushButton("Second")
        row.addWidget(first)
        row.addWidget(second)
        holder.resize(320, 60)
        holder.show()
        qtbot.waitExposed(holder)
        _focus(qtbot, first)
        QTest.keyClick(first, Qt.Key.Key_Tab)  # the keyboard moves the focus
        qtbot.waitUntil(second.hasFocus)
        accent = qapp.palette().color(QPalette.ColorRole.Highlight)
        image = holder.grab().toImage()
        ratio = image.devicePixelRatio()
        bounds = [(int(b.x() * ratio), int((b.x() + b.width()) * ratio)) for b in (first, second)]
        unfocused = _ring_pixels(image, accent, *bounds[0])
        focused = _ring_pixels(image, accent, *bounds[1])
        assert focused > 2 * (second.width() + second.height())  # a ring all around
        assert unfocused < 10
    finally:
        theme.setParent(None)
