"""Screen-reader access to the conversation: the view is a list, every message a list item.

:class:`~desktop.ui.chat.message_view.MessageView` paints its rows itself (no widgets per
message), so without help a screen reader sees one opaque "Conversation". This module gives it
a :class:`QAccessibleInterface` with one child per row: role ``ListItem``, a name that says who
speaks and what ("You: …", "Assistant: …", "Tool read_file, succeeded: …"), expanded/collapsed
states for tool cards and reasoning, and the keyboard's current row as the focused child. Moving
with the arrow keys sends focus events, so the reader follows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QRect
from PySide6.QtGui import QAccessible, QAccessibleEvent, QAccessibleInterface
from PySide6.QtWidgets import QAccessibleWidget

from desktop.ui.chat.diff_view import spoken_diff
from desktop.ui.chat.items import ChatItem
from desktop.ui.i18n import localized, tr

if TYPE_CHECKING:
    from desktop.ui.chat.message_view import MessageView

_installed = False
_view_type: type[MessageView] | None = None


def speaker(item: ChatItem) -> str:  # noqa: C901  # one phrase per row kind
    """Who a row speaks for ("You", "Assistant", "Tool read_file, succeeded"…)."""
    kind = item.kind
    if kind == "user":
        return tr("Command") if item.echo else tr("You")
    if kind == "assistant":
        return tr("Assistant (answering)") if item.streaming else tr("Assistant")
    if kind == "reasoning":
        return tr("Reasoning")
    if kind == "tool":
        if item.awaiting_approval:
            state = tr("waiting for your approval")
        elif item.ok is None:
            state = tr("running")
        elif item.denied:
            state = tr("denied")
        else:
            state = tr("succeeded") if item.ok else tr("failed")
        return tr("Tool {tool}, {state}").format(tool=item.tool, state=state)
    if kind == "subagent":
        return tr("Background task report")
    if kind == "outbound":
        return localized(item.tool) or tr("Sent by the agent")
    if kind == "command":
        return tr("Reply to {command}").format(command=item.tool or tr("command"))
    return tr("Note")


def row_text(item: ChatItem) -> str:
    """What a screen reader says for a row."""
    text = (item.plain_text() if item.kind == "tool" else localized(item.text)).strip()
    if item.kind == "tool" and not item.expanded:
        text = ", ".join(filter(None, [item.tool, spoken_diff(item)]))
    if item.kind == "reasoning" and not item.expanded:
        text = " ".join(item.text.split())[:200]
    if item.streaming and not text:
        text = localized(item.status) or tr("Thinking…")
    if item.fork is not None:
        _at, current, total = item.fork
        text = tr("{text} (version {number} of {total}; Left and Right arrows switch)").format(
            text=text, number=current, total=total
        )
    if not text:
        return speaker(item)
    return tr("{speaker}: {text}").format(speaker=speaker(item), text=text)


class RowAccessible(QAccessibleInterface):
    """One message of the conversation, as a list item."""

    def __init__(self, view: ConversationAccessible, uid: int) -> None:
        super().__init__()
        self._view = view
        self.uid = uid

    def _row(self) -> int:
        return self._view.row_of(self.uid)

    def _item(self) -> ChatItem | None:
        row = self._row()
        return self._view.items()[row] if row >= 0 else None

    def isValid(self) -> bool:
        return self._item() is not None

    def object(self) -> Any:
        return None

    def window(self) -> Any:
        return self._view.window()

    def relations(self, match: Any = None) -> list[Any]:
        return []

    def focusChild(self) -> Any:
        return None

    def childAt(self, x: int, y: int) -> Any:
        return None

    def parent(self) -> Any:
        return self._view

    def child(self, index: int) -> Any:
        return None

    def childCount(self) -> int:
        return 0

    def indexOfChild(self, child: Any) -> int:
        return -1

    def text(self, kind: QAccessible.Text) -> str:
        item = self._item()
        if item is None:
            return ""
        if kind == QAccessible.Text.Name:
            return row_text(item)
        if kind == QAccessible.Text.Description:
            return localized(item.footer)
        return ""

    def setText(self, kind: QAccessible.Text, text: str) -> None:
        return

    def rect(self) -> QRect:
        return self._view.row_rect(self._row())

    def role(self) -> QAccessible.Role:
        return QAccessible.Role.ListItem

    def state(self) -> QAccessible.State:
        state = QAccessible.State()
        item = self._item()
        if item is None:
            state.invalid = True
            return state
        state.focusable = True
        state.selectable = True
        state.readOnly = True
        state.multiLine = True
        view = self._view.view
        row = self._row()
        if row == view.current_row():
            state.focused = view.hasFocus()
            state.selected = True
        if row not in view.visible_rows():
            state.offscreen = True
        if item.kind in ("tool", "reasoning"):
            state.expandable = True
            state.expanded = item.expanded
            state.collapsed = not item.expanded
        if item.streaming or item.running:
            state.busy = True
        return state


class ConversationAccessible(QAccessibleWidget):
    """The conversation view as a list of messages."""

    def __init__(self, view: MessageView) -> None:
        super().__init__(view, QAccessible.Role.List, tr("Conversation"))
        self.view = view
        self._rows: dict[int, RowAccessible] = {}

    def items(self) -> list[ChatItem]:
        """The shown rows."""
        model = self.view.model()
        return model.items if model is not None else []

    def row_of(self, uid: int) -> int:
        """The row of the item ``uid`` (``-1``: gone)."""
        for row, item in enumerate(self.items()):
            if item.uid == uid:
                return row
        return -1

    def row_rect(self, row: int) -> QRect:
        """Screen rectangle of ``row`` (an estimate while it is off screen)."""
        if row < 0:
            return QRect()
        rect = self.view.row_rect(row).toAlignedRect()
        top_left = self.view.viewport().mapToGlobal(rect.topLeft())
        return QRect(top_left, rect.size())

    def childCount(self) -> int:
        return len(self.items())

    def child(self, index: int) -> Any:
        items = self.items()
        if not 0 <= index < len(items):
            return None
        uid = items[index].uid
        face = self._rows.get(uid)
        if face is None:
            if len(self._rows) > 4 * max(64, len(items)):
                self._rows.clear()
            face = self._rows[uid] = RowAccessible(self, uid)
        return face

    def indexOfChild(self, child: Any) -> int:
        return self.row_of(child.uid) if isinstance(child, RowAccessible) else -1

    def focusChild(self) -> Any:
        row = self.view.current_row()
        return self.child(row) if row >= 0 and self.view.hasFocus() else None

    def childAt(self, x: int, y: int) -> Any:
        for row in self.view.visible_rows():
            if self.row_rect(row).contains(x, y):
                return self.child(row)
        return None


def _factory(_class_name: str, obj: QObject) -> Any:
    if _view_type is not None and isinstance(obj, _view_type):
        return ConversationAccessible(obj)
    return None


def install(view_type: type[MessageView]) -> None:
    """Register the interface factory for ``view_type`` once per process.

    The view passes its own class (this module does not import the view's module at run
    time: the view imports this one).
    """
    global _installed, _view_type
    if not _installed:
        _view_type = view_type
        QAccessible.installFactory(_factory)
        _installed = True


def announce_focus(view: MessageView, row: int) -> None:
    """Tell assistive technology that the keyboard moved to ``row``."""
    if not QAccessible.isActive() or row < 0:
        return
    event = QAccessibleEvent(view, QAccessible.Event.Focus)
    event.setChild(row)
    QAccessible.updateAccessibility(event)
