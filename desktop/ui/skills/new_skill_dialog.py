"""Ask for a new skill's folder name and description (validated as you type)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from desktop.core.engine.skills import SKILL_NAME_MAX, skill_name_problem
from desktop.ui.i18n import QT_TR_NOOP, tr
from desktop.ui.memory.look import tone
from desktop.ui.phrase_text import shown

INTRO = QT_TR_NOOP(
    "A skill teaches the assistant a workflow. It starts from the skill-creator template; "
    "you edit it next. The assistant reads it when the description matches the task."
)


class NewSkillDialog(QDialog):
    """Name (lowercase-hyphen folder name) and one-line description of a new skill.

    Open it with :meth:`open` and read :attr:`name` / :attr:`description` on ``accepted``.

    Args:
        workspace_names: Names of existing workspace skills (refused).
        builtin_names: Names of builtin skills (allowed: the new skill replaces it).
        parent: Parent widget.
    """

    def __init__(
        self, workspace_names: set[str], builtin_names: set[str], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("New skill"))
        self.setAccessibleName(tr("New skill"))
        self._taken = workspace_names
        self._builtin = builtin_names
        intro = QLabel(tr(INTRO), self)
        intro.setWordWrap(True)
        self.name_edit = QLineEdit(self)
        self.name_edit.setPlaceholderText(tr("e.g. pdf-tables"))
        self.name_edit.setMaxLength(SKILL_NAME_MAX)
        self.name_edit.setAccessibleName(tr("Skill name"))
        self.description_edit = QLineEdit(self)
        self.description_edit.setPlaceholderText(tr("What it does and when to use it, in one line"))
        self.description_edit.setAccessibleName(tr("Skill description"))
        self.problem = QLabel(self)
        self.problem.setWordWrap(True)
        self.problem.setAccessibleName(tr("Problem with the input"))
        self.problem.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.create_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.create_button.setText(tr("Create"))
        self.create_button.setAccessibleName(tr("Create skill"))
        form = QFormLayout()
        form.addRow(tr("Folder name"), self.name_edit)
        form.addRow(tr("Description"), self.description_edit)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.name_edit.textChanged.connect(self._validate)
        self.description_edit.textChanged.connect(self._validate)
        self.setMinimumWidth(460)
        self._validate()

    @property
    def name(self) -> str:
        """The folder name typed."""
        return self.name_edit.text().strip()

    @property
    def description(self) -> str:
        """The description typed."""
        return " ".join(self.description_edit.text().split())

    def problem_text(self) -> str:
        """Why Create is disabled ('' when it is enabled)."""
        name = self.name
        if not name and not self.description:
            return ""
        problem = skill_name_problem(name) if name else QT_TR_NOOP("Give the skill a folder name.")
        if problem is not None:
            return shown(problem)
        if name in self._taken:
            return tr("A workspace skill called {name} already exists; edit it instead.").format(
                name=name
            )
        if not self.description:
            return tr("Add a one-line description: it decides when the assistant uses the skill.")
        return ""

    def _validate(self) -> None:
        problem = self.problem_text()
        ok = not problem and bool(self.name) and bool(self.description)
        self.create_button.setEnabled(ok)
        if problem:
            self.problem.setText(f"<span style='color:{tone('error').name()}'>{problem}</span>")
        elif ok and self.name in self._builtin:
            warning = tr("There is a builtin skill called {name}; yours will replace it.").format(
                name=self.name
            )
            self.problem.setText(f"<span style='color:{tone('warning').name()}'>{warning}</span>")
        else:
            self.problem.setText(tr("Folder name: lowercase letters, digits and hyphens."))

    def accept(self) -> None:
        """Close only with valid input (Enter in a field must not bypass the checks)."""
        if self.create_button.isEnabled():
            super().accept()
