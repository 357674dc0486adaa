"""Paints one chat in the list: title, channel badge, time and status."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from desktop.core.bus.events import DESKTOP_CHANNEL
from desktop.core.session.search import SearchHit
from desktop.core.session.temporary import is_temporary
from desktop.ui.channel_marks import channel_pixmap
from desktop.ui.chat.colors import ChatColors, mix
from desktop.ui.chat.session_list_model import (
    EntryRole,
    HitRole,
    SessionEntry,
    shown_title,
    when_text,
)
from desktop.ui.i18n import tr

PAD = 8


class SessionDelegate(QStyledItemDelegate):
    """Two lines per chat; editing (rename) uses the default line edit on the title."""

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        """Two text lines plus padding."""
        metrics = QFontMetrics(option.font)
        # As wide as the list (never wider: no horizontal scroll bar in a narrow panel).
        return QSize(0, metrics.lineSpacing() * 2 + 2 * PAD + 2)

    def paint(  # draws each part of a card in turn
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        """Draw the entry."""
        entry: SessionEntry | None = index.data(EntryRole)
        if entry is None:
            return
        colors = ChatColors.from_palette(option.palette)
        painter.save()
        rect = option.rect
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        hovered = bool(option.state & QStyle.StateFlag.State_MouseOver)
        if selected or hovered:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(colors.bubble if selected else mix(colors.text, colors.base, 0.05))
            painter.drawRoundedRect(rect.adjusted(4, 2, -4, -2), 6, 6)
        text_color = option.palette.color(QPalette.ColorRole.Text)
        font = QFont(option.font)
        font.setBold(entry.unread or entry.attention)
        metrics = QFontMetrics(font)
        line = metrics.lineSpacing()
        inner = rect.adjusted(PAD + 4, PAD, -PAD - 4, -PAD)
        when = "" if entry.draft else when_text(entry.updated_at)
        small = QFont(option.font)
        small.setPointSizeF(max(6.0, option.font.pointSizeF() * 0.85))
        small_metrics = QFontMetrics(small)
        when_width = small_metrics.horizontalAdvance(when) + 6 if when else 0
        painter.setFont(font)
        painter.setPen(text_color)
        title_rect = QRect(inner.left(), inner.top(), inner.width() - when_width, line)
        painter.drawText(
            title_rect,
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
            metrics.elidedText(
                shown_title(entry.title), Qt.TextElideMode.ElideRight, title_rect.width()
            ),
        )
        painter.setFont(small)
        painter.setPen(colors.muted)
        if when:
            painter.drawText(
                QRect(inner.right() - when_width, inner.top(), when_width, line),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                when,
            )
        x = inner.left()
        second = QRect(x, inner.top() + line + 2, inner.width(), small_metrics.lineSpacing())
        if entry.channel and entry.channel != DESKTOP_CHANNEL:
            badge = entry.channel
            side = second.height()
            mark = channel_pixmap(badge, side, painter.device().devicePixelRatioF())
            painter.drawPixmap(x, second.top(), mark)
            x += side + 4
            width = small_metrics.horizontalAdvance(badge) + 10
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(mix(colors.accent, colors.base, 0.18))
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            painter.drawRoundedRect(QRect(x, second.top(), width, second.height()), 4, 4)
            painter.setPen(colors.accent)
            painter.drawText(
                QRect(x, second.top(), width, second.height()), Qt.AlignmentFlag.AlignCenter, badge
            )
            x += width + 6
        elif is_temporary(entry.key):
            badge = tr("temporary")
            width = small_metrics.horizontalAdvance(badge) + 10
            painter.setPen(colors.muted)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            painter.drawRoundedRect(QRect(x, second.top(), width, second.height() - 1), 4, 4)
            painter.drawText(
                QRect(x, second.top(), width, second.height()), Qt.AlignmentFlag.AlignCenter, badge
            )
            x += width + 6
        hit = index.data(HitRole)
        if isinstance(hit, SearchHit) and hit.message_index >= 0:
            _snippet(painter, second.adjusted(x - second.left(), 0, 0, 0), hit, small, colors)
            painter.restore()
            return
        status, color = status_text(entry), colors.muted
        if entry.attention:
            color = colors.warn
        elif entry.running or (entry.unread and not entry.draft):
            color = colors.accent
        if status:
            painter.setPen(color)
            painter.drawText(
                QRect(x, second.top(), inner.right() - x, second.height()),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                status,
            )
        painter.restore()


def status_text(entry: SessionEntry) -> str:
    """The second line's note about a chat (``""``: none)."""
    if entry.attention:
        return tr("needs your approval")
    if entry.running:
        return tr("working…")
    if entry.draft:
        return tr("new")
    if entry.unread:
        return tr("new message")
    return ""


def _snippet(
    painter: QPainter, rect: QRect, hit: SearchHit, font: QFont, colors: ChatColors
) -> None:
    """A search result's snippet in one line: the match in bold, the rest muted."""
    text = hit.snippet
    start = hit.start
    end = start + hit.length
    bold = QFont(font)
    bold.setBold(True)
    x = rect.left()
    for piece, piece_font, colour in (
        (text[:start], font, colors.muted),
        (text[start:end], bold, colors.text),
        (text[end:], font, colors.muted),
    ):
        if not piece or x >= rect.right():
            continue
        metrics = QFontMetrics(piece_font)
        width = rect.right() - x
        shown = metrics.elidedText(piece, Qt.TextElideMode.ElideRight, width)
        painter.setFont(piece_font)
        painter.setPen(colour)
        painter.drawText(
            QRect(x, rect.top(), width, rect.height()),
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
            shown,
        )
        x += metrics.horizontalAdvance(shown)
