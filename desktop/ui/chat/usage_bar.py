"""Per-turn token use and cost, and how full the context window is."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QWidget

from desktop.ui.chat.items import usage_text


class UsageBar(QWidget):
    """The last turn's tokens and cost, and a context-fill meter."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.turn = QLabel(self)
        self.turn.setAccessibleName("Last turn usage")
        self.meter = QProgressBar(self)
        self.meter.setAccessibleName("Context window fill")
        self.meter.setRange(0, 100)
        self.meter.setFixedWidth(120)
        self.meter.setMaximumHeight(16)
        self.meter.setTextVisible(True)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.turn)
        layout.addWidget(self.meter)
        self.clear()

    def clear(self) -> None:
        """Nothing known yet (the bar hides until a turn reports its usage)."""
        self.hide()
        self.turn.setText("")
        self.meter.setValue(0)
        self.meter.setFormat("context –")
        self.meter.setToolTip("How much of the model's context window the last request used")

    def set_turn(self, prompt: int, completion: int, cost: float | None) -> None:
        """Show a turn's totals."""
        self.turn.setText(usage_text(prompt, completion, cost))
        self.show()

    def set_context(self, tokens: int, window: int) -> None:
        """Show the context fill of the last request."""
        if window <= 0:
            self.clear()
            return
        self.show()
        percent = max(0, min(100, round(100 * tokens / window)))
        self.meter.setValue(percent)
        self.meter.setFormat(f"context {percent}%")
        self.meter.setToolTip(f"Last request: {tokens:,} of {window:,} tokens")
