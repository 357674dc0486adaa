"""Paint one laid-out conversation row: background, documents, spinner, copy button."""

from __future__ import annotations

import math
from collections import OrderedDict

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QPainter,
    QPalette,
    QPen,
    QPixmap,
    QTextCursor,
    QTextDocument,
)

from desktop.ui.chat.colors import ChatColors, mix
from desktop.ui.chat.row_layout import DocPart, RowLayout
from desktop.ui.i18n import tr

Selection = tuple[int, int, int]  # part index, anchor position, cursor position


class PixelCache:
    """Rendered documents as pixmaps (drawing a pixmap is far cheaper than laying out text
    again on every frame). Bounded; very tall documents are drawn directly instead."""

    def __init__(self, limit: int = 96, max_height: float = 1600.0) -> None:
        self.limit = limit
        self.max_height = max_height
        self._pixmaps: OrderedDict[int, tuple[QTextDocument, QPixmap]] = OrderedDict()

    def clear(self) -> None:
        """Drop every pixmap (palette or scale changed)."""
        self._pixmaps.clear()

    def get(self, part: DocPart, palette: QPalette, ratio: float) -> QPixmap | None:
        """The pixmap of ``part``'s document, rendered on first use (``None``: draw directly)."""
        if part.volatile:
            return None
        size = part.doc.size()
        if size.height() > self.max_height or size.width() <= 0 or size.height() <= 0:
            return None
        key = id(part.doc)
        cached = self._pixmaps.get(key)
        if cached is not None and cached[0] is part.doc:
            self._pixmaps.move_to_end(key)
            return cached[1]
        pixmap = QPixmap(math.ceil(size.width() * ratio) + 2, math.ceil(size.height() * ratio) + 2)
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        ctx = QAbstractTextDocumentLayout.PaintContext()
        ctx.palette = palette
        part.doc.documentLayout().draw(painter, ctx)
        painter.end()
        self._pixmaps[key] = (part.doc, pixmap)  # the doc is kept so its id stays unique
        if len(self._pixmaps) > self.limit:
            self._pixmaps.popitem(last=False)
        return pixmap


def paint_row(
    painter: QPainter,
    layout: RowLayout,
    top: float,
    colors: ChatColors,
    *,
    clip: QRectF,
    hovered: bool,
    spin_angle: int,
    selection: Selection | None = None,
    pixels: PixelCache | None = None,
    ratio: float = 1.0,
) -> None:
    """Draw ``layout`` with its top edge at viewport ``top``."""
    painter.save()
    painter.translate(0, top)
    local_clip = clip.translated(0, -top)
    _background(painter, layout, colors)
    palette = QPalette()
    palette.setColor(QPalette.ColorRole.Text, colors.text)
    for index, part in enumerate(layout.parts):
        rect = part.rect()
        if not rect.intersects(local_clip):
            continue
        selected = selection is not None and selection[0] == index and selection[1] != selection[2]
        if pixels is not None and not selected:
            pixmap = pixels.get(part, palette, ratio)
            if pixmap is not None:
                painter.drawPixmap(QPointF(part.x, part.y), pixmap)
                continue
        ctx = QAbstractTextDocumentLayout.PaintContext()
        ctx.palette = palette
        ctx.clip = local_clip.translated(-part.x, -part.y)
        if selected and selection is not None:
            cursor = QTextCursor(part.doc)
            cursor.setPosition(selection[1])
            cursor.setPosition(selection[2], QTextCursor.MoveMode.KeepAnchor)
            chosen = QAbstractTextDocumentLayout.Selection()
            chosen.cursor = cursor
            chosen.format.setBackground(colors.selection)
            chosen.format.setForeground(QColor("#ffffff"))
            ctx.selections = [chosen]
        painter.save()
        painter.translate(part.x, part.y)
        painter.setClipRect(QRectF(0, 0, rect.width() + 1, rect.height() + 1))
        part.doc.documentLayout().draw(painter, ctx)
        painter.restore()
    if layout.spinner is not None:
        _spinner(painter, layout.spinner, colors, spin_angle)
    if hovered and layout.copy is not None:
        _copy_button(painter, layout.copy, colors)
    painter.restore()


def _background(painter: QPainter, layout: RowLayout, colors: ChatColors) -> None:
    card = layout.card
    if card is None:
        return
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    if layout.style == "bubble":
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(colors.bubble)
        painter.drawRoundedRect(card, 12, 12)
        return
    painter.setPen(QPen(colors.border, 1))
    painter.setBrush(colors.card)
    painter.drawRoundedRect(card.adjusted(0.5, 0.5, -0.5, -0.5), 8, 8)
    marker = {
        "ok": colors.ok,
        "error": colors.error,
        "warn": colors.warn,
        "accent": colors.accent,
    }.get(layout.marker)
    if marker is not None:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(marker)
        painter.drawRoundedRect(QRectF(card.x() + 1, card.y() + 1, 3, card.height() - 2), 1.5, 1.5)


def _spinner(painter: QPainter, rect: QRectF, colors: ChatColors, angle: int) -> None:
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.setPen(QPen(mix(colors.muted, colors.base, 0.35), 2))
    painter.drawEllipse(rect.adjusted(1, 1, -1, -1))
    pen = QPen(colors.accent, 2)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    painter.setPen(pen)
    painter.drawArc(rect.adjusted(1, 1, -1, -1), -angle * 16, 100 * 16)


def _copy_button(painter: QPainter, rect: QRectF, colors: ChatColors) -> None:
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setPen(QPen(colors.border, 1))
    painter.setBrush(colors.base)
    painter.drawRoundedRect(rect.adjusted(0.5, 0.5, -0.5, -0.5), 5, 5)
    painter.setPen(colors.muted)
    font = painter.font()
    font.setPointSizeF(max(6.0, font.pointSizeF() * 0.8))
    painter.setFont(font)
    painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, tr("Copy"))


def spinner_dirty_rect(layout: RowLayout, top: float) -> QRectF | None:
    """The viewport rectangle to repaint for the next spinner frame."""
    if layout.spinner is None:
        return None
    return layout.spinner.translated(QPointF(0, top)).adjusted(-2, -2, 2, 2)
