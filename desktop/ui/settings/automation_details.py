"""The selected automation's details on the Automations page: its past runs (each receipt in
words: delivered where, failed why, caught up late, skipped) and its local trigger, the
terminal command that runs it (with a Copy button)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QListWidget, QVBoxLayout, QWidget

from desktop.core.config.paths import default_config_path
from desktop.core.cron.automations import run_command
from desktop.core.cron.overview import JobRow
from desktop.ui.i18n import tr
from desktop.ui.phrase_text import shown
from desktop.ui.settings.widgets import button, heading, hint


class AutomationDetails(QWidget):
    """Past runs and the local trigger of one automation.

    Args:
        config_path: The config file the app uses (named in the command when it is not the
            default one).
    """

    def __init__(self, config_path: Path | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.config_path = config_path
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.title = heading(tr("Past runs"), level=2)
        layout.addWidget(self.title)
        self.past = QListWidget()
        self.past.setAccessibleName(tr("Past runs of the selected automation"))
        self.past.setMinimumHeight(110)
        self.past.setMaximumHeight(220)  # the list of automations gets the rest
        # Reasons can be long (a budget's numbers): wrap them rather than hide them sideways.
        self.past.setWordWrap(True)
        self.past.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        layout.addWidget(self.past, 1)

        layout.addWidget(heading(tr("Local trigger"), level=2))
        layout.addWidget(
            hint(
                tr(
                    "Run it from a terminal, a script or another program's hook: the command "
                    "runs the job at once, in its own process, prints what it says, and leaves a "
                    "receipt here."
                )
            )
        )
        row = QHBoxLayout()
        self.command = QLineEdit()
        self.command.setReadOnly(True)
        self.command.setAccessibleName(tr("Command that runs the selected automation"))
        self.copy_button = button(tr("Copy"), tr("Copy the command"))
        self.copied = QLabel("")
        self.copied.setAccessibleName(tr("Copy status"))
        row.addWidget(self.command, 1)
        row.addWidget(self.copy_button)
        row.addWidget(self.copied)
        layout.addLayout(row)
        self.copy_button.clicked.connect(self.copy)
        self.show_row(None)

    def show_row(self, row: JobRow | None) -> None:
        """Show ``row``'s runs and command (nothing selected: a hint)."""
        self.past.clear()
        self.copied.clear()
        if row is None:
            self.title.setText(tr("Past runs"))
            self.past.addItem(tr("Select an automation to see its runs."))
            self.command.clear()
            self.command.setPlaceholderText(tr("Select an automation"))
            self.copy_button.setEnabled(False)
            return
        self.title.setText(tr("Past runs of “{name}”").format(name=row.name))
        self.past.addItems([shown(run) for run in row.past] or [tr("No runs yet.")])
        if row.ended:  # gone from the schedule: nothing to run
            self.command.clear()
            self.command.setPlaceholderText(tr("It ran and left the schedule"))
            self.copy_button.setEnabled(False)
            return
        custom = self.config_path
        if custom is not None and custom.expanduser() == default_config_path():
            custom = None
        self.command.setText(run_command(row.id, config_path=custom))
        self.copy_button.setEnabled(True)

    def copy(self) -> None:
        """Put the command on the clipboard."""
        text = self.command.text()
        if text:
            QGuiApplication.clipboard().setText(text)
            self.copied.setText(tr("Copied"))
