"""Dream (memory distillation) and heartbeat settings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from PySide6.QtWidgets import QCheckBox, QFormLayout, QWidget

from desktop.core.config.edit import ChangeError
from desktop.ui.settings.agent_page import spin
from desktop.ui.settings.page import SettingsPage
from desktop.ui.settings.prefs_access import prefs_store, update_prefs
from desktop.ui.settings.widgets import heading, hint

if TYPE_CHECKING:
    from desktop.ui.services import AppServices

_DREAM = "agents.defaults.dream"
_BEAT = "gateway.heartbeat"


class DreamPage(SettingsPage):
    """Dream interval, batch size, iterations, token budget, review mode; heartbeat on/off and
    interval. Review mode is a desktop preference (``desktop.json``), the rest is config.json."""

    section = "dream"
    title = "Dream & heartbeat"
    labels: ClassVar[dict[str, str]] = {
        f"{_DREAM}.interval_h": "Dream interval",
        f"{_DREAM}.max_batch_size": "Batch size",
        f"{_DREAM}.max_iterations": "Iterations",
        f"{_DREAM}.token_budget": "Token budget",
        f"{_BEAT}.interval_s": "Heartbeat interval",
    }

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(
            services,
            parent,
            description=(
                "Dream periodically distils the conversation history into long-term memory; every "
                "run is a commit you can inspect and revert in the Memory tab."
            ),
        )
        self.dream_enabled = QCheckBox("Run Dream periodically")
        self.dream_enabled.setAccessibleName("Dream enabled")
        self.body_layout.addWidget(self.dream_enabled)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        self.interval = spin(1, 24 * 30, suffix=" h", name="Dream interval in hours")
        self.batch = spin(1, 1000, suffix=" entries", name="Dream batch size")
        self.iterations = spin(1, 200, name="Dream iterations")
        self.budget = spin(1000, 10_000_000, step=1000, suffix=" tokens", name="Dream token budget")
        form.addRow("Every", self.interval)
        form.addRow("History entries per run", self.batch)
        form.addRow("Edit iterations per run", self.iterations)
        form.addRow("Token budget per run", self.budget)
        self.body_layout.addLayout(form)
        self.review = QCheckBox("Review Dream changes before they land")
        self.review.setAccessibleName("Review Dream changes before they land")
        self.body_layout.addWidget(self.review)
        self.body_layout.addWidget(
            hint(
                "Dream then proposes its changes instead of making them: the Memory tab shows "
                "them, and you accept all, some or none (or edit them). Nothing is written until "
                "you decide; while a proposal waits, Dream does not run again."
            )
        )
        self.body_layout.addWidget(heading("Heartbeat", level=2))
        self.body_layout.addWidget(
            hint(
                "The heartbeat reads HEARTBEAT.md in the workspace at a fixed interval and acts on the "
                "tasks listed there."
            )
        )
        self.beat_enabled = QCheckBox("Check HEARTBEAT.md periodically")
        self.beat_enabled.setAccessibleName("Heartbeat enabled")
        self.body_layout.addWidget(self.beat_enabled)
        beat_form = QFormLayout()
        beat_form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        self.beat_interval = spin(
            60, 7 * 86_400, step=60, suffix=" s", name="Heartbeat interval in seconds"
        )
        beat_form.addRow("Every", self.beat_interval)
        self.body_layout.addLayout(beat_form)
        self.body_layout.addStretch(1)
        self.dream_enabled.toggled.connect(self._enable_fields)
        self.beat_enabled.toggled.connect(self._enable_fields)
        self.watch(
            self.dream_enabled,
            self.interval,
            self.batch,
            self.iterations,
            self.budget,
            self.review,
            self.beat_enabled,
            self.beat_interval,
        )

    def _enable_fields(self, _checked: bool = False) -> None:
        for box in (self.interval, self.batch, self.iterations, self.budget):
            box.setEnabled(self.dream_enabled.isChecked())
        self.beat_interval.setEnabled(self.beat_enabled.isChecked())

    def load(self) -> None:
        """Show the saved values."""
        dream = self.services.config.agents.defaults.dream
        beat = self.services.config.gateway.heartbeat
        self.dream_enabled.setChecked(dream.enabled)
        self.interval.setValue(dream.interval_h)
        self.batch.setValue(dream.max_batch_size)
        self.iterations.setValue(dream.max_iterations)
        self.budget.setValue(dream.token_budget)
        self.beat_enabled.setChecked(beat.enabled)
        self.beat_interval.setValue(beat.interval_s)
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

    async def save(self) -> bool:
        """Save config.json, then review mode (a desktop preference; the next Dream follows)."""
        review = self.review.isChecked()
        if not await super().save():
            return False
        try:
            await update_prefs(self.services, review_dream=review)
        except (ChangeError, OSError) as exc:
            self.status.warn(f"Saved, but the review setting was not saved: {exc}")
            return False
        await self._load_review()
        return True

    def collect(self) -> dict[str, Any]:
        """Values to save (the spin boxes keep them in range)."""
        return {
            f"{_DREAM}.enabled": self.dream_enabled.isChecked(),
            f"{_DREAM}.interval_h": self.interval.value(),
            f"{_DREAM}.max_batch_size": self.batch.value(),
            f"{_DREAM}.max_iterations": self.iterations.value(),
            f"{_DREAM}.token_budget": self.budget.value(),
            f"{_BEAT}.enabled": self.beat_enabled.isChecked(),
            f"{_BEAT}.interval_s": self.beat_interval.value(),
        }
