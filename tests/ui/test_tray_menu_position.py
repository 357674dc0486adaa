"""The tray menu stays on screen when the reminder list changes while it is open (issue 9 C).

A tray at the bottom of the screen opens its menu upwards; when the upcoming reminders are read
(in the background) and the list grows, the open menu must grow upwards, not off the screen."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtGui import QGuiApplication
from pytestqt.qtbot import QtBot

from desktop.ui.tray import Tray

pytestmark = pytest.mark.usefixtures("qloop")


@pytest.fixture
def tray() -> Iterator[Tray]:
    item = Tray()
    yield item
    item.menu.hide()
    item.close()
    item.menu.deleteLater()


@pytest.mark.parametrize("edge", ["bottom", "top"])
def test_open_menu_grows_on_screen(tray: Tray, qtbot: QtBot, edge: str) -> None:
    area = QGuiApplication.primaryScreen().availableGeometry()
    tray.cron = object()  # type: ignore[assignment]  # the reminders section is shown
    tray.refresh_menu()
    menu = tray.menu
    height = menu.sizeHint().height()
    if edge == "bottom":  # opened upwards from a tray at the bottom edge
        menu.popup(QPoint(area.right() - 250, area.bottom() - height))
    else:
        menu.popup(QPoint(area.right() - 250, area.top() + 2))
    qtbot.waitUntil(menu.isVisible)
    before = menu.geometry()
    assert area.contains(before)
    tray._lines = [f"tomorrow 09:{i:02d}  Reminder number {i}" for i in range(5)]
    tray.refresh_menu()  # what the background refresh does when the list changed
    qtbot.waitUntil(lambda: menu.geometry().height() > before.height())
    after = menu.geometry()
    assert area.contains(after), f"{after} leaves the screen {area}"
    if edge == "bottom":
        assert after.bottom() == before.bottom()  # still against the tray
    else:
        assert after.top() == before.top()
