"""The Agent page: limits, temperature, timezone, workspace."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCompleter, QLineEdit, QWidget

from desktop.core.config.edit import ChangeError
from desktop.core.config.timezone import is_valid_timezone, system_timezone, timezone_names
from desktop.ui.i18n import QT_TR_NOOP, tr
from desktop.ui.settings.page import SettingsPage
from desktop.ui.settings.schema_form import (
    SchemaForm,
    config_path,
    description_of,
    field_info,
    title_of,
)
from desktop.ui.settings.widgets import heading, hint
from desktop.ui.settings.workspace_picker import WorkspacePicker

if TYPE_CHECKING:
    from desktop.ui.services import AppServices

_TIMEZONE = config_path(lambda c: c.agents.defaults.timezone)
_WORKSPACE = config_path(lambda c: c.agents.defaults.workspace)


class AgentPage(SettingsPage):
    """Context window, max tokens, temperature, tool iterations, timezone, workspace."""

    section = "agent"
    title = QT_TR_NOOP("Agent")

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(
            services, parent, description=tr("How the agent thinks and where it keeps its files.")
        )
        self.form = form = SchemaForm()
        self.context_window = form.number(lambda c: c.agents.defaults.context_window_tokens)
        self.max_tokens = form.number(lambda c: c.agents.defaults.max_tokens)
        self.temperature = form.number(lambda c: c.agents.defaults.temperature)
        self.iterations = form.number(lambda c: c.agents.defaults.max_tool_iterations)
        self.timezone = QLineEdit()
        self.timezone.setAccessibleName(title_of(_TIMEZONE))
        self.timezone.setToolTip(description_of(field_info(_TIMEZONE)))
        self.timezone.setMinimumWidth(320)
        self.timezone.setPlaceholderText(
            tr("system timezone ({zone})").format(zone=system_timezone())
        )
        completer = QCompleter(timezone_names(), self.timezone)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.timezone.setCompleter(completer)
        form.addRow(title_of(_TIMEZONE), self.timezone)
        self.body_layout.addLayout(form)
        self.body_layout.addWidget(
            hint(
                tr(
                    "The context window is how much of the conversation the model sees; older "
                    "turns are archived into memory when it fills. Timezone: an IANA name such "
                    "as Europe/Berlin; empty means the system's."
                )
            )
        )
        self.body_layout.addWidget(heading(title_of(_WORKSPACE), level=2))
        self.workspace = self.adopt(WorkspacePicker())
        self.workspace.edited.connect(self._edited)
        self.body_layout.addWidget(self.workspace)
        self.body_layout.addWidget(
            hint(
                tr(
                    "Sessions, memory, skills and reminders live in the workspace. Open an "
                    "existing nanobot workspace to keep going where you left off; missing starter "
                    "files are added, yours are never overwritten. A new workspace takes effect "
                    "after a restart."
                )
            )
        )
        self.body_layout.addStretch(1)
        self.watch(*form.widgets, self.timezone)
        self._saved_workspace = ""

    def load(self) -> None:
        """Show the saved values."""
        d = self.services.config.agents.defaults
        self.form.load(self.services.config)
        self.timezone.setText(d.timezone or "")
        self.workspace.set_text(d.workspace)
        self._saved_workspace = d.workspace

    def collect(self) -> dict[str, Any]:
        """Validated values."""
        timezone = self.timezone.text().strip()
        if timezone and not is_valid_timezone(timezone):
            raise ChangeError(
                _TIMEZONE,
                tr("{zone} is not a known IANA timezone (e.g. Europe/Berlin)").format(
                    zone=repr(timezone)
                ),
            )
        workspace = self.workspace.text()
        if not workspace:
            raise ChangeError(_WORKSPACE, tr("choose a folder"))
        if self.workspace.kind == "invalid":
            raise ChangeError(
                _WORKSPACE, tr("{path} is a file, not a folder").format(path=workspace)
            )
        changes = self.form.collect()
        max_tokens = config_path(lambda c: c.agents.defaults.max_tokens)
        window = config_path(lambda c: c.agents.defaults.context_window_tokens)
        if changes[max_tokens] >= changes[window]:
            raise ChangeError(max_tokens, tr("must be smaller than the context window"))
        return {**changes, _TIMEZONE: timezone or None, _WORKSPACE: workspace}

    async def save(self) -> bool:
        """Save; a changed workspace gets its starter files (in a thread)."""
        before = self._saved_workspace
        ok = await super().save()
        if ok and self.services.config.agents.defaults.workspace != before:
            await self._sync_templates()
        return ok

    async def _sync_templates(self) -> None:
        from desktop.core.memory.templates import sync_workspace_templates

        path = Path(self.services.config.agents.defaults.workspace).expanduser()  # noqa: ASYNC240  # expanduser reads $HOME, not the disk
        try:
            created = await asyncio.to_thread(sync_workspace_templates, path)
        except OSError as exc:
            self.status.warn(
                tr("Saved, but the workspace could not be prepared: {error}").format(
                    error=exc.strerror or exc
                )
            )
            return
        if created:
            self.status.ok(
                tr(
                    "Saved. Added {count} starter file(s). The new workspace is used after a "
                    "restart."
                ).format(count=len(created))
            )
        else:
            self.status.ok(tr("Saved. The new workspace is used after a restart."))
        await self.workspace.describe()
