"""Guard against the PySide6 6.12.0 reference leak that kills long-running processes.

On Python 3.11 (where ``None`` is not immortal) PySide6 6.12.0 dropped one reference to
``None`` per call of a Qt method returning nothing; after a few thousand calls the process died
with "Fatal Python error: none_dealloc". ``constraints.txt`` pins a good version and
``pyproject.toml`` excludes 6.12.0; this test catches a bad version sneaking back in.
"""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot


def test_void_qt_calls_keep_none_and_false_alive(qtbot: QtBot) -> None:
    widget = QWidget()
    qtbot.addWidget(widget)
    none_before, false_before = sys.getrefcount(None), sys.getrefcount(False)
    for _ in range(2000):
        widget.update()
        widget.isVisible()
    # Immortal objects (3.12+) report huge constant counts; on 3.11 a leak shows as -2000.
    assert sys.getrefcount(None) - none_before > -100
    assert sys.getrefcount(False) - false_before > -100
