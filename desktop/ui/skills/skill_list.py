"""The list of skills: name, source and always-on badges, description, availability."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt, Signal
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QListWidget,
    QListWidgetItem,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QWidget,
)

from desktop.core.engine.skills import SkillListing
from desktop.ui.i18n import QT_TR_NOOP, tr
from desktop.ui.memory.look import Tone, tint, tone
from desktop.ui.phrase_text import shown

ListingRole = Qt.ItemDataRole.UserRole + 1
PAD = 8
_Index = QModelIndex | QPersistentModelIndex
#: A skill's source, as its badge and description say it.
SOURCE_LABELS = {"builtin": QT_TR_NOOP("builtin"), "workspace": QT_TR_NOOP("workspace")}
#: What a skill needs, by the core's kind (``binary: gh``, ``env: TOKEN``).
MISSING_KINDS = {"binary": QT_TR_NOOP("binary: {name}"), "env": QT_TR_NOOP("env: {name}")}


def missing_text(missing: tuple[str, ...]) -> str:
    """``("binary: gh", "env: TOKEN")`` as a short list in the window's language."""
    parts = []
    for item in missing:
        kind, _, name = item.partition(": ")
        template = MISSING_KINDS.get(kind)
        parts.append(tr(template).format(name=name) if template else item)
    return ", ".join(parts)


def status_line(listing: SkillListing) -> tuple[Tone, str] | None:
    """The third line of a row: what is wrong or special about the skill, if anything."""
    if listing.error:
        return "error", tr("✕ Not usable: {reason}").format(reason=shown(listing.error))
    skill = listing.skill
    if skill is not None and not skill.available:
        return "warning", tr("⚠ Unavailable, missing {items}").format(
            items=missing_text(skill.missing)
        )
    if listing.shadowed:
        return "muted", tr("Replaced by the workspace skill of the same name")
    return None


def badges(listing: SkillListing) -> list[tuple[str, Tone]]:
    """Small labels drawn beside the name."""
    source = tr(SOURCE_LABELS.get(listing.source, listing.source))
    found: list[tuple[str, Tone]] = [(source, "info" if listing.source == "workspace" else "muted")]
    if listing.skill is not None and listing.skill.always:
        found.append((tr("always on"), "accent"))
    return found


def accessible_text(listing: SkillListing) -> str:
    """One sentence describing the row for screen readers and tests."""
    parts = [
        listing.name,
        tr("workspace skill") if listing.source == "workspace" else tr("builtin skill"),
    ]
    if listing.skill is not None:
        if listing.skill.always:
            parts.append(tr("always on"))
        parts.append(listing.skill.description)
    status = status_line(listing)
    parts.append(status[1].lstrip("✕⚠ ") if status else tr("available"))
    return ", ".join(parts)


