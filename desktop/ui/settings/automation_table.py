"""The Automations page's list: one row per job (name, status, schedule, next and last run).

The name cell is edited in place to rename (F2, a double click, or the page's Rename button);
Delete removes the selected automation, the context-menu key opens its actions. The page does
the work: this widget only shows rows and reports what the person asked for.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QColor, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from desktop.core.cron.automations import PROBLEMS, STATUS_LABELS, problems_of, status_of
from desktop.core.cron.overview import JobRow
from desktop.core.cron.spec import local_time
from desktop.ui.i18n import QT_TR_NOOP, tr
from desktop.ui.phrase_text import shown
from desktop.ui.settings.widgets import is_dark

#: The colour of a status that needs attention (light theme, dark theme).
ATTENTION = ("#b3261e", "#f2b8b5")
COLUMNS = (
    QT_TR_NOOP("Name"),
    QT_TR_NOOP("Status"),
    QT_TR_NOOP("Schedule"),
    QT_TR_NOOP("Next run"),
    QT_TR_NOOP("Last run"),
)
#: The schedule in words (:func:`desktop.core.cron.spec.describe_schedule`), by its first word.
SCHEDULES = {
    "every": QT_TR_NOOP("every {interval}"),
    "cron": QT_TR_NOOP("cron {expression}"),
    "at": QT_TR_NOOP("at {time}"),
}
#: An ``every`` interval's unit.
UNITS = {
    "d": QT_TR_NOOP("{count}d"),
    "h": QT_TR_NOOP("{count}h"),
    "m": QT_TR_NOOP("{count}m"),
    "s": QT_TR_NOOP("{count}s"),
}


def schedule_words(when: str) -> str:
    """The core's ``every 1h`` / ``cron 0 9 * * 1-5`` / ``at 2026-05-01 09:30`` in the window's
    language (anything else as it is)."""
    kind, _, value = when.partition(" ")
    if kind == "every" and value[-1:] in UNITS and value[:-1].isdigit():
        return tr(SCHEDULES[kind]).format(interval=tr(UNITS[value[-1]]).format(count=value[:-1]))
    if kind == "cron" and value:
        return tr(SCHEDULES[kind]).format(expression=value)
    if kind == "at" and value:
        return tr(SCHEDULES[kind]).format(time=value)
    return when


def status_words(row: JobRow, now_ms: int) -> str:
    """:func:`desktop.core.cron.automations.status_text` in the window's language."""
    text = tr(STATUS_LABELS[status_of(row)])
    problems = problems_of(row, now_ms)
    if problems:
        text += " · " + ", ".join(tr(PROBLEMS[p]) for p in problems)
    return text


def renameable(row: JobRow) -> bool:
    """Whether ``row`` can be renamed (a scheduled job that is not a system job)."""
    return not row.protected and not row.ended


class AutomationTable(QTableWidget):
    """The list of automations.

    Signals:
        renamed(str, str): the person finished editing a name: job id, new name.
        deleteRequested(): Delete was pressed on a row.
        menuRequested(QPoint): the context menu was asked for at this global position.
    """

    renamed = Signal(str, str)
    deleteRequested = Signal()
    menuRequested = Signal(QPoint)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, len(COLUMNS), parent)
        self.rows: list[JobRow] = []
        self.tz: str | None = None
        self.setAccessibleName(tr("Automations"))
        self.setAccessibleDescription(
            tr(
                "F2 renames the selected automation, Delete deletes it, the menu key shows its "
                "actions"
            )
        )
        self.setHorizontalHeaderLabels([tr(column) for column in COLUMNS])
        self.verticalHeader().setVisible(False)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(
            QAbstractItemView.EditTrigger.EditKeyPressed
            | QAbstractItemView.EditTrigger.DoubleClicked
        )
        self.setTabKeyNavigation(False)  # Tab leaves the table for the buttons
        self.setWordWrap(False)
        header = self.horizontalHeader()
        for column in range(len(COLUMNS) - 1):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.setMinimumHeight(180)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(
            lambda pos: self.menuRequested.emit(self.viewport().mapToGlobal(pos))
        )
        self._filling = False
        self.itemChanged.connect(self._changed)

    def fill(self, rows: list[JobRow], now_ms: int, tz: str | None) -> None:
        """Show ``rows``; the selection stays on the same job when it is still listed."""
        selected = self.selected()
        keep = selected.id if selected is not None else None
        self._filling = True
        try:
            self.rows = rows
            self.setRowCount(len(rows))
            attention = QColor(ATTENTION[1] if is_dark(self) else ATTENTION[0])
            for index, row in enumerate(rows):
                # The last outcome in words when we ran it (delivered where, failed why);
                # just the time when another program (nanobot) did.
                last = shown(row.last) or local_time(row.last_ms, tz)
                cells = (
                    row.name,
                    status_words(row, now_ms),
                    schedule_words(row.when),
                    row.next_run,
                    last,
                )
                for column, text in enumerate(cells):
                    item = QTableWidgetItem(text)
                    flags = Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled
                    if column == 0 and renameable(row):
                        flags |= Qt.ItemFlag.ItemIsEditable
                    item.setFlags(flags)
                    # The name's tip is the message; others are whole where the cell cuts them.
                    item.setToolTip(row.message or text if column == 0 else text)
                    if column == 1 and problems_of(row, now_ms):
                        item.setForeground(attention)
                    self.setItem(index, column, item)
                if row.id == keep:
                    self.selectRow(index)
        finally:
            self._filling = False

    def selected(self) -> JobRow | None:
        """The selected automation."""
        indexes = self.selectionModel().selectedRows()
        if not indexes or indexes[0].row() >= len(self.rows):
            return None
        return self.rows[indexes[0].row()]

    def start_rename(self) -> bool:
        """Edit the selected automation's name in place; ``False`` when it cannot be renamed."""
        row = self.selected()
        if row is None or not renameable(row):
            return False
        index = self.rows.index(row)
        item = self.item(index, 0)
        if item is None:
            return False
        self.setCurrentItem(item)
        self.editItem(item)
        return True

    def _changed(self, item: QTableWidgetItem) -> None:
        if self._filling or item.column() != 0 or item.row() >= len(self.rows):
            return
        row = self.rows[item.row()]
        if item.text() != row.name:
            self.renamed.emit(row.id, item.text())

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Delete deletes; the menu key opens the actions (F2 is Qt's own edit key)."""
        if self.state() != QAbstractItemView.State.EditingState:
            if event.key() == Qt.Key.Key_Delete and self.selected() is not None:
                self.deleteRequested.emit()
                return
            if event.key() == Qt.Key.Key_Menu and self.selected() is not None:
                index = self.rows.index(self.selected())  # type: ignore[arg-type]
                rect = self.visualRect(self.model().index(index, 0))
                self.menuRequested.emit(self.viewport().mapToGlobal(rect.center()))
                return
        super().keyPressEvent(event)
