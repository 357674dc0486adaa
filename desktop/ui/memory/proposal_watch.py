"""Notices a pending Dream proposal even while the Memory tab is closed (for the tray).

A Dream run by the scheduler, ``/dream`` in any chat, the gateway or the CLI may store a
proposal at any time; the memory folder is watched and the proposal re-read (in a worker
thread, debounced) whenever it changes.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

from desktop.core.memory.proposal import ProposalStore
from desktop.core.utils.tasks import TaskOwner
from desktop.ui.services import AppServices

DEBOUNCE_MS = 300


def pending_changes(workspace: Path) -> int:
    """How many changes the workspace's pending proposal holds (0: none, or one that Dream did
    not write or that cannot be read: those are refused, never offered; this quick look
    leaves them where they are, the Memory tab sets them aside and says why)."""
    store = ProposalStore(workspace)
    if not store.exists():
        return 0
    proposal = store.load(set_aside=False)
    return proposal.change_count if proposal is not None else 0


class ProposalWatch(QObject):
    """Watches ``<workspace>/memory`` for a Dream proposal.

    Args:
        services: The application services (the workspace; followed when it changes).
        parent: Owner.

    Signals:
        changed(int): the pending proposal's number of changes changed (0: none pending).
    """

    changed = Signal(int)

    def __init__(self, services: AppServices, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.count = 0
        self._tasks = TaskOwner("proposal-watch")
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self.check)
        self._watcher = QFileSystemWatcher(self)
        self._watcher.directoryChanged.connect(lambda _p: self._debounce.start())
        services.configChanged.connect(self.start)

    def start(self) -> None:
        """Watch the current workspace's memory folder and look once now."""
        folders = self._watcher.directories()
        if folders:
            self._watcher.removePaths(folders)
        self.check()

    def check(self) -> None:
        """Re-read the proposal (and see whether the memory folder is there) in a worker thread."""
        self._tasks.try_spawn(self._check(), name="proposal-check")

    async def _check(self) -> None:
        workspace = self.services.workspace
        memory = workspace / "memory"

        def look() -> tuple[int, bool]:
            return pending_changes(workspace), memory.is_dir()

        count, exists = await asyncio.to_thread(look)
        if exists and str(memory) not in self._watcher.directories():
            self._watcher.addPath(str(memory))
        if count != self.count:
            self.count = count
            self.changed.emit(count)

    async def aclose(self) -> None:
        """Stop watching."""
        self._debounce.stop()
        await self._tasks.aclose()
