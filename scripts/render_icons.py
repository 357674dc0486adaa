"""Render the app icon (resources/icons/nanobot.svg) to PNG sizes for desktops that want them.

Writes ``resources/icons/hicolor/<n>x<n>/apps/nanobot-desktop.png`` (the freedesktop icon-theme
layout). Run after changing the SVG: ``.venv/bin/python scripts/render_icons.py``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ROOT = Path(__file__).resolve().parent.parent / "resources" / "icons"


def main() -> int:
    """Render every size; returns the exit status."""
    app = QGuiApplication(sys.argv)  # noqa: F841 - needed for painting
    renderer = QSvgRenderer(str(ROOT / "nanobot.svg"))
    if not renderer.isValid():
        print("cannot read nanobot.svg", file=sys.stderr)
        return 1
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        target = ROOT / "hicolor" / f"{size}x{size}" / "apps" / "nanobot-desktop.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        image.save(str(target))
        print(target.relative_to(ROOT.parent.parent))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
