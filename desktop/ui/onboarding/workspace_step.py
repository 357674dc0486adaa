"""Step 4: where the assistant keeps its files — a new folder or an existing nanobot workspace."""

from __future__ import annotations

from PySide6.QtWidgets import QVBoxLayout, QWidget

from desktop.ui.i18n import QT_TR_NOOP, tr
from desktop.ui.settings.widgets import hint
from desktop.ui.settings.workspace_picker import WorkspacePicker


class WorkspaceStep(QWidget):
    """A workspace folder picker with a description of what is in the folder."""

    title = QT_TR_NOOP("Choose a workspace")  # shown through tr()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(
            hint(
                tr(
                    "The workspace holds your chats, the assistant's memory, skills and reminders. Keep the "
                    "default, or open the workspace of an existing nanobot installation to continue with it. "
                    "Missing starter files are added; your own files are never overwritten."
                )
            )
        )
        self.picker = WorkspacePicker()
        layout.addWidget(self.picker)
        layout.addStretch(1)

    def setup(self, workspace: str) -> None:
        """Show ``workspace`` unless the person already typed another one."""
        if not self.picker.text():
            self.picker.set_text(workspace)

    def validate(self) -> bool:
        """A folder path that is not a file."""
        if not self.picker.text():
            self.picker.about.error(tr("Choose a folder."))
            return False
        return self.picker.kind != "invalid"
