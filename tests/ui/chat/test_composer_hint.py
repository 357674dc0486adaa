"""The composer's placeholder fits its editor on one line at any width."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop.ui.chat.composer import READY_HINTS, Composer


def _room(composer: Composer) -> float:
    edit = composer.edit
    return edit.viewport().width() - 2 * edit.document().documentMargin()


def test_placeholder_is_the_longest_that_fits(qtbot: QtBot) -> None:
    """Wide: the whole hint. Narrow (a small window, or scale 2 where the hint wrapped and its
    second line was cut off): a shorter one that fits; widening brings the long one back."""
    composer = Composer()
    qtbot.addWidget(composer)
    composer.set_ready(True)
    composer.resize(1400, 80)
    composer.show()
    qtbot.waitExposed(composer)
    qtbot.waitUntil(lambda: composer.edit.placeholderText() == READY_HINTS[0])
    metrics = composer.edit.fontMetrics()
    narrow = metrics.horizontalAdvance(READY_HINTS[1]) + 120
    composer.resize(int(narrow), 80)
    QApplication.processEvents()
    qtbot.waitUntil(lambda: composer.edit.placeholderText() != READY_HINTS[0])
    shown = composer.edit.placeholderText()
    assert metrics.horizontalAdvance(shown) <= _room(composer)
    assert shown in READY_HINTS[1:]
    composer.resize(1400, 80)
    qtbot.waitUntil(lambda: composer.edit.placeholderText() == READY_HINTS[0])


def test_not_ready_hint_is_kept_whatever_the_width(qtbot: QtBot) -> None:
    """The "not connected" hint is the app's message, shown as given."""
    composer = Composer()
    qtbot.addWidget(composer)
    composer.set_ready(False, "Not connected — open Settings")
    composer.resize(200, 80)
    composer.show()
    qtbot.waitExposed(composer)
    QApplication.processEvents()
    assert composer.edit.placeholderText() == "Not connected — open Settings"
