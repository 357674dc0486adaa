"""``history.jsonl`` entries as a Qt model (newest first) and a search filter."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QFont, QIcon

from desktop.core.memory.store import HistoryEntry
from desktop.ui.i18n import QT_TR_NOOP, tr
from desktop.ui.memory.look import dot_icon, tone

PendingRole = Qt.ItemDataRole.UserRole + 1
EntryRole = Qt.ItemDataRole.UserRole + 2
PENDING_TIP = QT_TR_NOOP("Not yet processed by Dream")
PROCESSED_TIP = QT_TR_NOOP("Processed by Dream")
HEADERS = ("", "#", QT_TR_NOOP("Time"), QT_TR_NOOP("Entry"))
MARK, CURSOR, TIME, TEXT = range(4)

_Index = QModelIndex | QPersistentModelIndex


def first_line(text: str) -> str:
    """The first non-blank line of ``text``, with "…" when more follows."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    return lines[0] + (" …" if len(lines) > 1 else "")


class HistoryModel(QAbstractTableModel):
    """History entries, newest first, with a marker on those Dream has not consumed."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[HistoryEntry] = []
        self._dream_cursor = 0
        self._icon: QIcon | None = None
        self._bold = QFont()
        self._bold.setBold(True)

    def set_entries(self, entries: list[HistoryEntry], dream_cursor: int) -> None:
        """Replace the entries (given oldest first, as in the file)."""
        self.beginResetModel()
        self._rows = list(reversed(entries))
        self._dream_cursor = dream_cursor
        self._icon = dot_icon(tone("accent"))
        self.endResetModel()

    @property
    def dream_cursor(self) -> int:
        """The last cursor Dream consumed."""
        return self._dream_cursor

    def entry(self, row: int) -> HistoryEntry:
        """The entry shown on ``row``."""
        return self._rows[row]

    def is_pending(self, row: int) -> bool:
        """Whether Dream has not consumed the entry on ``row`` yet."""
        return self._rows[row].cursor > self._dream_cursor

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 (Qt API)
        """Number of entries."""
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        """Marker, cursor, time, text."""
        return 0 if parent.isValid() else len(HEADERS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        """Column titles; the marker column explains itself in a tooltip."""
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return tr(HEADERS[section]) if HEADERS[section] else ""
        if role == Qt.ItemDataRole.ToolTipRole and section == MARK:
            return tr("● = not yet processed by Dream")
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: C901  # one branch per column and role
        """Cell contents; :data:`PendingRole` and :data:`EntryRole` for code."""
        if not index.isValid():
            return None
        entry = self._rows[index.row()]
        pending = entry.cursor > self._dream_cursor
        column = index.column()
        if role == PendingRole:
            return pending
        if role == EntryRole:
            return entry
        if role == Qt.ItemDataRole.DisplayRole:
            if column == CURSOR:
                return str(entry.cursor)
            if column == TIME:
                return entry.timestamp
            if column == TEXT:
                return first_line(entry.content)
            return None
        if role == Qt.ItemDataRole.DecorationRole and column == MARK and pending:
            return self._icon
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == MARK:
                return tr(PENDING_TIP) if pending else tr(PROCESSED_TIP)
            if column == TEXT:
                return entry.content.strip()[:2000]
        if role == Qt.ItemDataRole.AccessibleTextRole and column == MARK:
            return tr(PENDING_TIP) if pending else ""
        if role == Qt.ItemDataRole.FontRole and pending and column == CURSOR:
            return self._bold
        if role == Qt.ItemDataRole.TextAlignmentRole and column == CURSOR:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class HistoryFilter(QSortFilterProxyModel):
    """Case-insensitive search over text, time and ``#cursor``; optionally pending only."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._needle = ""
        self._pending_only = False

    def set_search(self, text: str) -> None:
        """Keep entries containing ``text`` (``#12`` also finds cursor 12)."""
        self._change(needle=text.strip().casefold())

    def set_pending_only(self, on: bool) -> None:
        """Keep only entries Dream has not consumed."""
        self._change(pending_only=on)

    def _change(self, **values: Any) -> None:
        if hasattr(self, "beginFilterChange"):  # Qt 6.9+
            self.beginFilterChange()
        self._needle = values.get("needle", self._needle)
        self._pending_only = values.get("pending_only", self._pending_only)
        if hasattr(self, "endFilterChange"):
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            self.invalidateRowsFilter()

    def filterAcceptsRow(self, row: int, parent: _Index) -> bool:
        """Whether ``row`` matches the search and the pending switch."""
        model = self.sourceModel()
        if not isinstance(model, HistoryModel):
            return True
        if self._pending_only and not model.is_pending(row):
            return False
        if not self._needle:
            return True
        entry = model.entry(row)
        if self._needle.startswith("#") and self._needle[1:].isdigit():
            return entry.cursor == int(self._needle[1:])
        return self._needle in entry.content.casefold() or self._needle in entry.timestamp
