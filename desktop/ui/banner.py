"""A dismissible message strip floating over the top of the page (errors, reminders without a
tray); :class:`~desktop.ui.main_window.MainWindow` places it."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QFrame,
    QGraphicsDropShadowEffect,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QWidget,
)

from desktop.ui.i18n import tr

Action = tuple[str, Callable[[], object]]  # what the callback returns is ignored


class Banner(QFrame):
    """One message with optional action buttons and a close button.

    Args:
        text: The message, translated (plain text; long text wraps).
        severity: ``info`` or ``error`` (sets the border colour through the stylesheet).
        actions: ``(label, callback)`` pairs, labels translated; a button is added for each.
        closable: Show a close button.
        parent: Owner.

    Signals:
        dismissed(): the person closed the banner (it is hidden and scheduled for deletion).
    """

    dismissed = Signal()

    def __init__(
        self,
        text: str,
        *,
        severity: str = "info",
        actions: list[Action] | None = None,
        closable: bool = True,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("banner")
        self.setProperty("severity", severity)
        self.setAccessibleName(tr("Error message") if severity == "error" else tr("Notice"))
        self.setAutoFillBackground(True)  # it floats over the page: opaque, with a shadow
        shadow = QGraphicsDropShadowEffect(self)
        shadow.setBlurRadius(16)
        shadow.setOffset(0, 2)
        shadow.setColor(QColor(0, 0, 0, 90))
        self.setGraphicsEffect(shadow)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 6, 6, 6)
        layout.setSpacing(8)
        self.label = QLabel(text, self)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)  # wrapped text gets the height it needs
        self.label.setSizePolicy(policy)
        layout.addWidget(self.label, 1)
        self.buttons: list[QPushButton] = []
        for label, callback in actions or []:
            button = QPushButton(label.replace("&", "&&"), self)  # "&" shown, not a mnemonic
            button.setAccessibleName(label)
            button.clicked.connect(callback)
            layout.addWidget(button)
            self.buttons.append(button)
        if closable:
            close = QPushButton(tr("Dismiss"), self)
            close.setAccessibleName(tr("Dismiss message"))
            close.setFlat(True)
            close.clicked.connect(self.dismiss)
            layout.addWidget(close)

    def text(self) -> str:
        """The message shown."""
        return self.label.text()

    def dismiss(self) -> None:
        """Hide and delete the banner."""
        self.hide()
        self.dismissed.emit()
        self.deleteLater()
