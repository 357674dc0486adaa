"""The chat's project folder and access mode: a row under the chat header.

A chat may work in a project folder (the OS folder chooser): relative paths, the shell's
working directory and the project's ``AGENTS.md`` come from it, while the agent's profile,
memory and skills stay the workspace's (:mod:`desktop.core.session.project`). Its access mode
is Restricted (file and shell work inside the project, or the workspace without one) or Full,
within Settings: with "Restrict to workspace" on (Settings → Tools & safety), Full cannot be
picked and the row says why.

The choice is saved in the chat's session (``workspace_scope``, as nanobot 0.3.5 keeps it). A
new chat that has no message yet is not on disk: its choice waits here and is saved just
before its first message goes out (:meth:`ProjectController.before_send`), as its own model is.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMenu,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.session.project import (
    WORKSPACE_SCOPE,
    AccessMode,
    ChatProject,
    ChatScope,
    ProjectError,
    chat_scope,
    scope_metadata,
    validate_folder,
)
from desktop.ui.i18n import QT_TR_NOOP, localized, tr

if TYPE_CHECKING:
    from desktop.ui.chat.chat_tab import ChatTab

log = logging.getLogger(__name__)

#: Opens the folder chooser: ``(parent, caption, start folder)`` → the chosen folder, or
#: ``""`` when cancelled. Tests replace it (the OS dialog cannot be driven).
ChooseFolder = Callable[[QWidget, str, str], str]

NO_PROJECT = QT_TR_NOOP("No project (workspace)")
MODES: tuple[tuple[AccessMode, str, str], ...] = (
    (
        "restricted",
        QT_TR_NOOP("Restricted"),
        QT_TR_NOOP(
            "File tools and commands work only inside the project folder (or the workspace)."
        ),
    ),
    (
        "full",
        QT_TR_NOOP("Full access"),
        QT_TR_NOOP(
            "File tools and commands may reach outside the project folder; writes outside it "
            "still ask first."
        ),
    ),
)
FULL_REFUSED = QT_TR_NOOP(
    "Full access is off: Settings → Tools & safety restricts tools to the workspace."
)


def os_folder_chooser(parent: QWidget, caption: str, start: str) -> str:
    """The OS folder chooser (``""`` when cancelled)."""
    return QFileDialog.getExistingDirectory(parent, caption, start)


class ProjectBar(QWidget):
    """The project button (folder name; full path as tooltip; menu: choose, clear) and the
    access mode box.

    Signals:
        chooseRequested(): "Choose project folder…".
        clearRequested(): "Clear project".
        modeChosen(str): an access mode was picked (``restricted`` / ``full``).
    """

    chooseRequested = Signal()
    clearRequested = Signal()
    modeChosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("projectBar")
        self.folder = QToolButton(self)
        self.folder.setObjectName("projectFolder")
        self.folder.setAccessibleName(tr("Project folder"))
        self.folder.setAutoRaise(True)
        self.folder.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.folder.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.folder.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        # The text ends in "▾" (as the model picker's); Qt's own arrow would be a second one.
        self.folder.setStyleSheet("QToolButton::menu-indicator { image: none; width: 0px; }")
        menu = QMenu(self.folder)
        self.choose_action = menu.addAction(tr("Choose project folder…"), self.chooseRequested.emit)
        self.clear_action = menu.addAction(tr("Clear project"), self.clearRequested.emit)
        self.folder.setMenu(menu)
        self.mode = QComboBox(self)
        self.mode.setObjectName("accessMode")
        self.mode.setAccessibleName(tr("Access mode"))
        for value, label, tip in MODES:
            self.mode.addItem(tr(label), value)
            self.mode.setItemData(self.mode.count() - 1, tr(tip), Qt.ItemDataRole.ToolTipRole)
        self.mode.activated.connect(self._picked)
        self.note = QLabel(tr(FULL_REFUSED), self)
        self.note.setObjectName("fullRefused")
        self.note.setAccessibleName(tr("Full access unavailable"))
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)
        self.note.setStyleSheet("QLabel#fullRefused { color: palette(placeholder-text); }")
        self.note.hide()
        self.problem = QLabel(self)
        self.problem.setObjectName("projectProblem")
        self.problem.setAccessibleName(tr("Project folder problem"))
        self.problem.setTextFormat(Qt.TextFormat.PlainText)
        self.problem.setWordWrap(True)
        self.problem.hide()
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        project = QLabel(tr("Project:"), self)
        project.setBuddy(self.folder)
        row.addWidget(project)
        row.addWidget(self.folder, 0)
        row.addStretch(1)
        access = QLabel(tr("Access:"), self)
        access.setBuddy(self.mode)
        row.addWidget(access)
        row.addWidget(self.mode)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 0, 12, 4)
        layout.setSpacing(2)
        layout.addLayout(row)
        layout.addWidget(self.note)
        layout.addWidget(self.problem)
        self.show_scope(None)

    def _picked(self, index: int) -> None:
        value = self.mode.itemData(index)
        if isinstance(value, str):
            self.modeChosen.emit(value)

    def show_problem(self, message: str) -> None:
        """Say why a choice was not taken (``""``: hide it)."""
        self.problem.setText(message)
        self.problem.setVisible(bool(message))

    def show_scope(self, scope: ChatScope | None) -> None:
        """Show ``scope`` (``None``: not known yet: the workspace, Restricted)."""
        project = scope.project if scope is not None else None
        if project is None:
            self.folder.setText("📁 " + tr(NO_PROJECT) + " ▾")
            self.folder.setToolTip(
                tr(
                    "Relative paths and commands start in the agent's workspace. "
                    "Choose a project folder for this chat."
                )
            )
            self.folder.setAccessibleDescription(tr(NO_PROJECT))
        else:
            name = project.name or str(project)
            self.folder.setText(f"📁 {name} ▾")
            self.folder.setToolTip(str(project))
            self.folder.setAccessibleDescription(str(project))
        self.clear_action.setEnabled(project is not None)
        allowed = scope.full_allowed if scope is not None else True
        model = self.mode.model()
        if isinstance(model, QStandardItemModel):
            full = model.item(self.mode.findData("full"))
            if full is not None:
                full.setEnabled(allowed)
                full.setToolTip(tr(MODES[1][2]) if allowed else tr(FULL_REFUSED))
        self.note.setVisible(not allowed)
        mode = scope.mode if scope is not None else "restricted"
        self.mode.setCurrentIndex(self.mode.findData(mode))
        self.mode.setToolTip(
            tr({v: tip for v, _, tip in MODES}[mode]) + ("" if allowed else "\n" + tr(FULL_REFUSED))
        )

    @property
    def shown_project(self) -> str:
        """The full path shown (``""``: no project)."""
        tip = self.folder.accessibleDescription()
        return "" if tip == tr(NO_PROJECT) else tip


class ProjectController(QObject):
    """Reads, shows and saves the open chat's project and access mode.

    Args:
        tab: The chat tab (its store, sessions list and pane).
        choose: The folder chooser (:data:`ChooseFolder`).
    """

    changed = Signal(str)  # session key whose shown scope changed (tests wait on it)

    def __init__(self, tab: ChatTab, choose: ChooseFolder = os_folder_chooser) -> None:
        super().__init__(tab)
        self.tab = tab
        self.choose = choose
        self.bar = ProjectBar(tab.pane)
        layout = tab.pane.layout()
        if isinstance(layout, QVBoxLayout):
            layout.insertWidget(1, self.bar)  # right under the header row
        self._staged: dict[str, ChatProject] = {}  # new chats not on disk yet
        self._shown: dict[str, ChatScope] = {}
        self.bar.chooseRequested.connect(self.choose_folder)
        self.bar.clearRequested.connect(self.clear_folder)
        self.bar.modeChosen.connect(self.set_mode)
        tab.sessionOpened.connect(self.show)
        tab.list_controller.deleted.connect(self.forget)
        tab.services.configChanged.connect(lambda: self.show(self.tab.current))

    # -- reading --------------------------------------------------------------------------
    @property
    def _workspace(self) -> Path:
        return self.tab.services.workspace

    @property
    def _restrict(self) -> bool:
        return bool(self.tab.services.config.tools.restrict_to_workspace)

    def _draft(self, key: str) -> bool:
        entry = self.tab.sessions.entry(key)
        return entry is not None and entry.draft

    def scope_of(self, key: str) -> ChatScope | None:
        """What is shown for ``key`` (``None``: not read yet)."""
        return self._shown.get(key)

    def show(self, key: str) -> None:
        """Read ``key``'s project and show it (when it is still the open chat)."""
        if key:
            self.tab._spawn(self._show(key))

    async def _show(self, key: str) -> None:
        staged = self._staged.get(key)
        if staged is not None:
            scope = await asyncio.to_thread(self._staged_scope, staged)
        else:
            scope = await self.tab.store.access.project(key, self._workspace, self._restrict)
        self._shown[key] = scope
        if key == self.tab.current:
            self.bar.show_scope(scope)
        self.changed.emit(key)

    def _staged_scope(self, project: ChatProject) -> ChatScope:
        """The scope ``project`` gives (blocking: it looks at the folder)."""
        value = scope_metadata(project, self._workspace)
        meta = {WORKSPACE_SCOPE: value} if value is not None else {}
        return chat_scope(meta, self._workspace, self._restrict)

    # -- changing -------------------------------------------------------------------------
    def choose_folder(self) -> None:
        """Ask for a folder (the chooser) and make it the open chat's project."""
        key = self.tab.current
        if not key:
            return
        shown = self._shown.get(key)
        start = str(shown.root) if shown is not None else str(Path.home())
        folder = self.choose(self.tab, tr("Choose the chat's project folder"), start)
        if folder:
            self._change(Path(folder))

    def clear_folder(self) -> None:
        """The open chat works in the workspace again."""
        self._change(None, keep_folder=False)

    def set_mode(self, mode: str) -> None:
        """Give the open chat access mode ``mode`` (``restricted`` / ``full``)."""
        if mode in ("restricted", "full"):
            self._change(None, mode="full" if mode == "full" else "restricted")

    def _change(
        self, folder: Path | None, *, keep_folder: bool = True, mode: AccessMode | None = None
    ) -> None:
        key = self.tab.current
        if not key:
            return
        shown = self._shown.get(key)
        old_folder = shown.project if shown is not None else None
        new_folder = folder if folder is not None or not keep_folder else old_folder
        new_mode = mode or (shown.chosen if shown is not None else None)
        if new_mode == "full" and self._restrict:
            self.bar.show_scope(shown)  # Settings do not allow it: nothing changes
            return
        self.bar.show_problem("")
        self.tab._spawn(self._save(key, ChatProject(new_folder, new_mode)))

    async def _save(self, key: str, project: ChatProject) -> None:
        try:
            folder = (
                None
                if project.folder is None
                else await asyncio.to_thread(validate_folder, project.folder)
            )
        except ProjectError as exc:
            await self._refuse(key, localized(exc))
            return
        project = ChatProject(folder, project.mode)
        if self._draft(key):
            self._staged[key] = project  # saved with the first message (before_send)
            await self._show(key)
            return
        # Shown at once: a running turn holds the chat's lock until it ends, and the change
        # applies from the next message.
        shown = await asyncio.to_thread(self._staged_scope, project)
        self._shown[key] = shown
        if key == self.tab.current:
            self.bar.show_scope(shown)
            if self.tab.state.busy(key):
                self.bar.show_problem(tr("This applies from the next message."))
        try:
            await self.tab.store.access.set_project(key, project, self._workspace)
        except ProjectError as exc:
            await self._refuse(key, localized(exc))
            return
        except OSError:
            log.exception("saving the project of %s failed", key)
            await self._refuse(key, tr("The chat's project could not be saved."))
            return
        await self._show(key)

    async def _refuse(self, key: str, message: str) -> None:
        """Show what is saved again, and why the change was not taken."""
        if self._draft(key):
            self.bar.show_scope(self._shown.get(key))
            self.changed.emit(key)
        else:
            await self._show(key)
        if key == self.tab.current:
            self.bar.show_problem(message)

    def before_send(
        self, key: str, before: Coroutine[Any, Any, Any] | None
    ) -> Coroutine[Any, Any, Any] | None:
        """For a new chat's first message: save its staged project first (after ``before``)."""
        staged = self._staged.pop(key, None)
        if staged is None:
            return before
        access, workspace = self.tab.store.access, self._workspace

        async def save() -> None:
            if before is not None:
                await before
            try:
                await access.set_project(key, staged, workspace)
            except ProjectError:
                log.warning("the staged project of %s is gone; it starts without", key)

        return save()

    def forget(self, key: str) -> None:
        """A chat was deleted: drop what is held of it."""
        self._staged.pop(key, None)
        self._shown.pop(key, None)
