""" "Dream now": run one Dream with a busy indicator, elapsed time and Cancel."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from desktop.core.memory.dream_cancel import commit_cancelled
from desktop.core.memory.git_store import GitStore, GitStoreError
from desktop.core.utils.tasks import TaskOwner
from desktop.ui.i18n import QT_TR_NOOP, tr
from desktop.ui.services import AppServices

log = logging.getLogger(__name__)

NOT_READY = QT_TR_NOOP("Dream needs the model; it becomes available once the agent has connected.")


@dataclass(frozen=True)
class DreamCancelled:
    """A Dream run the person cancelled.

    Attributes:
        commit: The ``dream: …, cancelled`` commit holding the edits it had already made
            (``None`` when it had made none).
    """

    commit: str | None = None


class DreamBar(QWidget):
    """The "Dream now" button, its progress and Cancel.

    Args:
        services: The application services (``agent`` supplies the provider).
        parent: Parent widget.

    Signals:
        started(): a Dream run began.
        finished(object): the run ended: a :class:`~desktop.core.memory.dream.DreamResult`,
            a :class:`DreamCancelled`, or the ``Exception`` when it failed unexpectedly.
    """

    started = Signal()
    finished = Signal(object)

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self._tasks = TaskOwner("dream-bar")
        self._task: asyncio.Task[Any] | None = None
        self._began = 0.0
        self._pending = 0
        self.dream_button = QPushButton(tr("Dream now"), self)
        self.dream_button.setAccessibleName(tr("Dream now"))
        self.cancel_button = QPushButton(tr("Cancel"), self)
        self.cancel_button.setAccessibleName(tr("Cancel the Dream run"))
        self.cancel_button.hide()
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 0)  # busy indicator
        self.progress.setTextVisible(False)
        self.progress.setMaximumWidth(110)
        self.progress.setMaximumHeight(14)
        self.progress.setAccessibleName(tr("Dream in progress"))
        self.progress.hide()
        self.status = QLabel(self)
        self.status.setAccessibleName(tr("Dream status"))
        self.status.setWordWrap(True)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.dream_button)
        layout.addWidget(self.cancel_button)
        layout.addWidget(self.progress)
        layout.addWidget(self.status, 1)
        self._ticker = QTimer(self)
        self._ticker.setInterval(1000)
        self._ticker.timeout.connect(self._tick)
        self.dream_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        services.agentReady.connect(self._update)
        self._update()

    @property
    def running(self) -> bool:
        """Whether a Dream run is in progress."""
        return self._task is not None and not self._task.done()

    def set_pending(self, count: int) -> None:
        """How many history entries wait for Dream (shown when idle)."""
        self._pending = count
        self._update()

    def start(self) -> asyncio.Task[Any] | None:
        """Start a Dream run (no-op while one runs or before the agent exists)."""
        runtime = self.services.runtime
        if runtime is None or self.running:
            return None
        dream = runtime.memory.dream()
        self._began = time.monotonic()
        task = self._tasks.try_spawn(self._run(dream), name="dream-now")
        if task is None:  # the tab is closing
            return None
        self._task = task
        self._ticker.start()
        self._update()
        self.started.emit()
        return self._task

    def cancel(self) -> None:
        """Stop the running Dream (edits it already made stay in the files)."""
        if self._task is not None:
            self._task.cancel()

    async def aclose(self) -> None:
        """Cancel a running Dream and wait for it."""
        await self._tasks.aclose()

    async def _run(self, dream: Any) -> None:
        git: GitStore = dream.git
        outcome: object
        try:
            # Human edits made so far get their own commits; after a cancel, whatever differs
            # from HEAD is then the Dream's and is committed as such (see below).
            await asyncio.to_thread(git.record_outside_edits)
            outcome = await dream.run()
        except asyncio.CancelledError:
            try:
                commit = await asyncio.to_thread(commit_cancelled, git)
            except GitStoreError:
                log.exception("could not commit the edits of a cancelled Dream")
                commit = None
            self._finish(DreamCancelled(commit))
            raise
        except Exception as exc:
            log.exception("Dream now failed")
            outcome = exc
        self._finish(outcome)

    def _finish(self, outcome: object) -> None:
        self._task = None
        self._ticker.stop()
        self._update()
        self.finished.emit(outcome)

    def _tick(self) -> None:
        self.status.setText(
            tr(
                "Dreaming… {seconds} s (reading the new history, then editing the memory files)"
            ).format(seconds=int(time.monotonic() - self._began))
        )

    def _update(self) -> None:
        running = self.running
        ready = self.services.runtime is not None
        self.dream_button.setEnabled(ready and not running)
        self.dream_button.setToolTip(
            tr("Distil the new history entries into MEMORY.md, USER.md and SOUL.md now")
            if ready
            else tr(NOT_READY)
        )
        self.cancel_button.setVisible(running)
        self.progress.setVisible(running)
        if running:
            self._tick()
            return
        if self._pending == 1:
            text = tr("1 history entry waiting for Dream.")
        elif self._pending:
            text = tr("{count} history entries waiting for Dream.").format(count=self._pending)
        else:
            text = tr("Dream is up to date with the history.")
        self.status.setText(text if ready else " ".join((text, tr(NOT_READY))))
