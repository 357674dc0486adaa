"""A workspace folder field: path, Browse… (non-modal), and what is in the folder."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLineEdit, QPushButton, QVBoxLayout, QWidget

from desktop.ui.i18n import tr
from desktop.ui.settings.tasks import OwnsTasks
from desktop.ui.settings.widgets import InlineStatus

_MARKERS = (
    "SOUL.md",
    "USER.md",
    "AGENTS.md",
    "memory/MEMORY.md",
    "memory/history.jsonl",
    "sessions",
    ".nanobot/workspace-id",
)


def count_chats(path: Path, config_dir: Path | None = None) -> int:
    """Saved chats of the workspace ``path``: in its legacy ``sessions/`` folder and in its
    nanobot 0.3.5 id folder under ``config_dir`` (``~/.nanobot``), if it has one."""
    from desktop.core.config.paths import nanobot_home
    from desktop.core.session.location import peek_directory

    names: set[str] = set()
    folders = [path / "sessions", peek_directory(path, config_dir or nanobot_home())]
    for folder in folders:
        if folder is not None and folder.is_dir():
            names.update(p.name for p in folder.glob("*.jsonl"))
    return len(names)


def describe_workspace(path: Path) -> tuple[str, str]:
    """``(kind, words)`` for a folder: ``existing`` nanobot workspace, ``new``, ``empty`` or
    ``invalid`` (blocking: call in a thread; ``tr`` is thread-safe)."""
    path = path.expanduser()
    if path.exists() and not path.is_dir():
        return "invalid", tr("{path} is a file, not a folder.").format(path=path)
    if not path.exists():
        return "new", tr("This folder does not exist yet; it is created with the starter files.")
    found = [name for name in _MARKERS if (path / name).exists()]
    if found:
        count = count_chats(path)
        files = ", ".join(found[:3])
        if count:
            words = tr(
                "An existing nanobot workspace ({files}, {count} saved chat(s)). Nothing in it "
                "is overwritten."
            ).format(files=files, count=count)
        else:
            words = tr(
                "An existing nanobot workspace ({files}). Nothing in it is overwritten."
            ).format(files=files)
        return "existing", words
    if any(path.iterdir()):
        return "new", tr("A folder with other files; the starter files are added beside them.")
    return "empty", tr("An empty folder; the starter files are created in it.")


class WorkspacePicker(OwnsTasks, QWidget):
    """Path field with a Browse… button and a line describing the chosen folder.

    Signals:
        edited(): the path changed by typing or browsing.
    """

    edited = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        row = QHBoxLayout()
        self.edit = QLineEdit()
        self.edit.setAccessibleName(tr("Workspace folder"))
        self.edit.setPlaceholderText("~/.nanobot/workspace")
        self.edit.textEdited.connect(self._changed)
        self.browse = QPushButton(tr("Browse…"))
        self.browse.setAccessibleName(tr("Choose the workspace folder"))
        self.browse.clicked.connect(self._browse)
        row.addWidget(self.edit, 1)
        row.addWidget(self.browse)
        layout.addLayout(row)
        self.about = InlineStatus(accessible=tr("About the workspace folder"))
        layout.addWidget(self.about)
        self.kind = ""
        self._dialog: QFileDialog | None = None

    def text(self) -> str:
        """The typed path (stripped)."""
        return self.edit.text().strip()

    def set_text(self, text: str) -> None:
        """Show ``text`` and describe it."""
        self.edit.setText(text)
        self.spawn(self.describe(), "workspace-describe")

    def _changed(self, _text: str = "") -> None:
        self.edited.emit()
        self.spawn(self.describe(), "workspace-describe")

    async def describe(self) -> str:
        """Describe the folder (in a thread); returns its kind."""
        text = self.text()
        if not text:
            self.kind = ""
            self.about.clear()
            return ""
        self.kind, words = await asyncio.to_thread(describe_workspace, Path(text))
        (self.about.error if self.kind == "invalid" else self.about.info)(words)
        return self.kind

    def _browse(self) -> None:
        # Non-modal: open() + a signal, never exec() (no nested event loop under qasync).
        dialog = QFileDialog(self, tr("Choose or open a nanobot workspace"))
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
        start = Path(self.text() or "~/.nanobot").expanduser()
        dialog.setDirectory(
            str(start if start.is_dir() else start.parent if start.parent.is_dir() else Path.home())
        )
        dialog.fileSelected.connect(self._picked)
        dialog.finished.connect(dialog.deleteLater)
        self._dialog = dialog
        dialog.open()

    def _picked(self, path: str) -> None:
        if path:
            self.edit.setText(path)
            self._changed()

    def closeEvent(self, event: QCloseEvent) -> None:
        """Cancel what this field started."""
        self.cancel_tasks()
        super().closeEvent(event)
