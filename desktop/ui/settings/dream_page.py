"""Dream (memory distillation) and heartbeat settings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QCheckBox, QWidget

from desktop.core.config.edit import ChangeError
from desktop.ui.i18n import QT_TR_NOOP, tr
from desktop.ui.settings.page import SettingsPage
from desktop.ui.settings.prefs_access import prefs_store, update_prefs
from desktop.ui.settings.schema_form import SchemaForm
from desktop.ui.settings.widgets import heading, hint

if TYPE_CHECKING:
    from desktop.ui.services import AppServices


class DreamPage(SettingsPage):
    """Dream interval, batch size, iterations, token budget, review mode; heartbeat on/off and
    interval. Review mode is a desktop preference (``desktop.json``), the rest is config.json."""

    section = "dream"
    title = QT_TR_NOOP("Dream & heartbeat")

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(
            services,
            parent,
            description=tr(
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
        self.review = QCheckBox(tr("Review Dream changes before they land"))
        self.review.setAccessibleName(tr("Review Dream changes before they land"))
        self.body_layout.addWidget(self.review)
        self.body_layout.addWidget(
            hint(
                tr(
                    "Dream then proposes its changes instead of making them: the Memory tab shows "
                    "them, and you accept all, some or none (or edit them). Nothing is written "
                    "until you decide; while a proposal waits, Dream does not run again."
                )
            )
        )
        self.body_layout.addWidget(heading(tr("Heartbeat"), level=2))
        self.body_layout.addWidget(
            hint(
                tr(
                    "The heartbeat reads HEARTBEAT.md in the workspace at a fixed interval and "
                    "acts on the tasks listed there."
                )
            )
        )
        self.beat_form = beat_form = SchemaForm()
        self.beat_enabled = beat_form.check(lambda c: c.gateway.heartbeat.enabled)
        self.beat_interval = beat_form.number(lambda c: c.gateway.heartbeat.interval_s)
        self.body_layout.addLayout(beat_form)
        self.body_layout.addStretch(1)
        self.dream_enabled.toggled.connect(self._enable_fields)
        self.beat_enabled.toggled.connect(self._enable_fields)
        self.watch(*form.widgets, self.review, *beat_form.widgets)

    def _enable_fields(self, _checked: bool = False) -> None:
        for box in (self.interval, self.batch, self.iterations, self.budget):
            box.setEnabled(self.dream_enabled.isChecked())
        self.beat_interval.setEnabled(self.beat_enabled.isChecked())

    def load(self) -> None:
        """Show the saved values."""
        self.dream_form.load(self.services.config)
        self.beat_form.load(self.services.config)
        self._enable_fields()
        self.spawn(self._load_review(), "load-dream-review")

    async def _load_review(self) -> None:
        store = await prefs_store(self.services)
        was_dirty = self.dirty
        self._loading = True
        try:
            self.review.setChecked(store.prefs.review_dream)
        finally:
            self._loading = False
        self._set_dirty(was_dirty)

    def collect(self) -> dict[str, Any]:
        """Values to save (the spin boxes keep them in range)."""
        return {**self.dream_form.collect(), **self.beat_form.collect()}

    async def save(self) -> bool:
        """Save config.json, then review mode (a desktop preference; the next Dream follows)."""
        review = self.review.isChecked()
        if not await super().save():
            return False
        try:
            await update_prefs(self.services, review_dream=review)
        except (ChangeError, OSError) as exc:
            self.status.warn(
                tr("Saved, but the review setting was not saved: {error}").format(error=exc)
            )
            return False
        await self._load_review()
        return True
