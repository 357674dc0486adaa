"""Per-turn token use and cost, and how full the context window is.

The meter opens the chat's context view (click, or Enter / Space on it):
:attr:`UsageBar.contextRequested`.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QWidget

from desktop.ui.chat.items import usage_text
from desktop.ui.i18n import localized, tr


class UsageBar(QWidget):
    """The last turn's tokens and cost, and a context-fill meter.

    Signals:
        contextRequested(): the meter was clicked or activated from the keyboard.
    """

    contextRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.turn = QLabel(self)
        self.turn.setAccessibleName(tr("Last turn usage"))
        self.meter = QProgressBar(self)
        self.meter.setAccessibleName(tr("Context window fill"))
        self.meter.setAccessibleDescription(tr("Enter opens the chat's context per round"))
        self.meter.setRange(0, 100)
        self.meter.setFixedWidth(120)
        self.meter.setMaximumHeight(16)
        self.meter.setTextVisible(True)
        self.meter.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.meter.setCursor(Qt.CursorShape.PointingHandCursor)
        self.meter.installEventFilter(self)
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
        self.meter.setFormat(tr("context –"))
        self.meter.setToolTip(
            tr(
                "How much of the model's context window the last request used "
                "(click for each round)"
            )
        )

    def set_turn(self, prompt: int, completion: int, cost: float | None) -> None:
        """Show a turn's totals."""
        self.turn.setText(localized(usage_text(prompt, completion, cost)))
        self.show()

    def set_context(self, tokens: int, window: int) -> None:
        """Show the context fill of the last request."""
        if window <= 0:
            self.clear()
            return
        self.show()
        percent = max(0, min(100, round(100 * tokens / window)))
        self.meter.setValue(percent)
        # QProgressBar's own %p, %v fields are not used: the text is ours, so "%" is written.
        self.meter.setFormat(tr("context {percent}%").format(percent=percent))
        self.meter.setToolTip(
            tr("Last request: {tokens} of {window} tokens — click for each round").format(
                tokens=f"{tokens:,}", window=f"{window:,}"
            )
        )

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """A click on the meter, or Enter / Space while it has focus, asks for the context
        view."""
        if watched is self.meter:
            if (
                isinstance(event, QMouseEvent)
                and event.type() == QEvent.Type.MouseButtonRelease
                and event.button() == Qt.MouseButton.LeftButton
            ):
                self.contextRequested.emit()
                return True
            if (
                isinstance(event, QKeyEvent)
                and event.type() == QEvent.Type.KeyPress
                and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space)
            ):
                self.contextRequested.emit()
                return True
        return super().eventFilter(watched, event)
