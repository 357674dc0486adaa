"""A small mark per chat channel: a rounded square in the platform's colour with its initial.

Drawn, not shipped: no platform's logo is copied (they are trademarks), yet each channel is
recognisable at a glance in the chat list and on the usage page. One colour per platform, the
one people know it by; white letters on it (every colour here keeps white text readable).
"""

from __future__ import annotations

import base64
import functools

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPixmap

MARKS: dict[str, tuple[str, str]] = {
    "telegram": ("#1f8fc7", "T"),
    "discord": ("#5865f2", "D"),
    "slack": ("#611f69", "S"),
    "feishu": ("#3370ff", "F"),
    "dingtalk": ("#007fe8", "D"),
    "email": ("#5f6b7a", "@"),
    "matrix": ("#0a7f5c", "M"),
    "qq": ("#0e8fc4", "Q"),
    "whatsapp": ("#128c4a", "W"),
    "mochat": ("#d2570a", "M"),
    "mattermost": ("#1e325c", "M"),
    "msteams": ("#5b5fc7", "T"),
    "signal": ("#3a76f0", "S"),
    "napcat": ("#c2185b", "N"),
    "wecom": ("#0070d0", "W"),
    "weixin": ("#078a45", "W"),
    "websocket": ("#6d3fd6", "W"),
    "desktop": ("#2b59c3", "N"),
    "api": ("#4b5563", "A"),
    "cli": ("#374151", ">"),
}
"""Channel name → (colour, letter). Channels not listed get a grey mark with their initial."""

FALLBACK = "#6b7280"


def mark_of(channel: str) -> tuple[str, str]:
    """The colour and letter of ``channel``'s mark."""
    found = MARKS.get(channel)
    if found is not None:
        return found
    return FALLBACK, (channel[:1] or "?").upper()


@functools.lru_cache(maxsize=128)
def channel_pixmap(channel: str, size: int = 16, ratio: float = 1.0) -> QPixmap:
    """``channel``'s mark, ``size`` logical pixels square, for a screen of pixel ``ratio``."""
    colour, letter = mark_of(channel)
    pixels = max(1, round(size * ratio))
    pixmap = QPixmap(pixels, pixels)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(colour))
    radius = pixels * 0.22
    painter.drawRoundedRect(QRectF(0, 0, pixels, pixels), radius, radius)
    font = QFont()
    font.setBold(True)
    font.setPixelSize(max(6, round(pixels * 0.62)))
    painter.setFont(font)
    painter.setPen(QColor("#ffffff"))
    painter.drawText(QRectF(0, 0, pixels, pixels), Qt.AlignmentFlag.AlignCenter, letter)
    painter.end()
    pixmap.setDevicePixelRatio(ratio)
    return pixmap


def channel_icon(channel: str) -> QIcon:
    """``channel``'s mark as an icon (16 and 32 pixels)."""
    icon = QIcon()
    for size in (16, 32):
        icon.addPixmap(channel_pixmap(channel, size))
    return icon


@functools.lru_cache(maxsize=64)
def channel_img_html(channel: str, size: int = 14) -> str:
    """``channel``'s mark as an ``<img>`` for Qt rich text (a PNG data URL, drawn at twice the
    size so it stays sharp on a high-density screen)."""
    pixmap = channel_pixmap(channel, size * 2)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    pixmap.save(buffer, "PNG")
    buffer.close()
    encoded = base64.b64encode(bytes(data.data())).decode("ascii")
    return (
        f"<img src='data:image/png;base64,{encoded}' width='{size}' height='{size}' "
        f"style='vertical-align: middle'>"
    )
