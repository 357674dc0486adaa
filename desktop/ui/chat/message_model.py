"""The conversation as a list model: one :class:`~desktop.ui.chat.items.ChatItem` per row."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from desktop.ui.chat.items import ChatItem
from desktop.ui.i18n import localized

ItemRole = Qt.ItemDataRole.UserRole + 1
Index = QModelIndex | QPersistentModelIndex


class MessageModel(QAbstractListModel):
    """Rows of one conversation. Items are mutated in place, then :meth:`changed` is called.

    Args:
        session_key: The conversation this model shows.
    """

    def __init__(self, session_key: str = "", parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session_key = session_key
        self._items: list[ChatItem] = []

    # -- Qt API ---------------------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt API
        """Number of rows (0 under any parent: this is a flat list)."""
        return 0 if parent.isValid() else len(self._items)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """The item (``ItemRole``) or its plain text (display and accessibility)."""
        if not index.isValid() or not 0 <= index.row() < len(self._items):
            return None
        item = self._items[index.row()]
        if role == ItemRole:
            return item
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return localized(item.plain_text())
        return None

    # -- items ----------------------------------------------------------------------------
    @property
    def items(self) -> list[ChatItem]:
        """The rows (do not mutate the list directly)."""
        return self._items

    def item(self, row: int) -> ChatItem:
        """The item in ``row``."""
        return self._items[row]

    def last(self) -> ChatItem | None:
        """The newest item."""
        return self._items[-1] if self._items else None

    def set_items(self, items: list[ChatItem]) -> None:
        """Replace every row."""
        self.beginResetModel()
        self._items = list(items)
        self.endResetModel()

    def append(self, item: ChatItem) -> ChatItem:
        """Add ``item`` at the end and return it."""
        row = len(self._items)
        self.beginInsertRows(QModelIndex(), row, row)
        self._items.append(item)
        self.endInsertRows()
        return item

    def insert(self, item: ChatItem, before: ChatItem | None = None) -> ChatItem:
        """Add ``item`` just before ``before`` (at the end when ``before`` is ``None`` or not
        a row) and return it."""
        row = self.row_of(before) if before is not None else -1
        if row < 0:
            return self.append(item)
        self.beginInsertRows(QModelIndex(), row, row)
        self._items.insert(row, item)
        self.endInsertRows()
        return item

    def remove_after(self, row: int) -> None:
        """Drop every row after ``row``."""
        if row + 1 >= len(self._items):
            return
        self.beginRemoveRows(QModelIndex(), row + 1, len(self._items) - 1)
        del self._items[row + 1 :]
        self.endRemoveRows()

    def remove(self, item: ChatItem) -> None:
        """Drop ``item`` if present."""
        row = self.row_of(item)
        if row < 0:
            return
        self.beginRemoveRows(QModelIndex(), row, row)
        del self._items[row]
        self.endRemoveRows()

    def row_of(self, item: ChatItem) -> int:
        """Row of ``item`` (searching from the end, where changes happen), or -1."""
        for row in range(len(self._items) - 1, -1, -1):
            if self._items[row] is item:
                return row
        return -1

    def changed(self, item: ChatItem) -> None:
        """``item`` was modified: bump its version and tell the view."""
        item.touch()
        row = self.row_of(item)
        if row >= 0:
            index = self.index(row)
            self.dataChanged.emit(index, index, [ItemRole])
