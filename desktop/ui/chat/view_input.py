"""Mouse and keyboard handling of the conversation view: links, copy buttons, card toggles,
text selection, the context menu. Mixed into :class:`~desktop.ui.chat.message_view.MessageView`
(it relies on the view's row geometry and layouts)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from PySide6.QtCore import QEvent, QPoint, QPointF, QRectF, Qt, QUrl
from PySide6.QtGui import (
    QContextMenuEvent,
    QDesktopServices,
    QGuiApplication,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QTextCursor,
)
from PySide6.QtWidgets import QAbstractScrollArea, QMenu

from desktop.ui.chat.diff_view import PREVIEW, preview_href, row_paths
from desktop.ui.chat.markdown import COPY_CODE
from desktop.ui.chat.row_layout import TOGGLE, VERSION, RowLayout
from desktop.ui.i18n import QT_TR_NOOP, tr

if TYPE_CHECKING:
    from PySide6.QtCore import Signal

    from desktop.ui.chat.items import ChatItem
    from desktop.ui.chat.message_model import MessageModel
    from desktop.ui.chat.read_aloud import ReadAloud

    _Host = QAbstractScrollArea  # the widget this is mixed into, for the type checker
else:
    _Host = object

COPIED: dict[str, str] = {  # what the view's ``copied`` signal names -> the notice (marked)
    "Code": QT_TR_NOOP("Code copied"),
    "Message": QT_TR_NOOP("Message copied"),
    "Selection": QT_TR_NOOP("Selection copied"),
}


class ViewInput(_Host):
    """Input handlers of :class:`MessageView` (a mixin; not a widget of its own).

    The attributes and methods declared below belong to :class:`MessageView`; they are
    declared here so the type checker checks every use of them.
    """

    _model: MessageModel | None
    _heights: list[float]
    _tops: list[float]
    _hover: int
    _current: int
    _selecting: bool
    _selection: tuple[int, int, int, int] | None
    open_links: bool
    reader: ReadAloud
    linkActivated: ClassVar[Signal]
    copied: ClassVar[Signal]
    editRequested: ClassVar[Signal]
    regenerateRequested: ClassVar[Signal]
    versionRequested: ClassVar[Signal]
    currentRowChanged: ClassVar[Signal]

    if TYPE_CHECKING:

        def _items(self) -> list[ChatItem]: ...
        def _layout(self, row: int) -> RowLayout: ...
        def _visible(self) -> range: ...
        def _row_top(self, row: int) -> float: ...
        def _sync(self) -> None: ...
        def _mark(self, row: int) -> None: ...
        def visible_rows(self) -> range: ...
        def row_rect(self, row: int) -> QRectF: ...
        def scroll_to_bottom(self) -> None: ...

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
        if hit is not None and hit[0] != self._current:
            self._current = hit[0]
            self.viewport().update()
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
        elif href.startswith(VERSION):
            self.versionRequested.emit(row, -1 if href.endswith("-1") else 1)
        else:
            self.linkActivated.emit(href)
            if self.open_links and not href.startswith(PREVIEW):  # the preview pane opens it
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
                    from desktop.ui.chat.math_render import selection_text

                    chosen = cursor.selection()  # formulas copy as their TeX source
                    return selection_text(chosen.toPlainText(), chosen.toHtml())
        return ""

    # -- keyboard -------------------------------------------------------------------------
    def current_row(self) -> int:
        """The row the keyboard is on (``-1``: none)."""
        return self._current if 0 <= self._current < len(self._items()) else -1

    def set_current_row(self, row: int) -> None:
        """Put the keyboard on ``row`` and scroll it into view."""
        count = len(self._items())
        if not count:
            self._current = -1
            return
        self._current = max(0, min(row, count - 1))
        self._ensure_visible(self._current)
        self.viewport().update()
        self.currentRowChanged.emit(self._current)

    def _ensure_visible(self, row: int) -> None:
        self._sync()
        bar = self.verticalScrollBar()
        top, height = self._tops[row], self._heights[row]
        view = self.viewport().height()
        value = bar.value()
        if top < value or height > view:
            target = top
        elif top + height + 2 * self._pad() > value + view:
            target = top + height + 2 * self._pad() - view
        else:
            return
        self._stick = row == len(self._heights) - 1 and height <= view
        self._scroll_anchor = (row, target - top)
        if not self._stick:
            self._adjusting = True
            try:
                bar.setValue(int(target))
            finally:
                self._adjusting = False

    @staticmethod
    def _pad() -> float:
        return 12.0

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: C901  # one branch per key binding
        """Up/Down move between messages; Left/Right switch the versions of a message that has
        them; Enter or Space opens a card or the reasoning;
        Ctrl+C copies the selection (else the message); the Menu key (or Shift+F10) opens the
        message's actions (copy code, edit, regenerate); Home/End jump."""
        key = event.key()
        current = self.current_row()
        if key == Qt.Key.Key_Escape and self.reader.speaking:
            self.reader.stop()
            return
        if event.matches(QKeySequence.StandardKey.Copy):
            if self.selected_text():
                self._copy(self.selected_text(), "Selection")
            elif current >= 0:
                self._copy(self._items()[current].plain_text(), "Message")
            return
        if key in (Qt.Key.Key_Up, Qt.Key.Key_Down) and not event.modifiers():
            step = -1 if key == Qt.Key.Key_Up else 1
            start = len(self._items()) if current < 0 and step < 0 else current
            self.set_current_row(start + step)
            return
        if key in (Qt.Key.Key_Left, Qt.Key.Key_Right) and not event.modifiers() and current >= 0:
            fork = self._items()[current].fork
            if fork is not None:
                step = -1 if key == Qt.Key.Key_Left else 1
                if 1 <= fork[1] + step <= fork[2]:
                    self.versionRequested.emit(current, step)
                return
        opens = key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space)
        if opens and current >= 0 and self._items()[current].kind in ("tool", "reasoning"):
            self.toggle(current)
            self._ensure_visible(current)
            return
        if key == Qt.Key.Key_Menu or (
            key == Qt.Key.Key_F10 and event.modifiers() == Qt.KeyboardModifier.ShiftModifier
        ):
            if current >= 0:
                self._row_menu(current, self.mapToGlobal(self._menu_point(current)))
            return
        if key == Qt.Key.Key_End:
            self.scroll_to_bottom()
            if self._items():
                self._current = len(self._items()) - 1
            return
        if key == Qt.Key.Key_Home:
            self._stick = False
            self.verticalScrollBar().setValue(0)
            if self._items():
                self._current = 0
                self.viewport().update()
            return
        super().keyPressEvent(event)

    def _menu_point(self, row: int) -> QPoint:
        """Where the keyboard's menu opens for ``row`` (widget coordinates)."""
        self.visible_rows()
        rect = self.row_rect(row)
        y = int(max(0.0, min(rect.top() + 20, self.viewport().height() - 10)))
        return self.viewport().mapTo(self, QPoint(int(rect.left() + 40), y))

    # -- context menu ---------------------------------------------------------------------
    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        """The actions of the message under the mouse (or the keyboard's current message)."""
        if event.reason() == event.Reason.Keyboard:
            row = self.current_row()
            if row >= 0:
                self._row_menu(row, self.mapToGlobal(self._menu_point(row)))
            return
        hit = self._hit(QPointF(event.pos()))  # viewport coordinates (a scroll area's event)
        if hit is not None:
            self._current = hit[0]
        self._row_menu(hit[0] if hit is not None else -1, event.globalPos())

    def row_actions(self, row: int) -> list[tuple[str, Any]]:
        """What can be done with ``row`` (label, callable): the context menu's entries."""
        actions: list[tuple[str, Any]] = []
        selected = self.selected_text()
        if selected:
            actions.append((tr("Copy"), lambda: self._copy(selected, "Selection")))
        items = self._items()
        if not 0 <= row < len(items):
            return actions
        item = items[row]
        actions.append((tr("Copy message"), lambda: self._copy(item.plain_text(), "Message")))
        blocks = [
            (i, b) for i, part in enumerate(self._layout(row).parts) for b in part.code_blocks
        ]
        for number, (_part, block) in enumerate(blocks, 1):
            label = tr("Copy code block {number}").format(number=number)
            label = tr("Copy code") if len(blocks) == 1 else label
            actions.append((label, lambda b=block: self._copy(b, "Code")))
        actions += self._preview_actions(row, item)  # the keyboard's way to its file links
        if item.kind in ("tool", "reasoning"):
            actions.append((toggle_label(item), lambda: self.toggle(row)))
        if item.kind == "user" and not item.echo:
            actions.append((tr("Edit and resend…"), lambda: self.editRequested.emit(row)))
        if item.fork is not None:
            _at, current, total = item.fork
            if current > 1:
                label = tr("Show version {number} of {total}").format(
                    number=current - 1, total=total
                )
                actions.append((label, lambda: self.versionRequested.emit(row, -1)))
            if current < total:
                label = tr("Show version {number} of {total}").format(
                    number=current + 1, total=total
                )
                actions.append((label, lambda: self.versionRequested.emit(row, 1)))
        actions.extend(self.reader.entries(item, streaming=item_streaming(item)))
        if item.kind == "assistant" and self._is_last_answer(row):
            actions.append((tr("Regenerate answer"), self.regenerateRequested.emit))
        return actions

    def _preview_actions(self, row: int, item: ChatItem) -> list[tuple[str, Any]]:
        return [
            (
                tr("Preview {path}").format(path=path),
                lambda p=path: self.activate(row, preview_href(p)),
            )
            for path in row_paths(item)
        ]

    def _is_last_answer(self, row: int) -> bool:
        items = self._items()
        later = items[row + 1 :]
        return not item_streaming(items[row]) and not any(
            i.kind in ("user", "assistant") and not i.echo for i in later
        )

    def _row_menu(self, row: int, where: QPoint) -> None:
        menu = QMenu(self)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        for label, slot in self.row_actions(row):
            menu.addAction(label, slot)
        if menu.actions():
            menu.popup(where)  # no nested event loop
        else:
            menu.deleteLater()


def toggle_label(item: ChatItem) -> str:
    """The menu entry that opens or closes a tool card or a reasoning row."""
    if item.kind == "tool":
        return tr("Hide details") if item.expanded else tr("Show details")
    return tr("Hide reasoning") if item.expanded else tr("Show reasoning")


def item_streaming(item: Any) -> bool:
    """Whether ``item`` is an answer still streaming."""
    return bool(getattr(item, "streaming", False))
