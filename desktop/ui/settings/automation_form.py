"""The Automations page's form: a new reminder, or the selected one's name, message and
schedule. The page saves it (through :func:`desktop.core.cron.overview.save_reminder`)."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QFormLayout, QHBoxLayout, QLineEdit, QVBoxLayout, QWidget

from desktop.core.cron.overview import JobRow
from desktop.ui.i18n import QT_TR_NOOP, tr
from desktop.ui.settings.widgets import button, heading, hint

KINDS = (
    ("every", QT_TR_NOOP("Every … minutes")),
    ("cron", QT_TR_NOOP("Cron expression")),
    ("at", QT_TR_NOOP("Once at …")),
)
PLACEHOLDERS = {"every": "60", "cron": "0 9 * * 1-5", "at": "2026-05-01 09:30"}


class ReminderForm(QWidget):
    """Name, message and schedule of a reminder, and its save button.

    Attributes:
        editing: The id of the job the form shows, ``None`` for a new reminder.
        generation: Bumped whenever the form switches to another job or to a new one (a save
            that finishes after the switch must not claim the form).
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(heading(tr("Reminder"), level=2))
        layout.addWidget(hint(tr("New reminders are posted in the desktop's Reminders chat.")))
        form = QFormLayout()
        self.name = QLineEdit()
        self.name.setAccessibleName(tr("Reminder name"))
        self.message = QLineEdit()
        self.message.setAccessibleName(tr("Reminder message"))
        self.message.setPlaceholderText(tr("What should I remind you of?"))
        self.kind = QComboBox()
        self.kind.setAccessibleName(tr("Schedule kind"))
        for key, label in KINDS:
            self.kind.addItem(tr(label), key)
        self.when = QLineEdit()
        self.when.setAccessibleName(tr("Schedule value"))
        form.addRow(tr("Name"), self.name)
        form.addRow(tr("Message"), self.message)
        form.addRow(tr("Schedule"), self.kind)
        form.addRow("", self.when)
        layout.addLayout(form)
        row = QHBoxLayout()
        row.addStretch(1)
        self.save_button = button(tr("Add reminder"), tr("Save the reminder"))
        row.addWidget(self.save_button)
        layout.addLayout(row)
        self.editing: str | None = None
        self.generation = 0
        self.kind.currentIndexChanged.connect(self._kind_changed)
        self._kind_changed()

    def _kind_changed(self) -> None:
        self.when.setPlaceholderText(PLACEHOLDERS[self.kind.currentData()])

    def clear(self, *, focus: bool = True) -> None:
        """Switch to a new, empty reminder."""
        self.editing = None
        self.generation += 1
        self.save_button.setText(tr("Add reminder"))
        for field in (self.name, self.message, self.when):
            field.clear()
        if focus:
            self.message.setFocus()

    def show_row(self, row: JobRow | None) -> None:
        """Show ``row`` for editing (a system job or nothing: a new reminder; an ended one:
        offered again as a new reminder)."""
        if row is None or row.protected:
            self.clear(focus=False)
            return
        if row.ended:
            self.clear(focus=False)
            self.name.setText(row.name)
            self.message.setText(row.message)
            self.kind.setCurrentIndex(2)
            return
        self.editing = row.id
        self.generation += 1
        self.save_button.setText(tr("Save changes"))
        self.name.setText(row.name)
        self.message.setText(row.message)
        self._fill_when(row.when)

    def _fill_when(self, when: str) -> None:
        kind, _, value = when.partition(" ")
        if kind == "every":
            self.kind.setCurrentIndex(0)
            self.when.setText(_minutes(value))
        elif kind == "cron":
            self.kind.setCurrentIndex(1)
            self.when.setText(value.split(" (")[0])
        else:
            self.kind.setCurrentIndex(2)
            self.when.setText(" ".join(value.split()[:2]))

    def schedule(self) -> dict[str, float | str | None]:
        """The schedule as :func:`~desktop.core.cron.overview.save_reminder` takes it.

        Raises:
            ValueError: "Every" with something that is not a number of minutes.
        """
        kind, value = self.kind.currentData(), self.when.text().strip()
        try:
            every = float(value) if kind == "every" else None
        except ValueError:
            raise ValueError(
                tr("'{value}' is not a number of minutes.").format(value=value)
            ) from None
        return {
            "every_minutes": every,
            "cron_expr": value if kind == "cron" else None,
            "at": value.replace(" ", "T") if kind == "at" else None,
        }


def _minutes(every: str) -> str:
    """``1h`` → ``60``, ``90s`` → ``1.5`` (the words :func:`describe_schedule` wrote)."""
    units = {"d": 1440.0, "h": 60.0, "m": 1.0, "s": 1 / 60}
    number, unit = every[:-1], every[-1:]
    try:
        value = float(number) * units[unit]
    except (KeyError, ValueError):
        return every
    return f"{value:g}"
