"""The (minimal) main window."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from pytestqt.qtbot import QtBot

from desktop.app import build_main_window
from tests.conftest import CLI, cli_env


def test_main_window_title(qtbot: QtBot) -> None:
    """The window's title names nanobot and it shows."""
    window = build_main_window()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    assert "nanobot" in window.windowTitle()
    assert window.width() >= 800


def test_no_arguments_opens_the_window(isolated_env: Path, tmp_path: Path) -> None:
    """`nanobot-desktop` with no arguments runs the GUI until interrupted, then exits cleanly."""
    env = cli_env(isolated_env, QT_QPA_PLATFORM="offscreen")
    process = subprocess.Popen([CLI], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(4)
        assert process.poll() is None, process.communicate()
        process.send_signal(2)  # Ctrl-C
        out, err = process.communicate(timeout=15)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert "Traceback" not in err
