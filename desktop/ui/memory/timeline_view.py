"""The Dream timeline page: Dream now, the commit list, the selected diff, Revert."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QSplitter, QVBoxLayout, QWidget

from desktop.core.memory.git_store import (
    CommitInfo,
    GitStore,
    GitStoreError,
    RevertConflict,
    RevertRefused,
)
from desktop.core.utils.tasks import TaskOwner
from desktop.ui.i18n import tr
from desktop.ui.memory.commit_detail import CommitDetail
from desktop.ui.memory.commit_list import CommitList
from desktop.ui.memory.dream_bar import DreamBar, DreamCancelled
from desktop.ui.memory.look import Tone
from desktop.ui.memory.notice_bar import NoticeBar
from desktop.ui.memory.snapshot import TIMELINE_LIMIT
from desktop.ui.phrase_text import shown
from desktop.ui.services import AppServices

if TYPE_CHECKING:
    from desktop.core.memory.dream_result import DreamResult

log = logging.getLogger(__name__)

_RESULT_TONE: dict[str, Tone] = {
    "changed": "success",
    "unchanged": "info",
    "nothing": "info",
    "skipped": "info",
    "budget": "warning",
    "paused": "warning",
    "failed": "error",
    "proposed": "info",
    "pending": "warning",
}


def _dream_result_type() -> type[DreamResult]:
    """:class:`DreamResult`, imported on first use (the Dream machinery is not on the start path)."""
    from desktop.core.memory.dream_result import DreamResult

    return DreamResult


class TimelineView(QWidget):
    """Commits of the memory repository with their diffs; Revert and Dream now.

    Args:
        services: Application services (the agent's provider runs Dream).
        git: The workspace's memory timeline.
        parent: Parent widget.

    Signals:
        changed(): the memory files or the timeline changed (a revert, a Dream run); the
            owner re-reads them.
    """

    changed = Signal()

    def __init__(self, services: AppServices, git: GitStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.git = git
        self._tasks = TaskOwner("timeline-view")
        self._select_next: str | None = None
        self._complete = False  # whether the whole history is listed (the last row is the root)
        self.dream_bar = DreamBar(services, self)
        self.notice = NoticeBar(self)
        self.commits = CommitList(self)
        self.detail = CommitDetail(self)
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self.commits)
        splitter.addWidget(self.detail)
        splitter.setChildrenCollapsible(False)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([470, 530])
        layout = QVBoxLayout(self)
        layout.addWidget(self.dream_bar)
        layout.addWidget(self.notice)
        layout.addWidget(splitter, 1)
        self.commits.commitSelected.connect(self._show)
        self.detail.revertRequested.connect(
            lambda info: self._tasks.try_spawn(self.revert(info.sha), name="memory-revert")
        )
        self.dream_bar.started.connect(self._dream_started)
        self.dream_bar.finished.connect(self._dream_finished)

    # -- data in ------------------------------------------------------------------------
    def set_commits(self, commits: list[CommitInfo], error: str | None = None) -> None:
        """Show the timeline (newest first); ``error`` explains why it could not be read."""
        self._complete = len(commits) < TIMELINE_LIMIT
        self.commits.set_commits(commits)
        if error:
            self.notice.show_message(
                "error",
                tr("The memory history could not be read: {error}").format(error=shown(error)),
            )
        target = self._select_next
        self._select_next = None
        if target and self.commits.select_sha(target):
            return
        if self.commits.selected() is None and commits:
            self.commits.select_sha(commits[0].sha)

    def set_pending(self, count: int) -> None:
        """How many history entries wait for Dream."""
        self.dream_bar.set_pending(count)

    # -- revert -------------------------------------------------------------------------
    async def revert(self, sha: str) -> str | None:
        """Undo commit ``sha``; return the revert commit id (``None``: refused or conflict).

        A conflict or refusal is explained in the notice bar and nothing changes.
        """
        self.detail.set_busy(True)
        try:
            target = await asyncio.to_thread(self.git.info, sha)
            new = await asyncio.to_thread(self.git.revert, target.sha, author="user")
        except RevertConflict as exc:
            self.notice.show_message("error", shown(exc))
            return None
        except RevertRefused as exc:
            self.notice.show_message("warning", shown(exc))
            return None
        except GitStoreError as exc:
            self.notice.show_message(
                "error", tr("Could not undo the change: {error}").format(error=shown(exc))
            )
            return None
        finally:
            self.detail.set_busy(self.dream_bar.running)
        self.notice.show_message(
            "success",
            tr(
                "Undid {commit} “{subject}” with the new entry {new}; "
                "changes made after it were kept."
            ).format(commit=target.short_sha, subject=target.subject, new=new[:7]),
            [
                (
                    tr("Undo the revert"),
                    lambda: self._tasks.try_spawn(self.revert(new), name="memory-revert"),
                )
            ],
        )
        self._select_next = new
        self.changed.emit()
        return new

    # -- internals ----------------------------------------------------------------------
    def _show(self, info: CommitInfo | None) -> None:
        listed = self.commits.commits()
        root = info is not None and self._complete and bool(listed) and listed[-1].sha == info.sha
        self.detail.set_commit(info, revertable=not root)
        self.detail.set_busy(self.dream_bar.running)
        if info is not None:
            self._tasks.try_spawn(self._load_diff(info.sha), name="memory-diff")

    async def _load_diff(self, sha: str) -> None:
        try:
            diffs = await asyncio.to_thread(self.git.show, sha)
        except GitStoreError as exc:
            self.detail.diff.setPlaceholderText(
                tr("The changes could not be read: {error}").format(error=shown(exc))
            )
            return
        self.detail.set_diffs(sha, diffs)

    def _dream_started(self) -> None:
        self.notice.clear()
        self.detail.set_busy(True)

    def _dream_finished(self, outcome: object) -> None:
        self.detail.set_busy(False)
        if isinstance(outcome, DreamCancelled):
            if outcome.commit:
                self._select_next = outcome.commit
                text = tr(
                    "Dream was cancelled. The edits it had already made were kept as "
                    "{commit}; revert that entry to drop them."
                ).format(commit=outcome.commit[:7])
            else:
                text = tr("Dream was cancelled before it changed anything.")
            self.notice.show_message(
                "info", " ".join((text, tr("The history entries will be read again next time.")))
            )
        elif isinstance(outcome, _dream_result_type()):
            # the core's message: translated when it is one of its fixed texts
            text = (
                shown(outcome.message)
                if outcome.message
                else tr("Dream finished: {status}.").format(status=outcome.status)
            )
            self.notice.show_message(_RESULT_TONE.get(outcome.status, "info"), text)
            if outcome.commit:
                self._select_next = outcome.commit
        else:
            self.notice.show_message(
                "error", tr("Dream could not run: {error}").format(error=outcome)
            )
        self.changed.emit()

    async def aclose(self) -> None:
        """Cancel running work (a Dream run, a revert, diff loading)."""
        await self.dream_bar.aclose()
        await self._tasks.aclose()
