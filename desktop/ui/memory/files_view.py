"""View and edit MEMORY.md, SOUL.md and USER.md; saving commits ``edit: <file>``."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QFont, QFontDatabase, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QStackedWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from desktop.core.memory.git_store import GitStore
from desktop.core.memory.pins import Pin, PinError, PinStore
from desktop.core.utils.tasks import TaskOwner
from desktop.ui.i18n import QT_TR_NOOP, tr
from desktop.ui.memory.look import mute
from desktop.ui.memory.notice_bar import NoticeBar
from desktop.ui.memory.pins_panel import PinsPanel, line_at_cursor, pin_selections
from desktop.ui.memory.snapshot import MEMORY_FILES, read_file, save_memory_file
from desktop.ui.phrase_text import shown

DESCRIPTIONS = {
    "memory/MEMORY.md": QT_TR_NOOP(
        "Long-term memory: facts and context. Dream keeps it up to date."
    ),
    "SOUL.md": QT_TR_NOOP("The assistant's personality, tone and values."),
    "USER.md": QT_TR_NOOP("What the assistant knows about you."),
}


def _label(name: str) -> str:
    return Path(name).name


def mono_font() -> QFont:
    """The system's fixed-width font."""
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)


class MemoryFilesView(QWidget):
    """The three memory files, each in its own editor (unsaved edits survive switching).

    Args:
        workspace: The workspace folder.
        git: Its memory timeline.
        parent: Parent widget.

    Lines can be pinned (the editor's context menu): pinned lines are tinted and listed under
    the editor, and Dream never changes them.

    Signals:
        saved(str, str): a file was saved: workspace-relative name and the ``edit:`` commit id
            (empty when the content was unchanged or git failed).
        pinsChanged(): a line was pinned or unpinned.
    """

    saved = Signal(str, str)
    pinsChanged = Signal()

    def __init__(self, workspace: Path, git: GitStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.git = git
        self._tasks = TaskOwner("files-view")
        self._baseline: dict[str, str | None] = dict.fromkeys(MEMORY_FILES)
        self._loaded = False
        self._warned: dict[str, str | None] = {}  # disk text already warned about, per file
        self._pins: list[Pin] = []
        self._menu: QMenu | None = None

        self._list = QListWidget(self)
        self._list.setAccessibleName(tr("Memory files"))
        self._list.setFixedWidth(170)
        self._list.setSpacing(2)
        self._list.setStyleSheet("QListWidget::item { padding: 6px 6px; }")
        for name in MEMORY_FILES:
            item = QListWidgetItem(_label(name), self._list)
            item.setData(Qt.ItemDataRole.UserRole, name)
            item.setToolTip(tr(DESCRIPTIONS[name]))
        self._title = QLabel(self)
        self._title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._hint = QLabel(self)
        self._hint.setWordWrap(True)
        mute(self._hint)
        self.preview_button = QPushButton(tr("Preview"), self)
        self.preview_button.setCheckable(True)
        self.preview_button.setAccessibleName(tr("Preview rendered markdown"))
        self.reload_button = QPushButton(tr("Reload"), self)
        self.reload_button.setAccessibleName(tr("Reload from disk"))
        self.reload_button.setToolTip(tr("Discard unsaved edits of this file and read it again"))
        self.save_button = QPushButton(tr("Save"), self)
        self.save_button.setAccessibleName(tr("Save and commit"))
        self.save_button.setToolTip(tr("Save the file and record it in the history (Ctrl+S)"))
        self.notice = NoticeBar(self)

        self._editors: dict[str, QPlainTextEdit] = {}
        self._editor_stack = QStackedWidget(self)
        for name in MEMORY_FILES:
            editor = QPlainTextEdit(self)
            editor.setFont(mono_font())
            editor.setAccessibleName(tr("{file} editor").format(file=_label(name)))
            editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
            editor.modificationChanged.connect(lambda _m, n=name: self._mark(n))
            editor.textChanged.connect(lambda n=name: self._mark_pins(n))
            editor.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
            editor.customContextMenuRequested.connect(
                lambda pos, n=name: self._context_menu(n, pos)
            )
            self._editors[name] = editor
            self._editor_stack.addWidget(editor)
        self._preview = QTextBrowser(self)
        self._preview.setOpenExternalLinks(True)
        self._preview.setAccessibleName(tr("Rendered preview"))
        self._pages = QStackedWidget(self)
        self._pages.addWidget(self._editor_stack)
        self._pages.addWidget(self._preview)
        self.pins = PinsPanel(self)
        self.pins.unpinRequested.connect(
            lambda text: self._tasks.try_spawn(self.unpin(self.current, text), name="memory-unpin")
        )

        header = QHBoxLayout()
        titles = QVBoxLayout()
        titles.setSpacing(2)
        titles.addWidget(self._title)
        titles.addWidget(self._hint)
        header.addLayout(titles, 1)
        for button in (self.preview_button, self.reload_button, self.save_button):
            header.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
        right = QVBoxLayout()
        right.setContentsMargins(0, 0, 0, 0)
        right.addLayout(header)
        right.addWidget(self.notice)
        right.addWidget(self._pages, 1)
        right.addWidget(self.pins)
        layout = QHBoxLayout(self)
        layout.addWidget(self._list)
        layout.addLayout(right, 1)

        self._list.currentRowChanged.connect(self._show_file)
        self.preview_button.toggled.connect(self._toggle_preview)
        self.reload_button.clicked.connect(self._reload_clicked)
        self.save_button.clicked.connect(self.save_current)
        shortcut = QShortcut(QKeySequence.StandardKey.Save, self)
        shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        shortcut.activated.connect(self.save_current)
        self._list.setCurrentRow(0)

    # -- public -------------------------------------------------------------------------
    @property
    def current(self) -> str:
        """The workspace-relative name of the file shown."""
        item = self._list.currentItem()
        return str(item.data(Qt.ItemDataRole.UserRole)) if item else MEMORY_FILES[0]

    def editor(self, name: str) -> QPlainTextEdit:
        """The editor of ``name`` (``memory/MEMORY.md``, ``SOUL.md`` or ``USER.md``)."""
        return self._editors[name]

    def select(self, name: str) -> None:
        """Show ``name``."""
        self._list.setCurrentRow(MEMORY_FILES.index(name))

    def is_dirty(self, name: str) -> bool:
        """Whether ``name`` has unsaved edits."""
        return self._editors[name].document().isModified()

    def set_files(self, files: dict[str, str | None]) -> None:
        """Take fresh file contents from disk; unsaved edits are never overwritten."""
        changed_under_edit = []
        for name, text in files.items():
            if name not in self._editors:
                continue
            if not self._loaded or not self.is_dirty(name):
                self._load(name, text)
            elif text != self._baseline[name] and text != self._warned.get(name):
                self._warned[name] = text
                changed_under_edit.append(name)
        self._loaded = True
        if changed_under_edit:
            self._warn_changed(changed_under_edit[0])

    def set_pins(self, pins: list[Pin]) -> None:
        """Show ``pins`` (tint in the editors, list of the file shown)."""
        self._pins = list(pins)
        for name in MEMORY_FILES:
            self._mark_pins(name)

    def pinned(self, name: str) -> list[Pin]:
        """The pins of ``name``."""
        return [pin for pin in self._pins if pin.path == name]

    async def pin(self, name: str, text: str) -> Pin | None:
        """Pin the line ``text`` of ``name`` (in a worker thread)."""
        try:
            pin = await asyncio.to_thread(PinStore(self.workspace).pin, name, text)
        except (PinError, OSError) as exc:
            self.notice.show_message(
                "warning", tr("The line was not pinned: {error}").format(error=shown(exc))
            )
            return None
        if pin not in self._pins:
            self.set_pins([*self._pins, pin])
        self.notice.show_message(
            "success",
            tr("Pinned “{line}”: Dream will never change or remove it.").format(line=pin.text),
        )
        self.pinsChanged.emit()
        return pin

    async def unpin(self, name: str, text: str) -> bool:
        """Unpin the line ``text`` of ``name``."""
        try:
            removed = await asyncio.to_thread(PinStore(self.workspace).unpin, name, text)
        except OSError as exc:
            self.notice.show_message(
                "error", tr("The pin was not removed: {error}").format(error=shown(exc))
            )
            return False
        self.set_pins([p for p in self._pins if not (p.path == name and p.text == text)])
        if removed:
            self.notice.show_message("info", tr("Unpinned “{line}”.").format(line=text))
        self.pinsChanged.emit()
        return removed

    def save_current(self) -> None:
        """Save the file shown (in a task)."""
        self._tasks.try_spawn(self.save(self.current), name="memory-save")

    async def save(self, name: str, *, force: bool = False) -> str | None:
        """Save ``name`` and commit it; return the commit id.

        Unless ``force``, a file changed on disk since it was loaded is not overwritten: a
        warning offers to save anyway (the other change is recorded first) or reload.
        """
        text = self._editors[name].toPlainText()
        self.save_button.setEnabled(False)
        try:
            disk = await asyncio.to_thread(read_file, self.workspace, name)
            if not force and disk != self._baseline[name] and disk != text:
                self.notice.show_message(
                    "warning",
                    tr(
                        "{file} changed on disk since you opened it (for example by Dream). "
                        "Saving now replaces that change; it stays in the history and can be "
                        "restored."
                    ).format(file=name),
                    [
                        (
                            tr("Save anyway"),
                            lambda: self._tasks.try_spawn(
                                self.save(name, force=True), name="memory-save"
                            ),
                        ),
                        (tr("Reload (discard my edits)"), lambda: self._reload(name)),
                    ],
                )
                return None
            try:
                outcome = await asyncio.to_thread(
                    save_memory_file, self.workspace, self.git, name, text
                )
            except OSError as exc:
                self.notice.show_message(
                    "error",
                    tr("{file} was not saved: {error}. Your text is still in the editor.").format(
                        file=name, error=exc
                    ),
                )
                return None
        finally:
            self.save_button.setEnabled(True)
        self._baseline[name] = text
        if self._editors[name].toPlainText() == text:
            self._editors[name].document().setModified(False)
        if outcome.git_error:
            self.notice.show_message(
                "warning",
                tr("Saved {file}, but it could not be recorded in the history: {error}").format(
                    file=name, error=shown(outcome.git_error)
                ),
            )
        elif outcome.commit:
            pins = (
                (" " + "; ".join(shown(note) for note in outcome.pin_notes).capitalize() + ".")
                if outcome.pin_notes
                else ""
            )
            self.notice.show_message(
                "success",
                tr("Saved {file} and recorded it as “edit: {file}” ({commit}).").format(
                    file=name, commit=outcome.commit[:7]
                )
                + pins,
            )
        else:
            self.notice.show_message("info", tr("{file} had no changes to save.").format(file=name))
        if outcome.pin_notes:
            self.pinsChanged.emit()
        self.saved.emit(name, outcome.commit or "")
        return outcome.commit

    def discard_all(self) -> None:
        """Forget every unsaved edit (the next :meth:`set_files` loads from disk)."""
        for editor in self._editors.values():
            editor.document().setModified(False)
        self._loaded = False
        self._warned.clear()
        self.notice.clear()

    async def aclose(self) -> None:
        """Cancel running saves."""
        await self._tasks.aclose()

    # -- internals ----------------------------------------------------------------------
    def _load(self, name: str, text: str | None) -> None:
        editor = self._editors[name]
        self._baseline[name] = text
        if editor.toPlainText() != (text or ""):
            position = editor.textCursor().position()
            scroll = editor.verticalScrollBar().value()
            editor.setPlainText(text or "")
            cursor = editor.textCursor()
            cursor.setPosition(min(position, len(text or "")))
            editor.setTextCursor(cursor)
            editor.verticalScrollBar().setValue(scroll)
        editor.setPlaceholderText(
            tr("{file} does not exist yet. Write here and save to create it.").format(file=name)
            if text is None
            else ""
        )
        editor.document().setModified(False)
        if name == self.current and self.preview_button.isChecked():
            self._preview.setMarkdown(editor.toPlainText())

    def _reload(self, name: str) -> None:
        async def run() -> None:
            text = await asyncio.to_thread(read_file, self.workspace, name)
            self._load(name, text)
            self.notice.clear()

        self._tasks.try_spawn(run(), name="memory-reload")

    def _reload_clicked(self) -> None:
        self._reload(self.current)

    def _warn_changed(self, name: str) -> None:
        self.notice.show_message(
            "warning",
            tr(
                "{file} changed on disk (for example by Dream) while you were editing it. "
                "Your edits are kept in the editor."
            ).format(file=name),
            [
                (tr("Reload (discard my edits)"), lambda: self._reload(name)),
                (tr("Keep my edits"), lambda: None),
            ],
        )

    def _mark(self, name: str) -> None:
        row = MEMORY_FILES.index(name)
        dirty = self.is_dirty(name)
        self._list.item(row).setText(_label(name) + ("  •" if dirty else ""))
        self._list.item(row).setData(
            Qt.ItemDataRole.AccessibleTextRole,
            tr("{file} (unsaved)").format(file=_label(name)) if dirty else _label(name),
        )

    def _mark_pins(self, name: str) -> None:
        editor = self._editors[name]
        pins = self.pinned(name)
        editor.setExtraSelections(pin_selections(editor, {p.text for p in pins}))
        if name == self.current:
            self.pins.set_pins(pins, editor.toPlainText())

    def _context_menu(self, name: str, pos: QPoint) -> None:
        editor = self._editors[name]
        cursor = editor.cursorForPosition(pos)
        if not editor.textCursor().hasSelection():
            editor.setTextCursor(cursor)
        text = line_at_cursor(editor)
        menu = editor.createStandardContextMenu()
        menu.addSeparator()
        if any(p.text == text for p in self.pinned(name)):
            action = menu.addAction(tr("Unpin this line"))
            action.triggered.connect(
                lambda: self._tasks.try_spawn(self.unpin(name, text), name="memory-unpin")
            )
        else:
            action = menu.addAction(tr("Pin this line (Dream never changes it)"))
            action.setEnabled(bool(text.strip()))
            action.triggered.connect(
                lambda: self._tasks.try_spawn(self.pin(name, text), name="memory-pin")
            )
        menu.aboutToHide.connect(menu.deleteLater)
        menu.popup(editor.viewport().mapToGlobal(pos))
        self._menu = menu

    def _show_file(self, row: int) -> None:
        if row < 0:
            return
        name = MEMORY_FILES[row]
        self._title.setText(f"<b>{name}</b>")
        self._hint.setText(tr(DESCRIPTIONS[name]))
        self._editor_stack.setCurrentWidget(self._editors[name])
        self._mark_pins(name)
        if self.preview_button.isChecked():
            self._preview.setMarkdown(self._editors[name].toPlainText())

    def _toggle_preview(self, on: bool) -> None:
        if on:
            self._preview.setMarkdown(self._editors[self.current].toPlainText())
            self._pages.setCurrentWidget(self._preview)
        else:
            self._pages.setCurrentWidget(self._editor_stack)
