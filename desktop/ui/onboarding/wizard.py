"""The first-run flow: provider → key and test → model → workspace. A page, not a dialog."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QHBoxLayout,
    QLabel,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from desktop.core.config.edit import ChangeError
from desktop.core.config.errors import ConfigError
from desktop.core.config.provider_registry import find_by_name
from desktop.ui.i18n import tr
from desktop.ui.onboarding.connect_step import ConnectStep
from desktop.ui.onboarding.model_step import ModelStep
from desktop.ui.onboarding.provider_step import ProviderStep
from desktop.ui.onboarding.workspace_step import WorkspaceStep
from desktop.ui.settings.page import commit_changes, save_error_text
from desktop.ui.settings.tasks import OwnsTasks
from desktop.ui.settings.widgets import InlineStatus, button, heading, hint

if TYPE_CHECKING:
    from desktop.ui.services import AppServices

log = logging.getLogger(__name__)
CONTENT_WIDTH = 680


class OnboardingWizard(OwnsTasks, QWidget):
    """First run: pick a provider (or a server URL), paste a key, test, pick a model, choose a
    workspace. Skippable at every step; everything is in Settings later.

    Show it as a page of the main window (or as its own window); it never runs a nested event
    loop. On Finish the config is saved (key in the keyring, never in config.json) and the
    workspace templates are synced.

    Args:
        services: The shared services.
        parent: Parent widget.

    Signals:
        finished(bool): ``True`` after Finish saved everything, ``False`` when skipped.
    """

    finished = Signal(bool)

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.setAccessibleName(tr("First-run setup"))
        outer = QHBoxLayout(self)
        outer.addStretch(1)
        column_widget = QWidget()
        column_widget.setMaximumWidth(CONTENT_WIDTH)
        column_widget.setMinimumWidth(min(CONTENT_WIDTH, 520))
        outer.addWidget(column_widget, 10)
        outer.addStretch(1)
        column = QVBoxLayout(column_widget)
        column.setContentsMargins(0, 28, 0, 20)
        column.setSpacing(10)
        column.addWidget(heading(tr("Welcome to nanobot Desktop")))
        self.progress = QLabel()
        self.progress.setAccessibleName(tr("Setup progress"))
        column.addWidget(self.progress)
        self.step_title = heading("", level=2)
        column.addWidget(self.step_title)
        self.provider_step = ProviderStep()
        self.connect_step = self.adopt(ConnectStep(services))
        self.model_step = self.adopt(ModelStep(services))
        self.workspace_step = WorkspaceStep()
        self.adopt(self.workspace_step.picker)
        self.steps: list[QWidget] = [
            self.provider_step,
            self.connect_step,
            self.model_step,
            self.workspace_step,
        ]
        self.stack = QStackedWidget()
        for step in self.steps:
            self.stack.addWidget(step)
        column.addWidget(self.stack, 1)
        self.status = InlineStatus(accessible=tr("Setup status"))
        column.addWidget(self.status)
        footer = QHBoxLayout()
        self.skip_button = button(tr("Skip for now"), tr("Skip the setup"))
        self.skip_button.clicked.connect(self.skip)
        self.back_button = button(tr("Back"), tr("Previous step"))
        self.back_button.clicked.connect(self.back)
        self.next_button = button(tr("Next"), tr("Next step"))
        self.next_button.setDefault(True)
        self.next_button.clicked.connect(lambda: self.spawn(self.next(), "onboarding-next"))
        footer.addWidget(self.skip_button)
        later = hint(tr("Everything can be changed later in Settings."))
        later.setWordWrap(False)
        footer.addWidget(later)
        footer.addStretch(1)
        footer.addWidget(self.back_button)
        footer.addWidget(self.next_button)
        column.addLayout(footer)
        self.provider_step.chosen.connect(lambda _name: self._update_buttons())
        self.provider_step.activated.connect(
            lambda _name: self.spawn(self.next(), "onboarding-next")
        )
        self._busy = False
        self.provider_step.select(self._initial_provider())
        self._show(0)

    # -- navigation --------------------------------------------------------------------------
    def _initial_provider(self) -> str:
        forced = self.services.config.agents.defaults.provider
        return forced if find_by_name(forced) else "openai"

    @property
    def index(self) -> int:
        """The current step (0–3)."""
        return self.stack.currentIndex()

    def _show(self, index: int) -> None:
        self.stack.setCurrentIndex(index)
        step = self.steps[index]
        title = tr(getattr(step, "title", ""))
        spec = find_by_name(self.provider_step.selected())
        if step is self.connect_step and spec is not None:
            title = tr("Connect to {provider}").format(provider=spec.display_name)
        self.step_title.setText(title)
        self.step_title.setAccessibleName(title)
        self.progress.setText(
            tr("Step {number} of {count}").format(number=index + 1, count=len(self.steps))
        )
        self.status.clear()
        self._update_buttons()

    def _update_buttons(self) -> None:
        last = self.index == len(self.steps) - 1
        self.back_button.setEnabled(self.index > 0 and not self._busy)
        self.next_button.setText(tr("Finish") if last else tr("Next"))
        self.next_button.setAccessibleName(tr("Finish the setup") if last else tr("Next step"))
        self.next_button.setEnabled(not self._busy and bool(self.provider_step.selected()))

    def back(self) -> None:
        """Go one step back (nothing typed is lost)."""
        if self.index > 0:
            self._show(self.index - 1)

    def skip(self) -> None:
        """Leave without saving anything (a key already stored stays in the keyring)."""
        self.cancel_tasks()
        self.finished.emit(False)

    async def next(self) -> bool:
        """Validate the current step and move on (Finish on the last one)."""
        if self._busy:
            return False
        self._busy = True
        self._update_buttons()
        try:
            return await self._advance()
        finally:
            self._busy = False
            self._update_buttons()

    async def _advance(self) -> bool:
        spec = find_by_name(self.provider_step.selected())
        if spec is None:
            self.status.error(tr("Choose a provider first."))
            return False
        if self.index == 0:
            self.connect_step.setup(spec)
            self._show(1)
            return True
        if self.index == 1:
            if not await self.connect_step.commit():
                return False
            self.model_step.setup(
                spec, self.connect_step.models, self.connect_step.api_base_value()
            )
            self._show(2)
            return True
        if self.index == 2:
            if not self.model_step.validate():
                return False
            self.workspace_step.setup(self.services.config.agents.defaults.workspace)
            self._show(3)
            return True
        return await self.finish()

    async def finish(self) -> bool:
        """Save provider, model and workspace; sync the workspace templates; emit finished."""
        from desktop.core.memory.templates import sync_workspace_templates

        spec = find_by_name(self.provider_step.selected())
        assert spec is not None
        await self.workspace_step.picker.describe()
        if not self.workspace_step.validate():
            return False
        workspace = self.workspace_step.picker.text()
        changes: dict[str, object] = {
            "agents.defaults.provider": spec.name,
            "agents.defaults.model": self.model_step.chosen(),
            "agents.defaults.workspace": workspace,
        }
        try:
            base = self.connect_step.api_base_value()
        except ChangeError as exc:  # edited since: go back to it
            self._show(1)
            self.connect_step.status.error(f"{exc.path}: {exc.reason}.")
            return False
        if base is not None and base != spec.default_api_base:
            changes[f"providers.{spec.name}.api_base"] = base
        try:
            await commit_changes(self.services, changes)
        except ChangeError as exc:
            self.status.error(tr("{reason}. Nothing was saved.").format(reason=exc.reason))
            return False
        except (ConfigError, OSError) as exc:
            self.status.error(save_error_text(exc))
            return False
        try:
            folder = Path(workspace).expanduser()  # noqa: ASYNC240  # expanduser reads $HOME, not the disk
            await asyncio.to_thread(sync_workspace_templates, folder)
        except OSError as exc:
            log.warning("workspace templates could not be synced: %s", exc)
            self.status.warn(
                tr("Saved, but the workspace could not be prepared: {error}").format(
                    error=exc.strerror or exc
                )
            )
            return False
        self.finished.emit(True)
        return True

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Return (or Enter) goes on, as a dialog's default button would: Next, or Finish on
        the last step. On a focused button it presses that button instead; fields and lists
        that use Return themselves (a provider's row: go on) pass it on here."""
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            focused = QApplication.focusWidget()
            if isinstance(focused, QAbstractButton) and focused is not self.next_button:
                if focused.isEnabled():
                    focused.click()
                event.accept()
                return
            if self.next_button.isEnabled():
                self.next_button.click()
            event.accept()
            return
        super().keyPressEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        """Cancel what the flow started (the steps' tasks hang from the wizard's owner)."""
        self.cancel_tasks()
        super().closeEvent(event)
