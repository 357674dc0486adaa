"""The Automations page: every scheduled job (reminders, recurring tasks the assistant set up,
the system's Dream and heartbeat) and what became of each run.

Filter (all, active, paused, needs attention, system), search (plain words and ``name:``,
``schedule:``, ``status:``), sort (next run, last run, name); per automation: run now,
pause/resume, rename in place, snooze, delete with Undo, its past runs with receipts, and the
terminal command that runs it. The form below creates and edits reminders.

It lives in Settings beside "Dream & heartbeat" because automations span every chat and
channel: a Telegram standup belongs to no desktop chat. Everything goes through core
(:mod:`desktop.core.cron.overview`, :mod:`desktop.core.cron.automations`) in worker threads.

Keys: Alt+H search (Ctrl+F stays the Settings search), Alt+S the filter, Alt+O the sort, F2 rename, Delete delete, Ctrl+Z undo the delete, F5 refresh, the menu
key (or a right click) the selected automation's actions.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QSizePolicy,
    QToolButton,
    QWidget,
)

from desktop.core.cron.automations import (
    FILTERS,
    SORTS,
    counts,
    parse_query,
    rename_job,
    visible_rows,
)
from desktop.core.cron.overview import Deleted, JobRow, delete_reminder, job_rows, undo_delete
from desktop.core.cron.overview import save_reminder as save_job
from desktop.core.cron.past import KEEP_DAYS
from desktop.core.cron.snooze import SNOOZE_CHOICES, reminder_for, snooze, snooze_choice
from desktop.core.cron.spec import local_time
from desktop.ui.chat.snackbar import Snackbar
from desktop.ui.i18n import QT_TR_NOOP, tr
from desktop.ui.phrase_text import shown
from desktop.ui.settings.automation_details import AutomationDetails
from desktop.ui.settings.automation_form import ReminderForm
from desktop.ui.settings.automation_table import AutomationTable, renameable
from desktop.ui.settings.page import SettingsPage
from desktop.ui.settings.widgets import button

if TYPE_CHECKING:
    from desktop.core.cron.service import CronService
    from desktop.ui.services import AppServices

#: How long the Undo of a delete is offered.
UNDO_MS = 10_000
SEARCH_HINT = QT_TR_NOOP("words, name:…, schedule:cron, status:paused / failed / overdue / system")


class AutomationsPage(SettingsPage):
    """Every automation, filtered, searched and sorted, with its actions and past runs."""

    section = "automations"
    title = QT_TR_NOOP("Automations")

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(
            services,
            parent,
            buttons=False,
            description=tr(
                "Everything that runs on a schedule: your reminders, tasks the assistant set up, "
                "and the system's own (Dream, heartbeat). Each run leaves a receipt: delivered "
                "where, failed why, caught up late, skipped. A one-time reminder stays here for "
                "{days} days after it ran. Times are in your time zone."
            ).format(days=KEEP_DAYS),
        )
        self.all_rows: list[JobRow] = []
        self.deleted: Deleted | None = None  # what the last Delete took away (for Undo)
        self._loaded = False
        self._warned: str | None = None  # the jobs file's warning last shown (once each)

        bar = QHBoxLayout()
        self.filter = QComboBox()
        self.filter.setAccessibleName(tr("Show"))
        # Its labels carry counts ("Needs attention (2)"): keep the box as wide as they are.
        self.filter.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        for key, label in FILTERS.items():
            self.filter.addItem(tr(label), key)
        self.search = QLineEdit()
        self.search.setAccessibleName(tr("Search automations"))
        self.search.setPlaceholderText(tr(SEARCH_HINT))
        self.search.setToolTip(tr(SEARCH_HINT) + " (Alt+H)")
        self.search.setClearButtonEnabled(True)
        self.sort = QComboBox()
        self.sort.setAccessibleName(tr("Sort by"))
        for order, label in SORTS.items():
            self.sort.addItem(tr(label), order)
        self.refresh_button = button(tr("Refresh"), tr("Refresh the automations"))
        self.refresh_button.setToolTip(tr("Read the automations again (F5)"))
        show_label = QLabel(tr("&Show"))
        search_label = QLabel(tr("Searc&h"))
        sort_label = QLabel(tr("S&ort"))
        show_label.setBuddy(self.filter)
        search_label.setBuddy(self.search)
        sort_label.setBuddy(self.sort)
        bar.addWidget(show_label)
        bar.addWidget(self.filter)
        bar.addWidget(search_label)
        bar.addWidget(self.search, 1)
        bar.addWidget(sort_label)
        bar.addWidget(self.sort)
        bar.addWidget(self.refresh_button)
        self.body_layout.addLayout(bar)

        self.empty = QLabel()
        self.empty.setAccessibleName(tr("No automations"))
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setMinimumHeight(90)
        self.empty.setTextFormat(Qt.TextFormat.PlainText)
        self.empty.hide()
        self.body_layout.addWidget(self.empty, 1)  # in the table's place when it is hidden
        self.table = AutomationTable()
        self.body_layout.addWidget(self.table, 1)

        actions = QHBoxLayout()
        self.new_button = button(tr("New"), tr("New reminder"))
        self.run_button = button(tr("Run now"), tr("Run the selected automation now"))
        self.pause_button = button(tr("Pause"), tr("Pause or resume the selected automation"))
        self.rename_button = button(tr("Rename"), tr("Rename the selected automation"))
        self.rename_button.setToolTip(tr("Rename in place (F2)"))
        self.snooze_button = QToolButton()
        self.snooze_button.setText(tr("Snooze"))
        self.snooze_button.setAccessibleName(tr("Remind me of the selected reminder again later"))
        self.snooze_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.snooze_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.snooze_button.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        snooze_menu = QMenu(self.snooze_button)
        for choice, label in SNOOZE_CHOICES.items():
            snooze_menu.addAction(tr(label), self._snoozer(choice))
        self.snooze_button.setMenu(snooze_menu)
        self.delete_button = button(tr("Delete"), tr("Delete the selected automation"))
        self.delete_button.setToolTip(tr("Delete (Del); Undo brings it back"))
        for widget in (
            self.new_button,
            self.run_button,
            self.pause_button,
            self.rename_button,
            self.snooze_button,
            self.delete_button,
        ):
            actions.addWidget(widget)
        actions.addStretch(1)
        self.body_layout.addLayout(actions)
        self.snackbar = Snackbar(self)
        self.body_layout.addWidget(self.snackbar)

        self.details = AutomationDetails(services.config_path)
        self.body_layout.addWidget(self.details)
        self.form = ReminderForm()
        self.body_layout.addWidget(self.form)

        self.filter.currentIndexChanged.connect(lambda: self._show())
        self.sort.currentIndexChanged.connect(lambda: self._show())
        self.search.textChanged.connect(lambda: self._show())
        self.table.itemSelectionChanged.connect(self._selected)
        self.table.renamed.connect(lambda job, name: self.spawn(self._rename(job, name), "rename"))
        self.table.deleteRequested.connect(self._delete_clicked)
        self.table.menuRequested.connect(self._menu)
        self.new_button.clicked.connect(lambda: self._new())
        self.run_button.clicked.connect(lambda: self.spawn(self._run(), "automation-run"))
        self.pause_button.clicked.connect(lambda: self.spawn(self._toggle(), "automation-pause"))
        self.rename_button.clicked.connect(self.table.start_rename)
        self.delete_button.clicked.connect(self._delete_clicked)
        self.snackbar.actionTriggered.connect(lambda: self.spawn(self._undo(), "automation-undo"))
        self.snackbar.expired.connect(self._forget_deleted)
        self.refresh_button.clicked.connect(lambda: self.spawn(self.refresh(), "automations"))
        self.form.save_button.clicked.connect(lambda: self.spawn(self._save(), "reminder-save"))
        services.agentReady.connect(lambda: self.spawn(self.refresh(), "automations"))
        keys: tuple[tuple[QKeySequence | QKeySequence.StandardKey, Callable[[], object]], ...] = (
            (QKeySequence.StandardKey.Undo, self._undo_clicked),
            (QKeySequence(Qt.Key.Key_F5), lambda: self.spawn(self.refresh(), "automations")),
        )
        for sequence, slot in keys:
            shortcut = QShortcut(sequence, self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)
        self._selected()

    # -- data -------------------------------------------------------------------------------
    @property
    def cron(self) -> CronService | None:
        """The running scheduler (``None`` until the agent started)."""
        return self.services.cron

    @property
    def rows(self) -> list[JobRow]:
        """The rows the table lists (filtered, searched, sorted)."""
        return self.table.rows

    def load(self) -> None:
        """Read the jobs (in the background)."""
        self.spawn(self.refresh(), "automations")

    async def refresh(self) -> None:
        """Read every job and its receipts off the loop, then show them."""
        cron = self.cron
        if cron is None:
            self.status.error(tr("The agent is not running yet; automations show once it is."))
            return
        rows = await asyncio.to_thread(job_rows, cron)
        self.all_rows = rows
        self._loaded = True
        self._show()
        warning = cron.warning  # a damaged jobs file or queue of job edits, set aside
        if warning and warning is not self._warned:
            self._warned = warning
            self.status.warn(shown(warning))

    def _now_ms(self) -> int:
        cron = self.cron
        return int(cron.clock() * 1000) if cron is not None else 0

    def _show(self) -> None:
        """List the rows the filter, search and sort keep; the filter counts them."""
        now = self._now_ms()
        tally = counts(self.all_rows, now)
        for index, (key, label) in enumerate(FILTERS.items()):
            self.filter.setItemText(
                index, tr("{filter} ({count})").format(filter=tr(label), count=tally[key])
            )
        search = self.search.text()
        rows = visible_rows(
            self.all_rows,
            which=self.filter.currentData(),
            search=search,
            by=self.sort.currentData(),
            now_ms=now,
        )
        tz = self.cron.default_tz if self.cron is not None else None
        self.table.fill(rows, now, tz)
        self._empty_state(rows, search)
        self._selected()

    def _empty_state(self, rows: list[JobRow], search: str) -> None:
        if rows or not self._loaded:
            self.empty.hide()
            self.table.show()
            return
        if not self.all_rows:
            text = tr(
                "No automations yet.\nAsk the assistant in a chat (“remind me every weekday at "
                "9 to stretch”), or add a reminder below."
            )
        elif parse_query(search).unknown:
            words = ", ".join(parse_query(search).unknown)
            text = tr(
                "No status called “{words}”.\nTry status:active, paused, failed or overdue."
            ).format(words=words)
        else:
            text = tr("No automations match this view.\nClear the search or show All.")
        self.empty.setText(text)
        self.empty.show()
        self.table.hide()

    # -- selection --------------------------------------------------------------------------
    def selected_row(self) -> JobRow | None:
        """The automation selected in the table."""
        return self.table.selected()

    def _selected(self) -> None:
        row = self.selected_row()
        scheduled = row is not None and not row.ended
        self.run_button.setEnabled(scheduled)
        self.pause_button.setEnabled(scheduled)
        self.rename_button.setEnabled(row is not None and renameable(row))
        self.delete_button.setEnabled(row is not None and not row.protected)
        self.snooze_button.setEnabled(row is not None and row.ran)
        if row is not None:
            paused = not row.enabled and not row.ended
            self.pause_button.setText(tr("Resume") if paused else tr("Pause"))
        self.details.show_row(row)
        if row is not None and row.id != self.form.editing:  # nothing selected: the form stays
            self.form.show_row(row)

    def _menu(self, at: QPoint) -> None:
        row = self.selected_row()
        if row is None:
            return
        menu = QMenu(self)
        menu.setAccessibleName(tr("Actions for {name}").format(name=row.name))
        for widget in (self.run_button, self.pause_button, self.rename_button):
            action = menu.addAction(widget.text(), widget.click)
            action.setEnabled(widget.isEnabled())
        copy = menu.addAction(tr("Copy command"), self.details.copy)
        copy.setEnabled(self.details.copy_button.isEnabled())
        menu.addSeparator()
        delete = menu.addAction(tr("Delete"), self._delete_clicked)
        delete.setEnabled(self.delete_button.isEnabled())
        menu.popup(at)

    def _new(self) -> None:
        self.table.clearSelection()
        self.form.clear()

    # -- edits ------------------------------------------------------------------------------
    async def _save(self) -> None:
        cron, form = self.cron, self.form
        if cron is None:
            return
        generation = form.generation
        try:
            schedule = form.schedule()
            job = await asyncio.to_thread(
                save_job,
                cron,
                job_id=form.editing,
                name=form.name.text(),
                message=form.message.text(),
                **schedule,  # type: ignore[arg-type]
            )
        except ValueError as exc:
            self.status.error(tr("Not saved: {error}").format(error=shown(exc)))
            return
        if form.generation == generation:  # else the person moved on while it saved
            form.editing = job.id
        self.status.ok(tr("Saved '{name}'.").format(name=job.name))
        await self.refresh()

    async def _run(self) -> None:
        row, cron = self.selected_row(), self.cron
        if row is None or cron is None or row.ended:
            return
        self.status.info(tr("Running '{name}'…").format(name=row.name))
        try:
            await cron.run_now(row.id)
        except (KeyError, RuntimeError) as exc:
            self.status.error(
                tr("Not run: {error}").format(error=shown(exc.args[0] if exc.args else exc))
            )
            return
        await self.refresh()
        self.status.ok(tr("Ran '{name}'; its receipt is under Past runs.").format(name=row.name))

    async def _toggle(self) -> None:
        row, cron = self.selected_row(), self.cron
        if row is None or cron is None or row.ended:
            return
        await asyncio.to_thread(cron.enable_job, row.id, not row.enabled)
        self.status.ok(
            (tr("Resumed '{name}'.") if not row.enabled else tr("Paused '{name}'.")).format(
                name=row.name
            )
        )
        await self.refresh()

    async def _rename(self, job_id: str, name: str) -> None:
        cron = self.cron
        if cron is None:
            return
        try:
            job = await asyncio.to_thread(rename_job, cron, job_id, name)
        except ValueError as exc:
            self.status.error(tr("Not renamed: {error}").format(error=shown(exc)))
        else:
            self.status.ok(tr("Renamed to '{name}'.").format(name=job.name))
            if self.form.editing == job_id:  # else its Save changes would put the old name back
                self.form.name.setText(job.name)
        await self.refresh()

    def _delete_clicked(self) -> None:
        row = self.selected_row()
        if row is not None and not row.protected:
            self.spawn(self._delete(row), "automation-delete")

    async def _delete(self, row: JobRow) -> None:
        cron = self.cron
        if cron is None:
            return
        try:
            deleted = await asyncio.to_thread(delete_reminder, cron, row.id)
        except ValueError as exc:
            self.status.error(tr("Not deleted: {error}").format(error=shown(exc)))
            return
        self.form.clear(focus=False)
        if deleted is not None:
            # Shown first: a bar still up for an earlier delete expires here, forgetting that
            # one's Undo -- not this one's.
            self.snackbar.show_message(
                tr("Deleted “{name}”. Its receipts are kept.").format(name=row.name),
                tr("Undo"),
                timeout_ms=UNDO_MS,
            )
            self.deleted = deleted
        await self.refresh()
        self.table.setFocus()

    def _undo_clicked(self) -> None:
        if self.deleted is not None:
            self.snackbar.trigger()  # hides the bar and emits actionTriggered → _undo

    def _forget_deleted(self) -> None:
        self.deleted = None

    async def _undo(self) -> None:
        deleted, cron = self.deleted, self.cron
        if deleted is None or cron is None:
            return
        self.deleted = None
        try:
            await asyncio.to_thread(undo_delete, cron, deleted)
        except ValueError as exc:
            self.status.error(tr("Not put back: {error}").format(error=shown(exc)))
            return
        self.status.ok(tr("Put '{name}' back.").format(name=deleted.name))
        await self.refresh()
        for index, row in enumerate(self.rows):
            if row.id == deleted.job_id:
                self.table.selectRow(index)

    def _snoozer(self, choice: str) -> Callable[[], object]:
        return lambda: self.spawn(self._snooze(choice), "reminder-snooze")

    async def _snooze(self, choice: str) -> None:
        """Bring the selected reminder back later, with its own text (not its last answer)."""
        row, cron = self.selected_row(), self.cron
        if row is None or cron is None:
            return
        reminder = await asyncio.to_thread(reminder_for, cron, row.id)
        if reminder is None:
            self.status.error(
                tr("'{name}' has not run yet; there is nothing to snooze.").format(name=row.name)
            )
            return
        # The menu offers the keys of SNOOZE_CHOICES: SnoozeChoice values.
        job = await asyncio.to_thread(snooze, cron, reminder, snooze_choice(choice))
        when = local_time(job.schedule.at_ms, cron.default_tz)
        self.status.ok(tr("Snoozed '{name}': back at {time}.").format(name=row.name, time=when))
        await self.refresh()
