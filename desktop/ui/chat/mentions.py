"""@-mentions in the composer: type ``@`` and pick another chat, a skill or an MCP server.

The popup lists the other chats by handle and title (:mod:`desktop.core.session.handles`),
the installed skills (``@skill:<name>``) and the configured MCP servers (``@mcp:<name>``);
what is typed after ``@`` filters them. Picking one writes its token into the message and
keeps what it points at: the message is sent with those references as data
(:mod:`desktop.core.agent.mentions`), so the agent is told which chat (and gets the session
tools), which skill to read first or which server's tools to use — not left to guess from text.
A token deleted from the text before sending is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QCompleter, QPlainTextEdit

from desktop.ui.i18n import tr

#: ``@word`` right before the cursor, at the start of the text or after a space.
AT_CURSOR = re.compile(r"(?:^|(?<=\s))@([\w:-]*)$")


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
        popup.setAccessibleName(tr("Chats, skills and MCP servers"))
        self._loaded = False
        self._asked = False  # the list was asked for (``wanted``) and has not come yet
        self._targets: dict[str, tuple[str, str]] = {}  # token → (kind, ref) offered
        self.chosen: dict[str, tuple[str, str]] = {}  # token → (kind, ref) picked

    @property
    def visible(self) -> bool:
        """Whether the picker is showing."""
        popup = self.completer.popup()
        return popup is not None and popup.isVisible()

    def set_chats(
        self,
        chats: Sequence[tuple[str, str, str]],
        skills: Sequence[tuple[str, str]] = (),
        servers: Sequence[str] = (),
    ) -> None:
        """What to offer: chats as ``(handle, title, session key)``, skills as ``(name,
        description)``, MCP server names; the picker updates if a mention is open."""
        self.model.clear()
        self._targets.clear()
        offered: list[tuple[str, str, str, str]] = [
            *((f"@{handle}", title, "chat", key) for handle, title, key in chats),
            *((f"@skill:{name}", about or tr("skill"), "skill", name) for name, about in skills),
            *((f"@mcp:{name}", tr("MCP server"), "mcp", name) for name in servers),
        ]
        for token, about, kind, ref in offered:
            item = QStandardItem(f"{token}  {about}")
            item.setData(f"{token[1:]} {about}", Qt.ItemDataRole.UserRole)
            item.setToolTip(about)
            self.model.appendRow(item)
            self._targets[token] = (kind, ref)
        self._loaded = True
        self.update()

    def structured(self, text: str) -> list[dict[str, str]]:
        """The references picked for ``text`` whose token it still holds, as message data."""
        words = set(re.findall(r"@[\w:-]+", text))
        return [
            {"kind": kind, "ref": ref}
            for token, (kind, ref) in self.chosen.items()
            if token in words and ref
        ]

    def forget(self) -> None:
        """Drop the picked references (the message went); the next ``@`` asks for a fresh
        list (new chats, skills or servers since)."""
        self.chosen.clear()
        self._loaded = self._asked = False

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
            self._loaded = self._asked = False  # the next mention asks for a fresh list
            popup.hide()
            return
        if not self._loaded:
            if not self._asked:  # once: a list arriving later must not be replaced mid-typing
                self._asked = True
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
        target = self._targets.get(f"@{handle}")
        if target is not None:
            self.chosen[f"@{handle}"] = target
