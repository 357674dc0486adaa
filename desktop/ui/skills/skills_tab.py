"""The Skills tab: builtin and workspace skills; read, create, edit, delete."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from desktop.core.engine.skills import SkillListing, SkillsLoader
from desktop.core.utils.tasks import TaskOwner
from desktop.ui.i18n import tr
from desktop.ui.memory.notice_bar import NoticeBar
from desktop.ui.phrase_text import shown
from desktop.ui.services import AppServices
from desktop.ui.skills.new_skill_dialog import NewSkillDialog
from desktop.ui.skills.skill_editor import SkillEditor
from desktop.ui.skills.skill_files import (
    copy_builtin,
    create_skill,
    restore_skill,
    set_aside_skill,
)
from desktop.ui.skills.skill_list import SkillList
from desktop.ui.skills.skill_view import SkillView

log = logging.getLogger(__name__)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return tr("(could not read {path}: {error})").format(path=path, error=exc)


class SkillsTab(QWidget):
    """Skills the assistant can use, where they come from, and whether they can run here.

    Builtin skills are read-only (they can be copied to the workspace, where the copy
    replaces them); workspace skills can be edited (frontmatter checked before an atomic
    save) and deleted (the folder is moved to ``skills/.deleted/``, with Undo).

    Args:
        services: The application services.
        parent: Parent widget.

    Signals:
        skillsChanged(): a skill was created, saved, copied, deleted or restored.
        refreshed(): the list shows the current skills.
    """

    skillsChanged = Signal()
    refreshed = Signal()

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self._tasks = TaskOwner("skills-tab")
        self._loader: SkillsLoader | None = None
        self._lock = asyncio.Lock()
        self._stale = True
        self._select_next: Path | None = None
        self._edit_next = False
        self.dialog: NewSkillDialog | None = None
        self.confirm_box: QMessageBox | None = None

        self.notice = NoticeBar(self)
        self.search = QLineEdit(self)
        self.search.setPlaceholderText(tr("Search skills"))
        self.search.setClearButtonEnabled(True)
        self.search.setAccessibleName(tr("Search skills"))
        self.list = SkillList(self)
        self.summary = QLabel(self)
        self.summary.setAccessibleName(tr("Skills summary"))
        self.summary.setWordWrap(True)
        self.new_button = QPushButton(tr("New skill…"), self)
        self.new_button.setAccessibleName(tr("New skill"))
        self.refresh_button = QPushButton(tr("Refresh"), self)
        self.refresh_button.setAccessibleName(tr("Refresh skills"))
        self.refresh_button.setToolTip(tr("Read the skill folders again (availability too)"))
        self.view = SkillView(self)
        self.editor = SkillEditor(self)
        self.pages = QStackedWidget(self)
        self.pages.addWidget(self.view)
        self.pages.addWidget(self.editor)

        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.search)
        left_layout.addWidget(self.list, 1)
        left_layout.addWidget(self.summary)
        buttons = QHBoxLayout()
        buttons.addWidget(self.new_button)
        buttons.addStretch(1)
        buttons.addWidget(self.refresh_button)
        left_layout.addLayout(buttons)
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(left)
        splitter.addWidget(self.pages)
        splitter.setChildrenCollapsible(False)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([340, 660])
        layout = QVBoxLayout(self)
        layout.addWidget(self.notice)
        layout.addWidget(splitter, 1)

        self.search.textChanged.connect(self.list.set_search)
        self.list.skillSelected.connect(self._selected)
        self.new_button.clicked.connect(self.new_skill)
        self.refresh_button.clicked.connect(self.refresh)
        self.view.editRequested.connect(lambda listing: self.edit(listing.path))
        self.view.deleteRequested.connect(self.confirm_delete)
        self.view.copyRequested.connect(self._copy)
        self.editor.saved.connect(self._editor_saved)
        self.editor.closed.connect(self._editor_closed)
        services.bridge.turnFinished.connect(self._turn_finished)
        services.configChanged.connect(self._mark_stale)

    # -- public -------------------------------------------------------------------------
    @property
    def workspace(self) -> Path:
        """The workspace whose ``skills/`` folder holds the editable skills."""
        return self.services.workspace

    def refresh(self) -> None:
        """Re-read both skill folders in a worker thread."""
        self._tasks.try_spawn(self._refresh(), name="skills-refresh")

    async def refreshed_once(self) -> None:
        """Refresh now and wait for the list (for callers and tests)."""
        await self._refresh()

    def new_skill(self) -> None:
        """Ask for a name and description, then create the skill and open it for editing."""
        listings = self.list.listings()
        dialog = NewSkillDialog(
            {item.name for item in listings if item.source == "workspace"},
            {item.name for item in listings if item.source == "builtin"},
            self,
        )
        dialog.accepted.connect(
            lambda: self._tasks.try_spawn(
                self.create(dialog.name, dialog.description), name="skill-create"
            )
        )
        dialog.finished.connect(lambda _r: self._dialog_closed(dialog))
        self.dialog = dialog
        dialog.open()

    def _editor_saved(self, _path: object) -> None:
        self.skillsChanged.emit()
        self.refresh()

    async def create(self, name: str, description: str) -> Path | None:  # type: ignore[override]  # not QWidget.create(); renaming it is a change of its own
        """Create a workspace skill from the template and open it in the editor."""
        try:
            path = await asyncio.to_thread(create_skill, self.workspace, name, description)
        except (ValueError, OSError) as exc:
            self.notice.show_message(
                "error", tr("The skill was not created: {error}").format(error=shown(exc))
            )
            return None
        self.notice.show_message(
            "success",
            tr("Created {name}. Describe the steps in the editor and save.").format(name=name),
        )
        self.skillsChanged.emit()
        await self._refresh(select=path)
        await self._open_editor(path)
        return path

    def edit(self, path: Path) -> None:
        """Open the workspace SKILL.md ``path`` in the editor (builtins are refused)."""
        self._tasks.try_spawn(self._open_editor(path), name="skill-edit")

    def confirm_delete(self, listing: SkillListing) -> None:
        """Ask (without a nested event loop) before deleting a workspace skill."""
        if listing.source != "workspace":
            return
        box = QMessageBox(
            QMessageBox.Icon.Question,
            tr("Delete skill?"),
            "\n\n".join(
                (
                    tr("Delete the workspace skill “{name}”?").format(name=listing.name),
                    tr(
                        "Its folder is moved to skills/.deleted/ (not destroyed), and you can "
                        "undo right after."
                    ),
                )
            ),
            QMessageBox.StandardButton.Cancel,
            self,
        )
        delete = box.addButton(tr("Delete"), QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setAccessibleName(tr("Delete skill?"))

        def answered(_result: int) -> None:
            self.confirm_box = None
            box.deleteLater()
            if box.clickedButton() is delete:
                self._tasks.try_spawn(self.delete(listing.name), name="skill-delete")

        box.finished.connect(answered)
        self.confirm_box = box
        box.open()

    async def delete(self, name: str) -> Path | None:
        """Set the workspace skill ``name`` aside (with an Undo); return where it went."""
        try:
            aside = await asyncio.to_thread(set_aside_skill, self.workspace, name)
        except OSError as exc:
            self.notice.show_message(
                "error", tr("{name} was not deleted: {error}").format(name=name, error=shown(exc))
            )
            return None
        moved = aside.relative_to(self.workspace).as_posix()
        self.notice.show_message(
            "info",
            tr("Deleted {name}. Its folder was moved to {folder}.").format(name=name, folder=moved),
            [
                (
                    tr("Undo"),
                    lambda: self._tasks.try_spawn(self.restore(aside, name), name="skill-undo"),
                )
            ],
        )
        self.skillsChanged.emit()
        await self._refresh()
        return aside

    async def restore(self, aside: Path, name: str) -> None:
        """Bring a deleted skill back."""
        try:
            path = await asyncio.to_thread(restore_skill, aside, self.workspace, name)
        except OSError as exc:
            self.notice.show_message(
                "error", tr("{name} was not restored: {error}").format(name=name, error=shown(exc))
            )
            return
        self.notice.show_message("success", tr("Restored {name}.").format(name=name))
        self.skillsChanged.emit()
        await self._refresh(select=path)

    async def aclose(self) -> None:
        """Cancel running work."""
        await self.editor.aclose()
        await self._tasks.aclose()

    # -- internals ----------------------------------------------------------------------
    async def _refresh(self, select: Path | None = None) -> None:
        async with self._lock:
            self._stale = False
            if self._loader is None or self._loader.workspace != self.workspace:
                self._loader = SkillsLoader(self.workspace)
            listings = await asyncio.to_thread(self._loader.catalog)
            if select is not None:
                self._select_next = select
            self.list.set_listings(listings)
            if self._select_next is not None:
                self.list.select_path(self._select_next)
                self._select_next = None
            if self.list.selected() is None and self.list.count():
                self.list.setCurrentRow(0)
            self._summarise(listings)
        self.refreshed.emit()

    def _summarise(self, listings: list[SkillListing]) -> None:
        builtin = sum(1 for item in listings if item.source == "builtin")
        workspace = len(listings) - builtin
        unavailable = sum(
            1
            for item in listings
            if item.error or (item.skill is not None and not item.skill.available)
        )
        parts = [
            tr("{count} builtin").format(count=builtin),
            tr("{count} in the workspace").format(count=workspace),
        ]
        if unavailable:
            parts.append(tr("{count} not usable here").format(count=unavailable))
        self.summary.setText("  ·  ".join(parts))

    def _selected(self, listing: SkillListing | None) -> None:
        if listing is None:
            self.view.set_skill(None, "")
            return
        self._tasks.try_spawn(self._show(listing), name="skill-show")

    async def _show(self, listing: SkillListing) -> None:
        text = await asyncio.to_thread(_read, listing.path)
        selected = self.list.selected()
        if selected is None or selected.path != listing.path:
            return  # the selection moved on meanwhile
        has_copy = any(
            item.name == listing.name and item.source == "workspace"
            for item in self.list.listings()
        )
        self.view.set_skill(listing, text, workspace_has_copy=has_copy)

    async def _open_editor(self, path: Path) -> None:
        if not path.is_relative_to(self.workspace / "skills"):
            self.notice.show_message(
                "warning",
                tr("Builtin skills are read-only. Copy it to the workspace to change it."),
            )
            return
        try:
            text = await asyncio.to_thread(path.read_text, encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            self.notice.show_message(
                "error", tr("Cannot open {path}: {error}").format(path=path, error=exc)
            )
            return
        self.list.select_path(path)
        self.editor.open_file(path, text)
        self.pages.setCurrentWidget(self.editor)
        self._set_browsing(False)

    def _editor_closed(self) -> None:
        self.pages.setCurrentWidget(self.view)
        self._set_browsing(True)
        self.refresh()

    def _set_browsing(self, on: bool) -> None:
        for widget in (self.list, self.search, self.new_button, self.refresh_button):
            widget.setEnabled(on)

    def _copy(self, listing: SkillListing) -> None:
        async def run() -> None:
            try:
                path = await asyncio.to_thread(copy_builtin, listing.path, self.workspace)
            except OSError as exc:
                self.notice.show_message(
                    "error",
                    tr("{name} was not copied: {error}").format(
                        name=listing.name, error=shown(exc)
                    ),
                )
                return
            self.notice.show_message(
                "success",
                tr("Copied {name} to the workspace; the copy replaces the builtin.").format(
                    name=listing.name
                ),
                [(tr("Edit it"), lambda: self.edit(path))],
            )
            self.skillsChanged.emit()
            await self._refresh(select=path)

        self._tasks.try_spawn(run(), name="skill-copy")

    def _dialog_closed(self, dialog: NewSkillDialog) -> None:
        if self.dialog is dialog:
            self.dialog = None
        dialog.deleteLater()

    def _turn_finished(self, _event: object) -> None:
        self._mark_stale()

    def _mark_stale(self) -> None:
        self._stale = True
        if self.isVisible() and self.pages.currentWidget() is self.view:
            self.refresh()

    def showEvent(self, event: QShowEvent) -> None:
        """Refresh when shown for the first time or after something changed."""
        super().showEvent(event)
        if self._stale:
            self.refresh()
