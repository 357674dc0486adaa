"""Mouse and keyboard handling of the conversation view: links, copy buttons, card toggles,
text selection, the context menu. Mixed into :class:`~desktop.ui.chat.message_view.MessageView`
(it relies on the view's row geometry and layouts)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QPointF, Qt, QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication, QKeySequence, QMouseEvent, QTextCursor
from PySide6.QtWidgets import QMenu

from desktop.ui.chat.markdown import COPY_CODE
from desktop.ui.chat.row_layout import TOGGLE, RowLayout


class ViewInput:
    """Input handlers of :class:`MessageView` (a mixin; not a widget of its own)."""

    # -- hit testing ----------------------------------------------------------------------
    def _hit(self, pos: QPointF) -> tuple[int, RowLayout, QPointF] | None:
        if self._model is None:
            return None
        for row in self._visible():
            top = self._row_top(row)
            if top <= pos.y() < top + self._heights[row]:
                return row, self._layout(row), QPointF(pos.x(), pos.y() - top)
        return None

    @staticmethod
    def _anchor(layout: RowLayout, local: QPointF) -> tuple[str, int]:
        for index, part in enumerate(layout.parts):
            if part.rect().contains(local):
                href = part.doc.documentLayout().anchorAt(local - QPointF(part.x, part.y))
                if href:
                    return href, index
        return "", -1

    @staticmethod
    def _text_position(layout: RowLayout, local: QPointF) -> tuple[int, int]:
        for index, part in enumerate(layout.parts):
            rect = part.rect()
            if rect.adjusted(-4, -4, 4, 4).contains(local):
                where = part.doc.documentLayout().hitTest(
                    local - QPointF(part.x, part.y), Qt.HitTestAccuracy.FuzzyHit
                )
                return index, max(0, where)
        return -1, -1

    # -- mouse ----------------------------------------------------------------------------
    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        """Hover feedback, and extending a text selection."""
        pos = event.position()
        hit = self._hit(pos)
        row = hit[0] if hit else -1
        if row != self._hover:
            self._hover = row
            self.viewport().update()
        if self._selecting and self._selection is not None and hit is not None:
            uid, part, anchor, _ = self._selection
            if self._items()[row].uid == uid:
                index, where = self._text_position(hit[1], hit[2])
                if index == part:
                    self._selection = (uid, part, anchor, where)
                    self.viewport().update()
            return
        shape = Qt.CursorShape.ArrowCursor
        if hit is not None:
            _, layout, local = hit
            if (
                self._anchor(layout, local)[0]
                or (layout.copy and layout.copy.contains(local))
                or (layout.toggle and layout.toggle.contains(local))
            ):
                shape = Qt.CursorShape.PointingHandCursor
            elif self._text_position(layout, local)[0] >= 0:
                shape = Qt.CursorShape.IBeamCursor
        self.viewport().setCursor(shape)

    def leaveEvent(self, event: QEvent) -> None:
        """No hovered row."""
        self._hover = -1
        self.viewport().update()
        super().leaveEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        """Copy buttons, links, card toggles, or the start of a selection."""
        self.setFocus(Qt.FocusReason.MouseFocusReason)
        if event.button() != Qt.MouseButton.LeftButton:
            return
        hit = self._hit(event.position())
        self._pressed = None
        if self._selection is not None:
            self._selection = None
            self.viewport().update()
        if hit is None:
            return
        row, layout, local = hit
        item = self._items()[row]
        if layout.copy is not None and layout.copy.contains(local) and row == self._hover:
            self._copy(item.plain_text(), "Message")
            return
        href, part = self._anchor(layout, local)
        if href:
            self._pressed = (item.uid, href, part)
            return
        if layout.toggle is not None and layout.toggle.contains(local):
            self.toggle(row)
            return
        index, where = self._text_position(layout, local)
        if index >= 0:
            self._selection = (item.uid, index, where, where)
            self._selecting = True

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        """Activate the link pressed on, if the mouse is still over it."""
        self._selecting = False
        pressed, self._pressed = self._pressed, None
        if pressed is None:
            return
        hit = self._hit(event.position())
        if hit is None or self._items()[hit[0]].uid != pressed[0]:
            return
        href, part = self._anchor(hit[1], hit[2])
        if href == pressed[1]:
            self.activate(hit[0], href, part)

    def activate(self, row: int, href: str, part: int = 0) -> None:
        """Do what a link means: copy a code block, toggle a card, or open a URL."""
        layout = self._layout(row)
        if href.startswith(COPY_CODE):
            blocks = layout.parts[part].code_blocks if 0 <= part < len(layout.parts) else []
            index = int(href[len(COPY_CODE) :] or -1)
            if 0 <= index < len(blocks):
                self._copy(blocks[index], "Code")
        elif href.startswith(TOGGLE):
            self.toggle(row)
        else:
            self.linkActivated.emit(href)
            if self.open_links:
                QDesktopServices.openUrl(QUrl(href))

    def toggle(self, row: int) -> None:
        """Expand or collapse a tool card or reasoning row."""
        item = self._items()[row]
        if item.kind in ("tool", "reasoning") and self._model is not None:
            item.expanded = not item.expanded
            self._model.changed(item)
            self._mark(row)

    def _copy(self, text: str, what: str) -> None:
        QGuiApplication.clipboard().setText(text)
        self.copied.emit(what)

    def selected_text(self) -> str:
        """The selected text of a message ("" when nothing is selected)."""
        if self._selection is None:
            return ""
        uid, part, anchor, position = self._selection
        for row, item in enumerate(self._items()):
            if item.uid == uid:
                parts = self._layout(row).parts
                if 0 <= part < len(parts):
                    cursor = QTextCursor(parts[part].doc)
                    cursor.setPosition(anchor)
                    cursor.setPosition(position, QTextCursor.MoveMode.KeepAnchor)
                    return cursor.selection().toPlainText()
        return ""

    def keyPressEvent(self, event: Any) -> None:
        """Ctrl+C copies the selection; Home/End jump."""
        if event.matches(QKeySequence.StandardKey.Copy) and self.selected_text():
            self._copy(self.selected_text(), "Selection")
            return
        if event.key() == Qt.Key.Key_End:
            self.scroll_to_bottom()
            return
        if event.key() == Qt.Key.Key_Home:
            self._stick = False
            self.verticalScrollBar().setValue(0)
            return
        super().keyPressEvent(event)

    def contextMenuEvent(self, event: Any) -> None:
        """Copy selection / copy message (the menu pops up without a nested event loop)."""
        hit = self._hit(QPointF(event.pos()))
        menu = QMenu(self)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        selected = self.selected_text()
        if selected:
            menu.addAction("Copy", lambda: self._copy(selected, "Selection"))
        if hit is not None:
            item = self._items()[hit[0]]
            menu.addAction("Copy message", lambda: self._copy(item.plain_text(), "Message"))
        if menu.actions():
            menu.popup(event.globalPos())
        else:
            menu.deleteLater()
