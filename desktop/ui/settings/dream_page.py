"""Dream (memory distillation) and heartbeat settings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QWidget

from desktop.ui.settings.page import SettingsPage
from desktop.ui.settings.schema_form import SchemaForm
from desktop.ui.settings.widgets import heading, hint

if TYPE_CHECKING:
    from desktop.ui.services import AppServices


class DreamPage(SettingsPage):
    """Dream interval, batch size, iterations, token budget; heartbeat on/off and interval."""

    section = "dream"
    title = "Dream & heartbeat"

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(
            services,
            parent,
            description=(
                "Dream periodically distils the conversation history into long-term memory; every "
                "run is a commit you can inspect and revert in the Memory tab."
            ),
        )
        self.dream_form = form = SchemaForm()
        self.dream_enabled = form.check(lambda c: c.agents.defaults.dream.enabled)
        self.interval = form.number(lambda c: c.agents.defaults.dream.interval_h)
        self.batch = form.number(lambda c: c.agents.defaults.dream.max_batch_size)
        self.iterations = form.number(lambda c: c.agents.defaults.dream.max_iterations)
        self.budget = form.number(lambda c: c.agents.defaults.dream.token_budget)
        self.body_layout.addLayout(form)
        self.body_layout.addWidget(heading("Heartbeat", level=2))
        self.body_layout.addWidget(
            hint(
                "The heartbeat reads HEARTBEAT.md in the workspace at a fixed interval and acts on the "
                "tasks listed there."
            )
        )
        self.beat_form = beat_form = SchemaForm()
        self.beat_enabled = beat_form.check(lambda c: c.gateway.heartbeat.enabled)
        self.beat_interval = beat_form.number(lambda c: c.gateway.heartbeat.interval_s)
        self.body_layout.addLayout(beat_form)
        self.body_layout.addStretch(1)
        self.dream_enabled.toggled.connect(self._enable_fields)
        self.beat_enabled.toggled.connect(self._enable_fields)
        self.watch(*form.widgets, *beat_form.widgets)

    def _enable_fields(self, _checked: bool = False) -> None:
        for box in (self.interval, self.batch, self.iterations, self.budget):
            box.setEnabled(self.dream_enabled.isChecked())
        self.beat_interval.setEnabled(self.beat_enabled.isChecked())

    def load(self) -> None:
        """Show the saved values."""
        self.dream_form.load(self.services.config)
        self.beat_form.load(self.services.config)
        self._enable_fields()

    def collect(self) -> dict[str, Any]:
        """Values to save (the spin boxes keep them in range)."""
        return {**self.dream_form.collect(), **self.beat_form.collect()}
