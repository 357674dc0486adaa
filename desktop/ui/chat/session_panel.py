"""The left column of the chat tab: search, "New chat", the chat list, and Undo."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent, QPalette, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QMenu,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.ui.chat.jump_chip import announce
from desktop.ui.chat.session_delegate import SessionDelegate
from desktop.ui.chat.session_list_model import EntryRole, HitRole, SessionListModel
from desktop.ui.chat.snackbar import Snackbar
from desktop.ui.i18n import tr

SEARCH_DELAY_MS = 250


class _ListView(QListView):
    """F2 renames, Delete deletes."""

    deletePressed = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Delete and self.currentIndex().isValid():
            self.deletePressed.emit()
            return
        super().keyPressEvent(event)


class SessionPanel(QWidget):
    """Search, new chat and the list of chats.

    Signals:
        sessionActivated(str): the person picked a chat (key).
        newChatRequested(): the "New chat" button.
        newTemporaryRequested(): the "Temporary" button (a chat that keeps nothing).
        deleteRequested(str): delete this chat (with undo).
        searchChanged(str): the search text settled (debounced).
        searchResultActivated(str, int, str): a search result was picked: open the chat at
            that message (key, message index, query).
    """

    sessionActivated = Signal(str)
    searchResultActivated = Signal(str, int, str)
    newChatRequested = Signal()
    newTemporaryRequested = Signal()
    deleteRequested = Signal(str)
    searchChanged = Signal(str)

    def __init__(self, model: SessionListModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.search = QLineEdit(self)
        self.search.setPlaceholderText(tr("Search chats (Ctrl+K)"))
        self.search.setAccessibleName(tr("Search chats"))
        self.search.setClearButtonEnabled(True)
        self.new_button = QPushButton(tr("New chat", "action"), self)
        self.new_button.setAccessibleName(tr("New chat", "action"))
        self.new_button.setToolTip(tr("Start a new chat (Ctrl+N)"))
        self.new_button.clicked.connect(self.newChatRequested)
        self.temporary_button = QPushButton(tr("New temporary chat"), self)
        self.temporary_button.setFlat(True)
        self.temporary_button.setAccessibleName(tr("New temporary chat"))
        self.temporary_button.setToolTip(
            tr("Start a temporary chat: nothing is saved, remembered or scheduled (Ctrl+Shift+N)")
        )
        self.temporary_button.clicked.connect(self.newTemporaryRequested)
        self.list = _ListView(self)
        self.list.setAccessibleName(tr("Chats"))
        self.list.setModel(model)
        self.list.setItemDelegate(SessionDelegate(self.list))
        self.list.setMouseTracking(True)
        self.list.setUniformItemSizes(True)
        self.list.setWordWrap(False)
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.EditKeyPressed)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._menu)
        self.list.clicked.connect(self._activated)
        self.list.activated.connect(self._activated)
        self.list.deletePressed.connect(lambda: self._delete(self.list.currentIndex()))
        self.empty = QLabel(self.list.viewport())
        self.empty.setObjectName("searchEmpty")
        self.empty.setAccessibleName(tr("Search result"))
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        self.empty.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.empty.setMargin(12)
        self.empty.hide()
        for signal in (model.modelReset, model.rowsInserted):
            signal.connect(lambda *_: self.empty.hide() if model.rowCount() else None)
        self.snackbar = Snackbar(self)
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.search, 1)
        top.addWidget(self.new_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 4, 8)
        layout.addLayout(top)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.temporary_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.snackbar)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(SEARCH_DELAY_MS)
        self._debounce.timeout.connect(lambda: self.searchChanged.emit(self.search.text()))
        self.search.textChanged.connect(lambda _t: self._debounce.start())
        self.search.returnPressed.connect(self._first)

    def _activated(self, index: QModelIndex) -> None:
        entry = index.data(EntryRole)
        if entry is None:
            return
        hit = index.data(HitRole)
        query = self.search.text().strip()
        if hit is not None and hit.message_index >= 0 and query:
            self.searchResultActivated.emit(entry.key, hit.message_index, query)
        else:
            self.sessionActivated.emit(entry.key)

    def _first(self) -> None:
        if self.model.rowCount():
            self._activated(self.model.index(0))

    def _delete(self, index: QModelIndex) -> None:
        entry = index.data(EntryRole)
        if entry is not None:
            self.deleteRequested.emit(entry.key)

    def _menu(self, pos: QPoint) -> None:
        index = self.list.indexAt(pos)
        if not index.isValid():
            return
        menu = QMenu(self)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.addAction(tr("Rename"), lambda: self.rename(index))
        menu.addAction(tr("Delete"), lambda: self._delete(index))
        menu.popup(self.list.viewport().mapToGlobal(pos))  # no nested event loop

    def rename(self, index: QModelIndex | None = None) -> None:
        """Edit the title of ``index`` (default: the selected chat) in place."""
        index = index if index is not None else self.list.currentIndex()
        if index.isValid():
            self.list.setCurrentIndex(index)
            self.list.edit(index)

    def select(self, key: str) -> None:
        """Highlight ``key`` without emitting :attr:`sessionActivated`."""
        row = self.model.row_of(key)
        selection = self.list.selectionModel()
        if row < 0:
            selection.clearSelection()
            return
        index = self.model.index(row)
        selection.setCurrentIndex(index, selection.SelectionFlag.ClearAndSelect)
        self.list.scrollTo(index)

    def show_search_state(self, query: str, *, searching: bool) -> None:
        """Say so in the list when a search finds no chat ("Searching…" until the messages
        were searched too); nothing when there is no search or it found chats."""
        if not query or self.model.rowCount():
            self.empty.hide()
            return
        text = (
            tr("Searching…") if searching else tr("No chats match “{query}”.").format(query=query)
        )
        changed = text != self.empty.text() or not self.empty.isVisible()
        self.empty.setText(text)
        self.empty.setGeometry(0, 0, self.list.viewport().width(), 80)
        self.empty.show()
        if changed and not searching:
            announce(self.search, text)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Keep the "no chats match" note as wide as the list."""
        super().resizeEvent(event)
        if self.empty.isVisible():
            self.empty.setGeometry(0, 0, self.list.viewport().width(), 80)

    def focus_search(self) -> None:
        """Put the cursor in the search field, text selected."""
        self.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search.selectAll()
