"""An inline banner for a failed turn: what happened, Retry, and a way to the right setting."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton, QWidget

# error kind → (headline, settings section, button text)
ERRORS: dict[str, tuple[str, str, str]] = {
    "auth": (
        "The provider rejected the API key (or none is set).",
        "providers",
        "Provider settings",
    ),
    "quota": (
        "The provider says the account is out of quota or credit.",
        "providers",
        "Provider settings",
    ),
    "rate_limit": (
        "The provider is rate-limiting requests. Wait a moment, then retry.",
        "providers",
        "Provider settings",
    ),
    "not_found": ("The model was not found at this provider.", "providers", "Choose a model"),
    "connection": ("Could not reach the provider.", "providers", "Provider settings"),
    "timeout": ("The provider did not answer in time.", "providers", "Provider settings"),
    "server": ("The provider had a server error.", "providers", "Provider settings"),
    "bad_request": ("The provider refused the request.", "agent", "Agent settings"),
    "interrupted": ("The last reply did not finish.", "", ""),
}
DEFAULT = ("The model call failed.", "providers", "Provider settings")


class ErrorBanner(QFrame):
    """Shown above the composer after a failed turn.

    Signals:
        retryRequested(): run the failed turn again.
        settingsRequested(str): open this settings section (``providers``, ``agent``).
    """

    retryRequested = Signal()
    settingsRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("errorBanner")
        self.setAccessibleName("Error")
        self.setStyleSheet(
            "#errorBanner { border: 1px solid rgba(207, 34, 46, 0.55); border-radius: 8px;"
            " background: rgba(207, 34, 46, 0.10); }"
        )
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.retry = QPushButton("Retry", self)
        self.retry.setAccessibleName("Retry")
        self.retry.clicked.connect(self.retryRequested)
        self.settings = QPushButton(self)
        self.settings.clicked.connect(lambda: self.settingsRequested.emit(self.section))
        self.close_button = QToolButton(self)
        self.close_button.setText("✕")
        self.close_button.setAutoRaise(True)
        self.close_button.setAccessibleName("Dismiss error")
        self.close_button.clicked.connect(self.hide)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 6, 6, 6)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.settings)
        layout.addWidget(self.retry)
        layout.addWidget(self.close_button)
        self.section = ""
        self.kind = ""
        self.hide()

    def show_error(self, kind: str, detail: str = "") -> None:
        """Show the banner for an error ``kind`` (``RunError.error_kind``) with ``detail``."""
        headline, section, button = ERRORS.get(kind, DEFAULT)
        self.kind = kind
        self.section = section
        detail = " ".join(detail.split())
        if len(detail) > 300:
            detail = detail[:299] + "…"
        self.label.setText(f"{headline}\n{detail}" if detail else headline)
        self.settings.setText(button)
        self.settings.setAccessibleName(button)
        self.settings.setVisible(bool(section))
        self.show()