class SkillDelegate(QStyledItemDelegate):
    """Paints a skill as two or three lines with badges."""

    def _lines(self, listing: SkillListing) -> int:
        return 3 if status_line(listing) else 2

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        """Height for two or three lines."""
        listing = index.data(ListingRole)
        height = QFontMetrics(option.font).height()
        lines = self._lines(listing) if isinstance(listing, SkillListing) else 1
        return QSize(200, PAD * 2 + lines * height + (lines - 1) * 3)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        """Draw the row."""
        listing = index.data(ListingRole)
        if not isinstance(listing, SkillListing):
            super().paint(painter, option, index)
            return
        style = option.widget.style() if option.widget else QApplication.style()
        style.drawPrimitive(
            QStyle.PrimitiveElement.PE_PanelItemViewItem, option, painter, option.widget
        )
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        pal: QPalette = option.palette
        text_color = pal.color(
            QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        )
        rect = option.rect.adjusted(PAD + 2, PAD, -PAD, -PAD)
        metrics = QFontMetrics(option.font)
        line_h = metrics.height()
        painter.save()
        bold = QFont(option.font)
        bold.setBold(True)
        small = QFont(option.font)
        small.setPointSizeF(max(7.0, option.font.pointSizeF() * 0.85))
        small_metrics = QFontMetrics(small)
        # badges, right to left
        right = rect.right()
        painter.setFont(small)
        for label, kind in reversed(badges(listing)):
            width = small_metrics.horizontalAdvance(label) + 12
            box = QRect(right - width, rect.top() + 1, width, line_h - 2)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(tint(kind, pal, 0.22))
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.drawRoundedRect(box, 6, 6)
            painter.setPen(tone(kind, pal))
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, label)
            right -= width + 4
        # name
        painter.setFont(bold)
        painter.setPen(text_color)
        name_rect = QRect(rect.left(), rect.top(), right - rect.left() - 4, line_h)
        painter.drawText(
            name_rect,
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
            QFontMetrics(bold).elidedText(
                listing.name, Qt.TextElideMode.ElideRight, name_rect.width()
            ),
        )
        # description
        painter.setFont(option.font)
        muted = text_color if selected else tone("muted", pal)
        painter.setPen(muted)
        description = listing.skill.description if listing.skill else listing.path.as_posix()
        line2 = QRect(rect.left(), rect.top() + line_h + 3, rect.width(), line_h)
        painter.drawText(
            line2,
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
            metrics.elidedText(description, Qt.TextElideMode.ElideRight, line2.width()),
        )
        status = status_line(listing)
        if status:
            kind, text = status
            painter.setPen(text_color if selected else tone(kind, pal))
            line3 = QRect(rect.left(), rect.top() + 2 * (line_h + 3), rect.width(), line_h)
            painter.drawText(
                line3,
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                metrics.elidedText(text, Qt.TextElideMode.ElideRight, line3.width()),
            )
        painter.restore()


class SkillList(QListWidget):
    """Skills, workspace ones first within a name, filtered by a search text.

    Signals:
        skillSelected(object): the selected :class:`SkillListing`, or ``None``.
    """

    skillSelected = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setItemDelegate(SkillDelegate(self))
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setAccessibleName(tr("Skills"))
        self.setSpacing(1)
        self._needle = ""
        self.currentItemChanged.connect(self._current_changed)

    def set_listings(self, listings: list[SkillListing]) -> None:
        """Show ``listings``; the selection stays on the same file when it is still there."""
        keep = self.selected()
        keep_path = keep.path if keep else None
        self.blockSignals(True)
        try:
            self.clear()
            for listing in listings:
                item = QListWidgetItem(self)
                item.setData(ListingRole, listing)
                item.setData(Qt.ItemDataRole.DisplayRole, listing.name)
                item.setData(Qt.ItemDataRole.AccessibleTextRole, accessible_text(listing))
                item.setToolTip(accessible_text(listing))
            self._apply_filter()
        finally:
            self.blockSignals(False)
        if keep_path is None or not self.select_path(keep_path):
            self._current_changed(self.currentItem(), None)

    def listings(self, *, visible_only: bool = False) -> list[SkillListing]:
        """The skills listed, top to bottom."""
        return [
            self.item(i).data(ListingRole)
            for i in range(self.count())
            if not (visible_only and self.item(i).isHidden())
        ]

    def selected(self) -> SkillListing | None:
        """The selected skill."""
        item = self.currentItem()
        listing = item.data(ListingRole) if item is not None else None
        return listing if isinstance(listing, SkillListing) else None

    def select_path(self, path: object) -> bool:
        """Select the skill whose SKILL.md is ``path``."""
        for i in range(self.count()):
            if self.item(i).data(ListingRole).path == path:
                self.setCurrentRow(i)
                return True
        return False

    def set_search(self, text: str) -> None:
        """Show only skills whose name or description contains ``text``."""
        self._needle = text.strip().casefold()
        self._apply_filter()

    def _apply_filter(self) -> None:
        for i in range(self.count()):
            item = self.item(i)
            listing: SkillListing = item.data(ListingRole)
            haystack = listing.name + " " + (listing.skill.description if listing.skill else "")
            item.setHidden(bool(self._needle) and self._needle not in haystack.casefold())

    def _current_changed(self, current: QListWidgetItem | None, _previous: object) -> None:
        self.skillSelected.emit(current.data(ListingRole) if current is not None else None)
