"""A transient message with one action ("Chat deleted · Undo") that hides by itself."""

from __future__ import annotations

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from desktop.ui.i18n import tr


class Snackbar(QFrame):
    """Shows a message and an action button for a few seconds.

    Signals:
        actionTriggered(): the action button was clicked (before the bar hides).
        expired(): the bar hid without the action being used.
    """

    actionTriggered = Signal()
    expired = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("snackbar")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAccessibleName(tr("Notification"))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 4, 4, 4)
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.button = QPushButton(self)
        self.button.setFlat(True)
        self.button.clicked.connect(self._act)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.button)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._expire)
        self.hide()

    def show_message(self, text: str, action: str = "", *, timeout_ms: int = 6000) -> None:
        """Show ``text`` with an optional ``action`` button for ``timeout_ms``."""
        if self._timer.isActive():
            self._expire()
        self.label.setText(text)
        self.button.setText(action)
        self.button.setAccessibleName(action)
        self.button.setVisible(bool(action))
        self.show()
        self._timer.start(timeout_ms)

    def trigger(self) -> None:
        """Use the action as if its button was clicked (a keyboard shortcut's way in)."""
        if self.active:
            self._act()

    def _act(self) -> None:
        self._timer.stop()
        self.hide()
        self.actionTriggered.emit()

    def _expire(self) -> None:
        self._timer.stop()
        self.hide()
        self.expired.emit()

    @property
    def active(self) -> bool:
        """Whether the bar is showing."""
        return self._timer.isActive()
