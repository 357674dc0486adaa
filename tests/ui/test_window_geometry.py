"""The window fits the screen it opens on (issue 9 C): first run at QT_SCALE_FACTOR=2 on a
1920×1080 screen, and a geometry remembered from a bigger or disconnected screen.

Each case starts the window in a subprocess on Qt's offscreen platform with a configured
screen (the scale factor is read once per process)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import cast

import pytest

from tests.conftest import REPO

PROBE = r"""
import json, sys
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv)
from desktop.app import build_main_window
from desktop.ui.main_window import MainWindow
from typing import cast
mode = sys.argv[1]
saved = None
if mode == "restore":
    donor = MainWindow()  # saved on a 3840x2160 screen far to the right
    donor.setGeometry(2600, 300, 3000, 1800)
    saved = donor.geometry_text()
window = build_main_window(saved)
window.show()
for _ in range(5):  # the first show re-fits with the real frame (a zero-time timer)
    app.processEvents()
area = window.screen().availableGeometry()
g = window.frameGeometry()
print(json.dumps({"area": [area.x(), area.y(), area.width(), area.height()],
                  "window": [g.x(), g.y(), g.width(), g.height()],
                  "dpr": window.devicePixelRatioF()}))
"""


def _run(tmp_path: Path, mode: str, width: int, height: int, scale: str) -> dict[str, list[int]]:
    screens = tmp_path / "screens.json"
    screens.write_text(
        json.dumps(
            {
                "screens": [
                    {
                        "name": "s",
                        "x": 0,
                        "y": 0,
                        "width": width,
                        "height": height,
                        "logicalDpi": 96,
                        "logicalBaseDpi": 96,
                        "dpr": 1,
                    }
                ]
            }
        )
    )
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "PYTHONPATH": str(REPO),
        "QT_QPA_PLATFORM": f"offscreen:configfile={screens}",
        "QT_SCALE_FACTOR": scale,
    }
    result = subprocess.run(
        [sys.executable, "-c", PROBE, mode],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return cast("dict[str, list[int]]", json.loads(result.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize(("width", "height", "scale"), [(1920, 1080, "2"), (1024, 700, "1")])
def test_first_run_fits_the_screen(tmp_path: Path, width: int, height: int, scale: str) -> None:
    found = _run(tmp_path, "first", width, height, scale)
    x, y, w, h = found["window"]
    ax, ay, aw, ah = found["area"]
    assert aw * float(scale) == width  # the scale factor is in force
    assert ax <= x and ay <= y and x + w <= ax + aw and y + h <= ay + ah, found


def test_remembered_geometry_is_clamped_to_the_screen(tmp_path: Path) -> None:
    found = _run(tmp_path, "restore", 1920, 1080, "1")
    x, y, w, h = found["window"]
    ax, ay, aw, ah = found["area"]
    assert ax <= x and ay <= y and x + w <= ax + aw and y + h <= ay + ah, found
