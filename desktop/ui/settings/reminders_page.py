"""The Reminders page: every scheduled job, upcoming and past (with receipts), the one-shot
reminders that ran lately, and a form to create, edit, pause, snooze and delete reminders
without asking the model (Delete has an Undo).

It lives in Settings beside "Dream & heartbeat" (the system jobs it also lists) because
reminders span every chat and channel: a Telegram standup belongs to no desktop chat, so a side
panel of the Chat tab would be the wrong home. Everything goes through core
(:mod:`desktop.core.cron.overview`), in worker threads.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QListWidget,
    QMenu,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QWidget,
)

from desktop.core.cron.overview import (
    Deleted,
    JobRow,
    delete_reminder,
    job_rows,
    save_reminder,
    undo_delete,
)
from desktop.core.cron.past import KEEP_DAYS
from desktop.core.cron.snooze import SNOOZE_CHOICES, reminder_for, snooze, snooze_choice
from desktop.core.cron.spec import local_time
from desktop.ui.settings.page import SettingsPage
from desktop.ui.settings.widgets import button, heading, hint

if TYPE_CHECKING:
    from desktop.core.cron.service import CronService
    from desktop.ui.services import AppServices

COLUMNS = ("Reminder", "When", "Next run", "Last outcome")
KINDS = (("every", "Every … minutes"), ("cron", "Cron expression"), ("at", "Once at …"))
PLACEHOLDERS = {"every": "60", "cron": "0 9 * * 1-5", "at": "2026-05-01 09:30"}


class RemindersPage(SettingsPage):
    """Upcoming and past runs of every job; create, edit, pause and delete reminders."""

    section = "reminders"
    title = "Reminders"

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(
            services,
            parent,
            buttons=False,
            description=(
                "Every scheduled job, with what became of each run: delivered where, failed why, "
                "caught up late, skipped, snoozed. A one-time reminder stays here for "
                f"{KEEP_DAYS} days after it ran. Times are in your time zone."
            ),
        )
        self.rows: list[JobRow] = []
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setAccessibleName("Scheduled jobs")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.table.setMinimumHeight(180)
        self.body_layout.addWidget(self.table, 2)

        actions = QHBoxLayout()
        self.new_button = button("New", "New reminder")
        self.pause_button = button("Pause", "Pause or resume the selected job")
        self.delete_button = button("Delete", "Delete the selected reminder")
        self.snooze_button = QToolButton()
        self.snooze_button.setText("Snooze")
        self.snooze_button.setAccessibleName("Remind me of the selected reminder again later")
        self.snooze_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.snooze_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.snooze_button.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        snooze_menu = QMenu(self.snooze_button)
        for choice, label in SNOOZE_CHOICES.items():
            snooze_menu.addAction(label, self._snoozer(choice))
        self.snooze_button.setMenu(snooze_menu)
        self.undo_button = button("Undo delete", "Put the deleted reminder back")
        self.undo_button.hide()
        self.refresh_button = button("Refresh", "Refresh the reminders")
        for widget in (self.new_button, self.pause_button, self.snooze_button):
            actions.addWidget(widget)
        actions.addWidget(self.delete_button)
        actions.addWidget(self.undo_button)
        actions.addStretch(1)
        actions.addWidget(self.refresh_button)
        self.body_layout.addLayout(actions)

        self.body_layout.addWidget(heading("Past runs", level=2))
        self.past = QListWidget()
        self.past.setAccessibleName("Past runs of the selected job")
        self.past.setMinimumHeight(110)
        # Reasons can be long (a budget's numbers): wrap them rather than hide them sideways.
        self.past.setWordWrap(True)
        self.past.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.body_layout.addWidget(self.past, 1)

        self.body_layout.addWidget(heading("Reminder", level=2))
        self.body_layout.addWidget(
            hint("New reminders are posted in the desktop's Reminders chat.")
        )
        form = QFormLayout()
        self.name = QLineEdit()
        self.name.setAccessibleName("Reminder name")
        self.message = QLineEdit()
        self.message.setAccessibleName("Reminder message")
        self.message.setPlaceholderText("What should I remind you of?")
        self.kind = QComboBox()
        self.kind.setAccessibleName("Schedule kind")
        for key, label in KINDS:
            self.kind.addItem(label, key)
        self.when = QLineEdit()
        self.when.setAccessibleName("Schedule value")
        form.addRow("Name", self.name)
        form.addRow("Message", self.message)
        form.addRow("Schedule", self.kind)
        form.addRow("", self.when)
        self.body_layout.addLayout(form)
        save_row = QHBoxLayout()
        save_row.addStretch(1)
        self.save_reminder_button = button("Add reminder", "Save the reminder")
        save_row.addWidget(self.save_reminder_button)
        self.body_layout.addLayout(save_row)

        self.editing: str | None = None
        self.deleted: Deleted | None = None  # what the last Delete took away (for Undo)
        self._form = 0  # bumped whenever the form switches to another job or to a new one
        self.kind.currentIndexChanged.connect(self._kind_changed)
        self.table.itemSelectionChanged.connect(self._selected)
        self.new_button.clicked.connect(lambda: self._new())
        self.pause_button.clicked.connect(lambda: self.spawn(self._toggle(), "reminder-pause"))
        self.delete_button.clicked.connect(lambda: self.spawn(self._delete(), "reminder-delete"))
        self.undo_button.clicked.connect(lambda: self.spawn(self._undo(), "reminder-undo"))
        self.refresh_button.clicked.connect(lambda: self.spawn(self.refresh(), "reminders"))
        self.save_reminder_button.clicked.connect(lambda: self.spawn(self._save(), "reminder-save"))
        services.agentReady.connect(lambda: self.spawn(self.refresh(), "reminders"))
        self._kind_changed()
        self._selected()

    # -- data -------------------------------------------------------------------------------
    @property
    def cron(self) -> CronService | None:
        """The running scheduler (``None`` until the agent started)."""
        return self.services.cron

    def load(self) -> None:
        """Read the jobs (in the background)."""
        self.spawn(self.refresh(), "reminders")

    async def refresh(self) -> None:
        """Read every job and its receipts off the loop, then show them."""
        cron = self.cron
        if cron is None:
            self.status.error("The agent is not running yet; reminders show once it is.")
            return
        rows = await asyncio.to_thread(job_rows, cron)
        self._show(rows)

    def _show(self, rows: list[JobRow]) -> None:
        selected = self.selected_row()
        keep = selected.id if selected is not None else None
        self.rows = rows
        self.table.setRowCount(len(rows))
        for index, row in enumerate(rows):
            name = row.name + (" (system)" if row.protected else "")
            if row.ended:
                name += " (ran)"
            elif not row.enabled:
                name += " (paused)"
            for column, text in enumerate((name, row.when, row.next_run, row.last or "—")):
                item = QTableWidgetItem(text)
                # The outcome's tooltip is the whole outcome (a long reason is cut in the cell).
                item.setToolTip(text if column == 3 else row.message or text)
                self.table.setItem(index, column, item)
            if row.id == keep:
                self.table.selectRow(index)
        self._selected()

    def selected_row(self) -> JobRow | None:
        """The job selected in the table."""
        indexes = self.table.selectionModel().selectedRows()
        if not indexes or indexes[0].row() >= len(self.rows):
            return None
        return self.rows[indexes[0].row()]

    # -- selection and form -----------------------------------------------------------------
    def _selected(self) -> None:
        row = self.selected_row()
        self.past.clear()
        self.pause_button.setEnabled(row is not None and not row.ended)
        self.delete_button.setEnabled(row is not None and not row.protected)
        self.snooze_button.setEnabled(row is not None and row.ran)
        if row is None:
            return
        self.pause_button.setText("Resume" if not row.enabled and not row.ended else "Pause")
        self.past.addItems(list(row.past) or ["No runs yet."])
        if row.protected:  # Dream and the heartbeat are set in their own page
            self._new(focus=False)
            return
        if row.ended:  # gone from the schedule: the form offers it as a new reminder
            self._new(focus=False)
            self.name.setText(row.name)
            self.message.setText(row.message)
            self.kind.setCurrentIndex(2)
            return
        self.editing = row.id
        self._form += 1
        self.save_reminder_button.setText("Save changes")
        self.name.setText(row.name)
        self.message.setText(row.message)
        self._fill_when(row.when)

    def _fill_when(self, when: str) -> None:
        kind, _, value = when.partition(" ")
        if kind == "every":
            minutes = _minutes(value)
            self.kind.setCurrentIndex(0)
            self.when.setText(minutes)
        elif kind == "cron":
            self.kind.setCurrentIndex(1)
            self.when.setText(value.split(" (")[0])
        else:
            self.kind.setCurrentIndex(2)
            self.when.setText(" ".join(value.split()[:2]))

    def _kind_changed(self) -> None:
        self.when.setPlaceholderText(PLACEHOLDERS[self.kind.currentData()])

    def _new(self, *, focus: bool = True) -> None:
        self.editing = None
        self._form += 1
        self.save_reminder_button.setText("Add reminder")
        for field in (self.name, self.message, self.when):
            field.clear()
        if focus:
            self.table.clearSelection()
            self.message.setFocus()

    # -- edits ------------------------------------------------------------------------------
    async def _save(self) -> None:
        cron = self.cron
        if cron is None:
            return
        kind, value = self.kind.currentData(), self.when.text().strip()
        form = self._form
        try:
            every = float(value) if kind == "every" else None
        except ValueError:
            self.status.error(f"'{value}' is not a number of minutes.")
            return
        try:
            job = await asyncio.to_thread(
                save_reminder,
                cron,
                job_id=self.editing,
                name=self.name.text(),
                message=self.message.text(),
                every_minutes=every,
                cron_expr=value if kind == "cron" else None,
                at=value.replace(" ", "T") if kind == "at" else None,
            )
        except ValueError as exc:
            self.status.error(f"Not saved: {exc}")
            return
        if self._form == form:  # else the person moved on (New, another job) while it saved
            self.editing = job.id
        self.status.ok(f"Saved '{job.name}'.")
        await self.refresh()

    async def _toggle(self) -> None:
        row, cron = self.selected_row(), self.cron
        if row is None or cron is None:
            return
        await asyncio.to_thread(cron.enable_job, row.id, not row.enabled)
        self.status.ok(f"{'Resumed' if not row.enabled else 'Paused'} '{row.name}'.")
        await self.refresh()

    async def _delete(self) -> None:
        row, cron = self.selected_row(), self.cron
        if row is None or cron is None or row.protected:
            return
        try:
            deleted = await asyncio.to_thread(delete_reminder, cron, row.id)
        except ValueError as exc:
            self.status.error(f"Not deleted: {exc}")
            return
        self.editing = None
        self.deleted = deleted
        self.undo_button.setVisible(deleted is not None)
        self.status.ok(f"Deleted '{row.name}'. Its receipts are kept.")
        await self.refresh()

    async def _undo(self) -> None:
        deleted, cron = self.deleted, self.cron
        if deleted is None or cron is None:
            return
        self.deleted = None
        self.undo_button.hide()
        try:
            await asyncio.to_thread(undo_delete, cron, deleted)
        except ValueError as exc:
            self.status.error(f"Not put back: {exc}")
            return
        self.status.ok(f"Put '{deleted.name}' back.")
        await self.refresh()

    def _snoozer(self, choice: str) -> Callable[[], object]:
        return lambda: self.spawn(self._snooze(choice), "reminder-snooze")

    async def _snooze(self, choice: str) -> None:
        """Bring the selected reminder back later, with its own text (not its last answer)."""
        row, cron = self.selected_row(), self.cron
        if row is None or cron is None:
            return
        reminder = await asyncio.to_thread(reminder_for, cron, row.id)
        if reminder is None:
            self.status.error(f"'{row.name}' has not run yet; there is nothing to snooze.")
            return
        # The menu offers the keys of SNOOZE_CHOICES: SnoozeChoice values.
        job = await asyncio.to_thread(snooze, cron, reminder, snooze_choice(choice))
        when = local_time(job.schedule.at_ms, cron.default_tz)
        self.status.ok(f"Snoozed '{row.name}': back at {when}.")
        await self.refresh()


def _minutes(every: str) -> str:
    """``1h`` → ``60``, ``90s`` → ``1.5`` (the words :func:`describe_schedule` wrote)."""
    units = {"d": 1440.0, "h": 60.0, "m": 1.0, "s": 1 / 60}
    number, unit = every[:-1], every[-1:]
    try:
        value = float(number) * units[unit]
    except (KeyError, ValueError):
        return every
    return f"{value:g}"
