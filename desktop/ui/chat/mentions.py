"""@-mentions of other chats in the composer: type ``@`` and pick a chat.

The popup lists the other chats by handle and title (:mod:`desktop.core.session.handles`);
what is typed after ``@`` filters them by handle or title words. Picking one writes its
``@handle`` into the message: the agent then sees which chat is meant (a runtime note) and
gets the session tools to read or write to it.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QCompleter, QPlainTextEdit

#: ``@word`` right before the cursor, at the start of the text or after a space.
AT_CURSOR = re.compile(r"(?:^|(?<=\s))@([\w-]*)$")


class MentionCompleter(QObject):
    """The chat picker of one editor.

    Signals:
        wanted(): an @-mention started and the chats are not known yet: load them and call
            :meth:`set_chats`.
    """

    wanted = Signal()

    def __init__(self, edit: QPlainTextEdit) -> None:
        super().__init__(edit)
        self.edit = edit
        self.model = QStandardItemModel(self)
        self.completer = QCompleter(self.model, self)
        self.completer.setWidget(edit)
        self.completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.completer.setCompletionRole(Qt.ItemDataRole.UserRole)
        self.completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.completer.activated.connect(self._chosen)
        popup = self.completer.popup()
        assert popup is not None  # a QCompleter always has its popup view
        popup.setAccessibleName("Chats")
        self._loaded = False

    @property
    def visible(self) -> bool:
        """Whether the picker is showing."""
        popup = self.completer.popup()
        return popup is not None and popup.isVisible()

    def set_chats(self, chats: list[tuple[str, str]]) -> None:
        """The chats to offer, as ``(handle, title)``; the picker updates if a mention is open."""
        self.model.clear()
        for handle, title in chats:
            item = QStandardItem(f"@{handle}  {title}")
            item.setData(f"{handle} {title}", Qt.ItemDataRole.UserRole)
            item.setToolTip(title)
            self.model.appendRow(item)
        self._loaded = True
        self.update()

    def _typed(self) -> str | None:
        """What follows ``@`` at the cursor, or ``None`` when no mention is being typed."""
        cursor = self.edit.textCursor()
        before = cursor.block().text()[: cursor.positionInBlock()]
        found = AT_CURSOR.search(before)
        return found.group(1) if found else None

    def update(self) -> None:
        """Show, filter or hide the picker for the text at the cursor."""
        popup = self.completer.popup()
        assert popup is not None
        typed = self._typed()
        if typed is None:
            self._loaded = False  # the next mention asks for a fresh list
            popup.hide()
            return
        if not self._loaded:
            self.wanted.emit()
            return
        self.completer.setCompletionPrefix(typed)
        if self.completer.completionCount() == 0:
            popup.hide()
            return
        rect = self.edit.cursorRect()
        rect.setWidth(min(480, popup.sizeHintForColumn(0) + 32))
        self.completer.complete(rect)
        model = self.completer.completionModel()
        if model is not None:  # Enter takes the first match at once
            popup.setCurrentIndex(model.index(0, 0))

    def _chosen(self, text: str) -> None:
        handle = text.split(" ", 1)[0]
        typed = self._typed()
        if not handle or typed is None:
            return
        cursor = self.edit.textCursor()
        cursor.movePosition(cursor.MoveOperation.Left, cursor.MoveMode.KeepAnchor, len(typed) + 1)
        cursor.insertText(f"@{handle} ")
        self.edit.setTextCursor(cursor)
