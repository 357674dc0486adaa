"""Composition root of the window.

For now a minimal main window; the full shell (qasync loop, tabs, tray, single instance)
replaces it in the GUI issue. Qt is imported here and in ``desktop.ui`` only.
"""

from __future__ import annotations

import argparse
import signal
import sys

APP_TITLE = "nanobot Desktop"


def build_main_window() -> object:
    """Create (not show) the main window."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QLabel, QMainWindow

    window = QMainWindow()
    window.setWindowTitle(APP_TITLE)
    label = QLabel(
        "<h2>nanobot Desktop</h2>"
        "<p>The chat window is on its way. Meanwhile, chat from a terminal:</p>"
        "<p><code>nanobot-desktop agent</code></p>"
        "<p>Store a provider key with <code>nanobot-desktop keys set PROVIDER</code>; "
        "see <code>nanobot-desktop status</code>.</p>"
    )
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setAccessibleName("Welcome")
    window.setCentralWidget(label)
    window.resize(900, 640)
    return window


def run_app(args: argparse.Namespace | None = None) -> int:
    """Open the window and run the Qt event loop until it closes."""
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv)
    app.setApplicationName(APP_TITLE)
    app.setDesktopFileName("nanobot-desktop")
    # Ctrl-C in the terminal quits (Qt would otherwise swallow SIGINT).
    signal.signal(signal.SIGINT, lambda *_: app.quit())
    window = build_main_window()
    window.show()  # type: ignore[attr-defined]
    from PySide6.QtCore import QTimer

    heartbeat = QTimer()
    heartbeat.start(200)  # lets Python run signal handlers while Qt waits
    heartbeat.timeout.connect(lambda: None)
    return int(app.exec())
