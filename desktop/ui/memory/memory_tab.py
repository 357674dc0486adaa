"""The Memory tab: the memory files, the history log and the Dream timeline."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QTimer, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QLabel, QStackedWidget, QTabWidget, QVBoxLayout, QWidget

from desktop.core.memory.git_store import GitStore
from desktop.core.utils.tasks import TaskOwner
from desktop.ui.i18n import tr
from desktop.ui.memory.files_view import MemoryFilesView
from desktop.ui.memory.history_view import HistoryView
from desktop.ui.memory.look import Tone, mute
from desktop.ui.memory.notice_bar import NoticeBar
from desktop.ui.memory.review_view import ReviewView
from desktop.ui.memory.snapshot import MEMORY_FILES, MemorySnapshot, load_snapshot
from desktop.ui.memory.timeline_view import TimelineView
from desktop.ui.phrase_text import shown
from desktop.ui.services import AppServices

log = logging.getLogger(__name__)

REFRESH_DELAY_MS = 400
FILES, HISTORY, TIMELINE, REVIEW = range(4)


class MemoryTab(QWidget):
    """What the assistant remembers, and every change to it as an undoable commit.

    Three pages: the memory files (MEMORY.md, SOUL.md, USER.md; saving commits
    ``edit: <file>``; lines can be pinned), the history log (newest first, searchable, entries
    Dream has not consumed marked) and the Dream timeline (diffs, Revert, Dream now). A fourth,
    "Dream review", appears while a Dream proposal waits (review mode), with a banner on top,
    or, until dismissed, to say that a proposal Dream did not write was refused.

    Re-reads everything (in a worker thread) after a turn, after its own changes, when the
    files change on disk, and when it is shown after being stale.

    Args:
        services: The application services.
        parent: Parent widget.

    Signals:
        refreshed(): a refresh finished and the views show the current state.
        proposalChanged(int): the number of changes a pending Dream proposal holds (0: none).
    """

    refreshed = Signal()
    proposalChanged = Signal(int)

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.workspace: Path = services.workspace
        self.git = GitStore(self.workspace)
        self._tasks = TaskOwner("memory-tab")
        self._refresh_task: asyncio.Task[None] | None = None
        self._again = False
        self._stale = True
        self._repo_checked = False
        self.snapshot: MemorySnapshot | None = None

        self.notice = NoticeBar(self)
        self.pages = QTabWidget(self)
        self.pages.setDocumentMode(True)
        self.pages.setAccessibleName(tr("Memory pages"))
        self.files = MemoryFilesView(self.workspace, self.git, self)
        self.history = HistoryView(self)
        self.timeline = TimelineView(services, self.git, self)
        self.review = ReviewView(self.workspace, self.git, self)
        self.pages.addTab(self.files, tr("Memory files"))
        self.pages.addTab(self.history, tr("History log"))
        self.pages.addTab(self.timeline, tr("Dream timeline"))
        self.pages.addTab(self.review, tr("Dream review"))
        self.pages.setTabVisible(REVIEW, False)
        self._pending_changes = 0
        self._show_review_when_pending = False
        self._banner_for: tuple[str, int, int] | None = None
        self._refusal: str | None = None
        self._missing = QLabel(self)
        self._missing.setWordWrap(True)
        mute(self._missing)
        self._body = QStackedWidget(self)
        self._body.addWidget(self.pages)
        self._body.addWidget(self._missing)
        layout = QVBoxLayout(self)
        layout.addWidget(self.notice)
        layout.addWidget(self._body, 1)

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(REFRESH_DELAY_MS)
        self._debounce.timeout.connect(self.refresh)
        self._watcher = QFileSystemWatcher(self)
        self._watcher.directoryChanged.connect(self._changed_on_disk)
        self._watcher.fileChanged.connect(self._changed_on_disk)

        self.files.saved.connect(lambda *_: self.refresh())
        self.files.pinsChanged.connect(self.refresh)
        self.timeline.changed.connect(self.refresh)
        self.review.decided.connect(self._review_decided)
        self.review.edited.connect(self.refresh)
        self.review.refusalDismissed.connect(self._dismiss_refusal)
        services.bridge.turnFinished.connect(self._turn_finished)
        services.configChanged.connect(self._config_changed)

    # -- public -------------------------------------------------------------------------
    def refresh(self) -> None:
        """Re-read files, history and timeline in a worker thread (coalesces calls)."""
        self._debounce.stop()
        if self._refresh_task is not None and not self._refresh_task.done():
            self._again = True
            return
        self._refresh_task = self._tasks.try_spawn(self._refresh(), name="memory-refresh")

    def schedule_refresh(self) -> None:
        """Refresh soon when visible; otherwise on the next show."""
        self._stale = True
        if self.isVisible():
            self._debounce.start()

    def show_review(self) -> None:
        """Show the Dream review page (re-reading the proposal first)."""
        self.refresh()
        if self.pages.isTabVisible(REVIEW):
            self.pages.setCurrentIndex(REVIEW)
        else:
            self._show_review_when_pending = True

    async def refreshed_once(self) -> None:
        """Refresh now and wait until the views show the result (for callers and tests)."""
        self.refresh()
        while self._refresh_task is not None and not self._refresh_task.done():
            await asyncio.shield(self._refresh_task)

    async def aclose(self) -> None:
        """Cancel everything this tab runs (refreshes, saves, reverts, a Dream)."""
        self._debounce.stop()
        await self.files.aclose()
        await self.timeline.aclose()
        await self.review.aclose()
        await self._tasks.aclose()

    # -- refresh ------------------------------------------------------------------------
    async def _refresh(self) -> None:
        while True:
            self._again = False
            self._stale = False
            ensure = not self._repo_checked
            snapshot = await asyncio.to_thread(
                load_snapshot, self.workspace, self.git, ensure_repo=ensure
            )
            if snapshot.exists and snapshot.git_error is None:
                self._repo_checked = True
            watch = await asyncio.to_thread(self._watch_paths, snapshot.exists)
            self._apply(snapshot, watch)
            if not self._again:
                break
        self.refreshed.emit()

    def _apply(self, snapshot: MemorySnapshot, watch: list[str]) -> None:
        self.snapshot = snapshot
        self._watch(watch)
        if not snapshot.exists:
            self._stale = True  # look again on the next show (onboarding may create it)
            self._missing.setText(
                tr(
                    "The workspace {workspace} does not exist yet. It is created when the "
                    "assistant first starts; its memory appears here then."
                ).format(workspace=self.workspace)
            )
            self._body.setCurrentWidget(self._missing)
            return
        self._body.setCurrentWidget(self.pages)
        self.files.set_files(snapshot.files)
        self.history.set_entries(snapshot.entries, snapshot.dream_cursor, snapshot.malformed)
        self.timeline.set_commits(snapshot.commits, snapshot.git_error)
        self.timeline.set_pending(snapshot.pending)
        self.files.set_pins(snapshot.pins)
        self._set_proposal(snapshot)
        self.pages.setTabText(
            HISTORY,
            tr("History log ({count} new)").format(count=snapshot.pending)
            if snapshot.pending
            else tr("History log"),
        )
        if snapshot.notices:
            english = "; ".join(snapshot.notices)
            text = "; ".join(shown(notice) for notice in snapshot.notices)
            if not english.startswith("Memory history"):
                text = tr("Memory history: {notices}").format(notices=text)
            self.notice.show_message("info", text)
        if snapshot.proposal_warning and not snapshot.proposal_unrecorded:
            self.notice.show_message("warning", shown(snapshot.proposal_warning))

    # -- review -------------------------------------------------------------------------
    def _set_proposal(self, snapshot: MemorySnapshot) -> None:
        proposal = snapshot.proposal
        if proposal is not None:
            self._refusal = None
        elif snapshot.proposal_unrecorded and snapshot.proposal_warning:
            self._refusal = snapshot.proposal_warning  # shown until dismissed
            self.notice.show_message(
                "warning",
                tr(
                    "A Dream proposal that Dream did not write was found and refused; nothing "
                    "of it was applied."
                ),
                [(tr("Details"), lambda: self.pages.setCurrentIndex(REVIEW))],
            )
        self.review.set_proposal(proposal, self._refusal)
        count = proposal.change_count if proposal is not None else 0
        self.pages.setTabVisible(REVIEW, proposal is not None or self._refusal is not None)
        self.pages.setTabText(
            REVIEW,
            tr("Dream review ({count})").format(count=count) if count else tr("Dream review"),
        )
        key = (proposal.id, proposal.last, count) if proposal is not None else None
        if proposal is not None and key != self._banner_for:  # once per proposal, not per refresh
            self._banner_for = key
            proposes = (
                tr("Dream proposes 1 change to your memory. Nothing changes until you review it.")
                if count == 1
                else tr(
                    "Dream proposes {count} changes to your memory. "
                    "Nothing changes until you review them."
                ).format(count=count)
            )
            self.notice.show_message(
                "warning", proposes, [(tr("Review"), lambda: self.pages.setCurrentIndex(REVIEW))]
            )
        if proposal is not None and self._show_review_when_pending:
            self.pages.setCurrentIndex(REVIEW)
        elif proposal is None and self._banner_for is not None:
            self._banner_for = None
            if self._refusal is None:
                self.notice.clear()
        self._show_review_when_pending = False
        if count != self._pending_changes:
            self._pending_changes = count
            self.proposalChanged.emit(count)

    def _dismiss_refusal(self) -> None:
        self._refusal = None
        if self.pages.currentIndex() == REVIEW:
            self.pages.setCurrentIndex(FILES)
        self.notice.clear()
        self.refresh()

    def _review_decided(self, outcome: object) -> None:
        self.pages.setCurrentIndex(TIMELINE if getattr(outcome, "commit", None) else FILES)
        message = shown(getattr(outcome, "message", ""))  # the core's phrase, translated
        worry = any(getattr(outcome, name, None) for name in ("refused", "not_applicable"))
        level: Tone = "warning" if worry or getattr(outcome, "git_error", None) else "success"
        if message:
            self.timeline.notice.show_message(level, message)
            self.files.notice.show_message(level, message)
        self.refresh()

    # -- watching -----------------------------------------------------------------------
    def _watch_paths(self, exists: bool) -> list[str]:
        """The workspace and those of its memory files that exist (a worker thread: it looks
        at the disk)."""
        if not exists:
            return []
        memory = self.workspace / "memory"
        files = (
            memory,
            memory / "history.jsonl",
            memory / ".dream_proposal.json",
            memory / "MEMORY.md",
            self.workspace / "SOUL.md",
            self.workspace / "USER.md",
        )
        return [str(self.workspace)] + [str(p) for p in files if p.exists()]

    def _watch(self, wanted: list[str]) -> None:
        current = set(self._watcher.files()) | set(self._watcher.directories())
        missing = [path for path in wanted if path not in current]
        if missing:
            self._watcher.addPaths(missing)

    def _turn_finished(self, _event: object) -> None:
        self.schedule_refresh()

    def _changed_on_disk(self, _path: str) -> None:
        self.schedule_refresh()

    def _config_changed(self) -> None:
        """Follow a change of workspace (unless unsaved edits would be lost)."""
        workspace = self.services.workspace
        if workspace == self.workspace:
            return
        if any(self.files.is_dirty(name) for name in MEMORY_FILES):
            self.notice.show_message(
                "warning",
                tr(
                    "The workspace is now {workspace}. Save or reload your edits here, "
                    "then choose Refresh to show the new workspace's memory."
                ).format(workspace=workspace),
                [(tr("Refresh"), self._config_changed_force)],
            )
            return
        self._config_changed_force()

    def _config_changed_force(self) -> None:
        self.workspace = self.services.workspace
        self.git = GitStore(self.workspace)
        self.files.workspace, self.files.git = self.workspace, self.git
        self.files.discard_all()
        self.timeline.git = self.git
        self.review.workspace, self.review.git = self.workspace, self.git
        self._repo_checked = False
        paths = self._watcher.files() + self._watcher.directories()
        if paths:
            self._watcher.removePaths(paths)
        self.refresh()

    def showEvent(self, event: QShowEvent) -> None:
        """Refresh when shown after something changed (or the first time)."""
        super().showEvent(event)
        if self._stale:
            self.refresh()
