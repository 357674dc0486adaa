"""The history log: newest first, searchable, entries Dream has not consumed marked."""

from __future__ import annotations

from PySide6.QtCore import QItemSelection, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSplitter,
    QStackedWidget,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from desktop.core.memory.store import HistoryEntry
from desktop.ui.i18n import QT_TR_NOOP, tr
from desktop.ui.memory.history_model import (
    CURSOR,
    MARK,
    PENDING_TIP,
    PROCESSED_TIP,
    TIME,
    EntryRole,
    HistoryFilter,
    HistoryModel,
)
from desktop.ui.memory.look import mute

EMPTY = QT_TR_NOOP(
    "No history yet. A chat is summarised here when it grows too long for the model's "
    "context window, when you type /new in it, or when you choose “Archive into memory now” "
    "in its ⋯ menu; Dream then distils the summaries into MEMORY.md."
)


class HistoryView(QWidget):
    """``memory/history.jsonl`` with search and a marker (●) on entries waiting for Dream."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = HistoryModel(self)
        self.proxy = HistoryFilter(self)
        self.proxy.setSourceModel(self.model)

        self.search = QLineEdit(self)
        self.search.setPlaceholderText(tr("Search history (text, date or #number)"))
        self.search.setClearButtonEnabled(True)
        self.search.setAccessibleName(tr("Search history"))
        self.pending_only = QCheckBox(tr("Only not yet dreamed"), self)
        self.pending_only.setAccessibleName(tr("Show only entries not yet processed by Dream"))
        self.summary = QLabel(self)
        self.summary.setAccessibleName(tr("History summary"))

        self.table = QTreeView(self)
        self.table.setModel(self.proxy)
        self.table.setRootIsDecorated(False)
        self.table.setUniformRowHeights(True)
        self.table.setAlternatingRowColors(True)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setAccessibleName(tr("History entries"))
        header = self.table.header()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(MARK, QHeaderView.ResizeMode.Fixed)
        header.resizeSection(MARK, 28)
        header.setSectionResizeMode(CURSOR, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(TIME, QHeaderView.ResizeMode.ResizeToContents)
        self.detail = QPlainTextEdit(self)
        self.detail.setReadOnly(True)
        self.detail.setAccessibleName(tr("Selected history entry"))
        self.detail.setPlaceholderText(tr("Select an entry to read it in full."))
        self._empty = QLabel(tr(EMPTY), self)
        self._empty.setWordWrap(True)
        self._empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        mute(self._empty)
        self._stack = QStackedWidget(self)
        self._stack.addWidget(self.table)
        self._stack.addWidget(self._empty)

        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(self._stack)
        splitter.addWidget(self.detail)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 1)
        splitter.setChildrenCollapsible(False)
        top = QHBoxLayout()
        top.addWidget(self.search, 1)
        top.addWidget(self.pending_only)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(splitter, 1)

        self.search.textChanged.connect(self._filter)
        self.pending_only.toggled.connect(self._pending_toggled)
        self.table.selectionModel().selectionChanged.connect(self._selected)
        self._total = 0
        self._pending_count = 0
        self._shown: tuple[list[HistoryEntry], int, int] | None = None
        self._summary = ""

    def set_entries(
        self, entries: list[HistoryEntry], dream_cursor: int, malformed: int = 0
    ) -> None:
        """Show ``entries`` (oldest first, as in the file); keeps the search and selection."""
        if (entries, dream_cursor, malformed) == self._shown:
            return  # unchanged: keep the scroll position and selection as they are
        self._shown = (list(entries), dream_cursor, malformed)
        selected = self.selected_entry()
        self.model.set_entries(entries, dream_cursor)
        self._total = len(entries)
        self._pending_count = sum(1 for e in entries if e.cursor > dream_cursor)
        parts = [
            tr("1 entry") if self._total == 1 else tr("{count} entries").format(count=self._total),
            tr("● {count} not yet processed by Dream").format(count=self._pending_count),
        ]
        if malformed:
            parts.append(tr("{count} unreadable line(s) skipped").format(count=malformed))
        self._summary = "  ·  ".join(parts)
        self.summary.setToolTip(tr(PENDING_TIP))
        self._update_empty()
        if selected is not None:
            self.select_cursor(selected.cursor)

    def visible_entries(self) -> list[HistoryEntry]:
        """Entries the filter shows, top to bottom."""
        return [self.proxy.index(row, 0).data(EntryRole) for row in range(self.proxy.rowCount())]

    def selected_entry(self) -> HistoryEntry | None:
        """The entry selected, if any."""
        rows = self.table.selectionModel().selectedRows()
        return rows[0].data(EntryRole) if rows else None

    def select_cursor(self, cursor: int) -> None:
        """Select the entry with ``cursor`` when it is visible."""
        for row in range(self.proxy.rowCount()):
            index = self.proxy.index(row, 0)
            if index.data(EntryRole).cursor == cursor:
                self.table.setCurrentIndex(index)
                return

    def _filter(self, text: str) -> None:
        self.proxy.set_search(text)
        self._update_empty()

    def _pending_toggled(self, on: bool) -> None:
        self.proxy.set_pending_only(on)
        self._update_empty()

    def _update_empty(self) -> None:
        shown = self.proxy.rowCount()
        filtered = bool(self.search.text().strip()) or self.pending_only.isChecked()
        parts = [self._summary]
        if filtered:
            parts.append(tr("{count} shown").format(count=shown))
        self.summary.setText("  ·  ".join(parts))
        if self._total == 0:
            self._empty.setText(tr(EMPTY))
            self._stack.setCurrentWidget(self._empty)
        elif self.proxy.rowCount() == 0:
            self._empty.setText(tr("No entries match."))
            self._stack.setCurrentWidget(self._empty)
        else:
            self._stack.setCurrentWidget(self.table)

    def _selected(self, _new: QItemSelection, _old: QItemSelection) -> None:
        entry = self.selected_entry()
        if entry is None:
            self.detail.clear()
            return
        state = tr(PENDING_TIP if entry.cursor > self.model.dream_cursor else PROCESSED_TIP)
        self.detail.setPlainText(
            f"#{entry.cursor}  ·  {entry.timestamp}  ·  {state}\n\n{entry.content.strip()}"
        )
