"""The Agent page: limits, temperature, timezone, workspace."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCompleter, QDoubleSpinBox, QFormLayout, QLineEdit, QSpinBox, QWidget

from desktop.core.config.edit import ChangeError
from desktop.core.config.timezone import is_valid_timezone, system_timezone, timezone_names
from desktop.ui.settings.page import SettingsPage
from desktop.ui.settings.widgets import heading, hint
from desktop.ui.settings.workspace_picker import WorkspacePicker

if TYPE_CHECKING:
    from desktop.ui.services import AppServices

_D = "agents.defaults"


def spin(
    minimum: int, maximum: int, *, step: int = 1, suffix: str = "", name: str = ""
) -> QSpinBox:
    """An integer spin box with an accessible name."""
    box = QSpinBox()
    box.setRange(minimum, maximum)
    box.setSingleStep(step)
    box.setGroupSeparatorShown(True)
    if suffix:
        box.setSuffix(suffix)
    box.setAccessibleName(name)
    box.setMinimumWidth(140)
    return box


class AgentPage(SettingsPage):
    """Context window, max tokens, temperature, tool iterations, timezone, workspace."""

    section = "agent"
    title = "Agent"
    labels: ClassVar[dict[str, str]] = {
        f"{_D}.context_window_tokens": "Context window",
        f"{_D}.max_tokens": "Max tokens per answer",
        f"{_D}.temperature": "Temperature",
        f"{_D}.max_tool_iterations": "Max tool iterations",
        f"{_D}.timezone": "Timezone",
        f"{_D}.workspace": "Workspace",
    }

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(
            services, parent, description="How the agent thinks and where it keeps its files."
        )
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.DontWrapRows)
        self.context_window = spin(
            1024, 10_000_000, step=1024, suffix=" tokens", name="Context window"
        )
        self.max_tokens = spin(
            1, 1_000_000, step=256, suffix=" tokens", name="Max tokens per answer"
        )
        self.temperature = QDoubleSpinBox()
        self.temperature.setRange(0.0, 2.0)
        self.temperature.setSingleStep(0.05)
        self.temperature.setDecimals(2)
        self.temperature.setAccessibleName("Temperature")
        self.temperature.setMinimumWidth(140)
        self.iterations = spin(1, 100_000, name="Max tool iterations")
        self.timezone = QLineEdit()
        self.timezone.setAccessibleName("Timezone")
        self.timezone.setMinimumWidth(320)
        self.timezone.setPlaceholderText(f"system timezone ({system_timezone()})")
        completer = QCompleter(timezone_names(), self.timezone)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.timezone.setCompleter(completer)
        form.addRow("Context window", self.context_window)
        form.addRow("Max tokens per answer", self.max_tokens)
        form.addRow("Temperature", self.temperature)
        form.addRow("Max tool iterations", self.iterations)
        form.addRow("Timezone", self.timezone)
        self.body_layout.addLayout(form)
        self.body_layout.addWidget(
            hint(
                "The context window is how much of the conversation the model sees; older turns are "
                "archived into memory when it fills. Timezone: an IANA name such as Europe/Berlin; "
                "empty means the system's."
            )
        )
        self.body_layout.addWidget(heading("Workspace", level=2))
        self.workspace = self.adopt(WorkspacePicker())
        self.workspace.edited.connect(self._edited)
        self.body_layout.addWidget(self.workspace)
        self.body_layout.addWidget(
            hint(
                "Sessions, memory, skills and reminders live in the workspace. Open an existing nanobot "
                "workspace to keep going where you left off; missing starter files are added, yours are "
                "never overwritten. A new workspace takes effect after a restart."
            )
        )
        self.body_layout.addStretch(1)
        self.watch(
            self.context_window, self.max_tokens, self.temperature, self.iterations, self.timezone
        )
        self._saved_workspace = ""

    def load(self) -> None:
        """Show the saved values."""
        d = self.services.config.agents.defaults
        self.context_window.setValue(d.context_window_tokens)
        self.max_tokens.setValue(d.max_tokens)
        self.temperature.setValue(d.temperature)
        self.iterations.setValue(d.max_tool_iterations)
        self.timezone.setText(d.timezone or "")
        self.workspace.set_text(d.workspace)
        self._saved_workspace = d.workspace

    def collect(self) -> dict[str, Any]:
        """Validated values."""
        timezone = self.timezone.text().strip()
        if timezone and not is_valid_timezone(timezone):
            raise ChangeError(
                f"{_D}.timezone", f"{timezone!r} is not a known IANA timezone (e.g. Europe/Berlin)"
            )
        workspace = self.workspace.text()
        if not workspace:
            raise ChangeError(f"{_D}.workspace", "choose a folder")
        if self.workspace.kind == "invalid":
            raise ChangeError(f"{_D}.workspace", f"{workspace} is a file, not a folder")
        if self.max_tokens.value() >= self.context_window.value():
            raise ChangeError(f"{_D}.max_tokens", "must be smaller than the context window")
        return {
            f"{_D}.context_window_tokens": self.context_window.value(),
            f"{_D}.max_tokens": self.max_tokens.value(),
            f"{_D}.temperature": round(self.temperature.value(), 2),
            f"{_D}.max_tool_iterations": self.iterations.value(),
            f"{_D}.timezone": timezone or None,
            f"{_D}.workspace": workspace,
        }

    async def save(self) -> bool:
        """Save; a changed workspace gets its starter files (in a thread)."""
        before = self._saved_workspace
        ok = await super().save()
        if ok and self.services.config.agents.defaults.workspace != before:
            await self._sync_templates()
        return ok

    async def _sync_templates(self) -> None:
        from desktop.core.memory.templates import sync_workspace_templates

        path = Path(self.services.config.agents.defaults.workspace).expanduser()
        try:
            created = await asyncio.to_thread(sync_workspace_templates, path)
        except OSError as exc:
            self.status.warn(
                f"Saved, but the workspace could not be prepared: {exc.strerror or exc}"
            )
            return
        added = f" Added {len(created)} starter file(s)." if created else ""
        self.status.ok(f"Saved.{added} The new workspace is used after a restart.")
        await self.workspace.describe()
