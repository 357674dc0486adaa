"""The caret rests after a quiet spell and blinks again on input (desktop/ui/caret.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QPlainTextEdit
from pytestqt.qtbot import QtBot

from desktop.ui.caret import CaretRest


@pytest.fixture
def blinking(qapp: QApplication) -> Iterator[int]:
    """The caret blinks (500 ms) for the test; the app's own flash time afterwards."""
    before = QApplication.cursorFlashTime()
    QApplication.setCursorFlashTime(500)
    yield 500
    QApplication.setCursorFlashTime(before)


def test_the_caret_rests_after_a_quiet_spell_and_blinks_again_on_a_key(
    qtbot: QtBot, qapp: QApplication, blinking: int
) -> None:
    rest = CaretRest(qapp, rest_ms=200)
    try:
        edit = QPlainTextEdit()
        qtbot.addWidget(edit)
        edit.show()
        qtbot.keyClick(edit, Qt.Key.Key_A)
        assert QApplication.cursorFlashTime() == blinking and not rest.resting
        qtbot.waitUntil(lambda: rest.resting, timeout=5000)
        assert QApplication.cursorFlashTime() == 0  # steady: Qt stops the blink timer
        qtbot.keyClick(edit, Qt.Key.Key_B)
        assert QApplication.cursorFlashTime() == blinking
        assert edit.toPlainText() == "ab"  # the filter never takes an event
        qtbot.mouseClick(edit.viewport(), Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: rest.resting, timeout=5000)
        qtbot.mouseClick(edit.viewport(), Qt.MouseButton.LeftButton)
        assert not rest.resting
    finally:
        qapp.removeEventFilter(rest)
        rest.deleteLater()


def test_a_desktop_without_blinking_is_left_alone(qtbot: QtBot, qapp: QApplication) -> None:
    before = QApplication.cursorFlashTime()
    QApplication.setCursorFlashTime(0)
    rest = CaretRest(qapp, rest_ms=50)
    try:
        edit = QPlainTextEdit()
        qtbot.addWidget(edit)
        edit.show()
        qtbot.keyClick(edit, Qt.Key.Key_A)
        assert QApplication.cursorFlashTime() == 0 and not rest.resting
    finally:
        rest.deleteLater()
        QApplication.setCursorFlashTime(before)
