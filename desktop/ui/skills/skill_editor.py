"""Plain-text editor for a workspace SKILL.md: validated, atomic saves; nothing lost."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.engine.skills import SkillFormatError
from desktop.core.utils.tasks import TaskOwner
from desktop.ui.i18n import QT_TR_NOOP, tr
from desktop.ui.memory.files_view import mono_font
from desktop.ui.memory.look import mute
from desktop.ui.memory.notice_bar import NoticeBar
from desktop.ui.phrase_text import shown
from desktop.ui.skills.skill_files import save_skill

HINT = QT_TR_NOOP(
    "The block between the --- lines is the frontmatter: <b>name</b> (the folder name) and "
    "<b>description</b> are required; <b>always</b> and <b>metadata</b> "
    '(<code>{"nanobot": {"requires": {"bins": […], "env": […]}}}</code>) are '
    "optional. Saving checks it first."
)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


class SkillEditor(QWidget):
    """Edits one workspace SKILL.md.

    Signals:
        saved(object): the file (a :class:`~pathlib.Path`) was written.
        closed(): the person left the editor (after saving or discarding).
    """

    saved = Signal(object)
    closed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._tasks = TaskOwner("skill-editor")
        self._path: Path | None = None
        self._baseline: str | None = None
        self.confirm_box: QMessageBox | None = None
        self.title = QLabel(self)
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.title.setAccessibleName(tr("File being edited"))
        self.save_button = QPushButton(tr("Save"), self)
        self.save_button.setAccessibleName(tr("Save skill"))
        self.save_button.setToolTip(tr("Check the frontmatter and save (Ctrl+S)"))
        self.close_button = QPushButton(tr("Close"), self)
        self.close_button.setAccessibleName(tr("Close the editor"))
        self.notice = NoticeBar(self)
        self.text = QPlainTextEdit(self)
        self.text.setFont(mono_font())
        self.text.setAccessibleName(tr("SKILL.md text"))
        self.hint = QLabel(tr(HINT), self)
        self.hint.setWordWrap(True)
        mute(self.hint)
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.save_button)
        top.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.notice)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.hint)
        self.save_button.clicked.connect(self.save_clicked)
        self.close_button.clicked.connect(self.request_close)
        shortcut = QShortcut(QKeySequence.StandardKey.Save, self)
        shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        shortcut.activated.connect(self.save_clicked)

    @property
    def path(self) -> Path | None:
        """The SKILL.md being edited."""
        return self._path

    @property
    def dirty(self) -> bool:
        """Whether there are unsaved edits."""
        return self.text.document().isModified()

    def open_file(self, path: Path, text: str) -> None:
        """Edit ``path`` whose current content is ``text``."""
        self._path = path
        self._baseline = text
        self.title.setText(
            tr("<b>Editing</b> {file}").format(file=f"{path.parent.name}/{path.name}")
        )
        self.title.setToolTip(str(path))
        self.notice.clear()
        self.text.setPlainText(text)
        self.text.document().setModified(False)
        self.text.setFocus()

    def save_clicked(self) -> None:
        """Save in a task."""
        self._tasks.try_spawn(self.save(), name="skill-save")

    async def save(self, *, force: bool = False) -> bool:
        """Validate and write the file; ``False`` (with the reason shown) when not saved."""
        if self._path is None:
            return False
        path, text = self._path, self.text.toPlainText()
        self.save_button.setEnabled(False)
        try:
            disk = await asyncio.to_thread(_read, path)
            if not force and disk is not None and disk != self._baseline and disk != text:
                self.notice.show_message(
                    "warning",
                    tr(
                        "{file} changed on disk since you opened it (perhaps by Dream). "
                        "Saving replaces that version."
                    ).format(file=f"{path.parent.name}/{path.name}"),
                    [
                        (
                            tr("Save anyway"),
                            lambda: self._tasks.try_spawn(self.save(force=True), name="skill-save"),
                        ),
                        (tr("Reload (discard my edits)"), lambda: self.open_file(path, disk)),
                    ],
                )
                return False
            await asyncio.to_thread(save_skill, path, text)
        except SkillFormatError as exc:
            self.notice.show_message(
                "error",
                tr(
                    "Not saved: {error}. Your text is still here; fix the frontmatter and "
                    "save again."
                ).format(error=shown(exc)),
            )
            return False
        except OSError as exc:
            self.notice.show_message(
                "error", tr("Not saved: {error}. Your text is still here.").format(error=exc)
            )
            return False
        finally:
            self.save_button.setEnabled(True)
        self._baseline = text
        if self.text.toPlainText() == text:
            self.text.document().setModified(False)
        self.notice.show_message(
            "success", tr("Saved. The assistant uses the new version from its next message.")
        )
        self.saved.emit(path)
        return True

    def request_close(self) -> None:
        """Leave the editor; asks first (without a nested event loop) when there are edits."""
        if not self.dirty:
            self.closed.emit()
            return
        box = QMessageBox(
            QMessageBox.Icon.Question,
            tr("Discard changes?"),
            tr("This skill has unsaved changes. Discard them?"),
            QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setAccessibleName(tr("Discard changes?"))
        box.finished.connect(lambda _result: self._close_answered(box))
        self.confirm_box = box
        box.open()

    def _close_answered(self, box: QMessageBox) -> None:
        self.confirm_box = None
        box.deleteLater()
        if box.standardButton(box.clickedButton()) == QMessageBox.StandardButton.Discard:
            self.text.document().setModified(False)
            self.closed.emit()

    async def aclose(self) -> None:
        """Cancel a running save."""
        await self._tasks.aclose()
