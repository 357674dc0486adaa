"""Colours and small painted icons that stay readable in light and dark palettes."""

from __future__ import annotations

from typing import Literal

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPalette, QPixmap
from PySide6.QtWidgets import QApplication, QWidget

Tone = Literal["info", "success", "warning", "error", "added", "removed", "hunk", "accent", "muted"]

# (light palette, dark palette)
_TONES: dict[str, tuple[str, str]] = {
    "info": ("#0969da", "#58a6ff"),
    "success": ("#1a7f37", "#3fb950"),
    "warning": ("#9a6700", "#d29922"),
    "error": ("#cf222e", "#f85149"),
    "added": ("#1a7f37", "#3fb950"),
    "removed": ("#cf222e", "#f85149"),
    "hunk": ("#8250df", "#bc8cff"),
    "accent": ("#0969da", "#58a6ff"),
    "muted": ("#57606a", "#8b949e"),
}


def palette() -> QPalette:
    """The application palette (a default one when there is no application)."""
    app = QApplication.instance()
    return app.palette() if isinstance(app, QApplication) else QPalette()


def is_dark(pal: QPalette | None = None) -> bool:
    """Whether the palette's window colour is dark."""
    pal = pal or palette()
    return pal.color(QPalette.ColorRole.Window).lightness() < 128


def tone(name: Tone, pal: QPalette | None = None) -> QColor:
    """A foreground colour for ``name`` that contrasts with the palette's base."""
    light, dark = _TONES[name]
    return QColor(dark if is_dark(pal) else light)


def tint(name: Tone, pal: QPalette | None = None, strength: float = 0.16) -> QColor:
    """A background: ``name`` blended into the palette's base colour."""
    pal = pal or palette()
    base = pal.color(QPalette.ColorRole.Base)
    fg = tone(name, pal)
    mix = max(0.0, min(1.0, strength * (1.6 if is_dark(pal) else 1.0)))

    def blend(a: int, b: int) -> int:
        return round(a + (b - a) * mix)

    return QColor(
        blend(base.red(), fg.red()), blend(base.green(), fg.green()), blend(base.blue(), fg.blue())
    )


def dot_icon(color: QColor, size: int = 12) -> QIcon:
    """A filled circle, used as a marker in lists."""
    ratio = 2.0
    pixmap = QPixmap(int(size * ratio), int(size * ratio))
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(color)
    inset = size * 0.2
    painter.drawEllipse(QRectF(inset, inset, size - 2 * inset, size - 2 * inset))
    painter.end()
    return QIcon(pixmap)


def mute(widget: QWidget) -> None:
    """Give a label secondary (muted but readable) text, instead of the faint disabled look."""
    pal = widget.palette()
    color = tone("muted", pal)
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text):
        pal.setColor(role, color)
    widget.setPalette(pal)
