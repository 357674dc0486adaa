"""An inline banner for a failed turn: what happened in one sentence, Retry, the right setting,
and the full error text behind "Details"."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.ui.i18n import QT_TR_NOOP, localized, tr

# error kind → (advice beyond the core's own sentence, settings section, button text)
ERRORS: dict[str, tuple[str, str, str]] = {
    "auth": (
        QT_TR_NOOP("Check the key in the provider settings."),
        "providers",
        QT_TR_NOOP("Provider settings"),
    ),
    "quota": (
        QT_TR_NOOP("Add credit or switch provider."),
        "providers",
        QT_TR_NOOP("Provider settings"),
    ),
    # The app's own spend cap (or runaway guard): the core's sentence says what to change.
    "budget": ("", "usage", QT_TR_NOOP("Usage & budgets")),
    "rate_limit": (
        QT_TR_NOOP("Wait a moment, then retry."),
        "providers",
        QT_TR_NOOP("Provider settings"),
    ),
    "not_found": (QT_TR_NOOP("Choose another model."), "providers", QT_TR_NOOP("Choose a model")),
    "connection": (
        QT_TR_NOOP("Check the endpoint and your connection."),
        "providers",
        QT_TR_NOOP("Provider settings"),
    ),
    "timeout": ("", "providers", QT_TR_NOOP("Provider settings")),
    "server": ("", "providers", QT_TR_NOOP("Provider settings")),
    "bad_request": ("", "agent", QT_TR_NOOP("Agent settings")),
    "empty_reply": (QT_TR_NOOP("Retry, or rephrase the request."), "", ""),
    "storage": ("", "", ""),  # the core's sentence says what to fix; no settings page helps
    "interrupted": ("", "", ""),
    "too_long": ("", "", ""),
}
NO_RETRY = frozenset({"too_long"})
"""Kinds that are not a failed turn: nothing to run again."""
HEADLINES: dict[str, str] = {
    "interrupted": QT_TR_NOOP("The last reply did not finish."),
}
DEFAULT = ("", "providers", QT_TR_NOOP("Provider settings"))
GENERIC = QT_TR_NOOP("The model call failed.")
"""The sentence when the core gave none."""
DETAIL_CHARS = 4000


class ErrorBanner(QFrame):
    """Shown above the composer after a failed turn.

    Signals:
        retryRequested(): run the failed turn again.
        settingsRequested(str): open this settings section (``providers``, ``agent``,
            ``usage``).
    """

    retryRequested = Signal()
    settingsRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("errorBanner")
        self.setAccessibleName(tr("Error"))
        self.setStyleSheet(
            "#errorBanner { border: 1px solid rgba(207, 34, 46, 0.55); border-radius: 8px;"
            " background: rgba(207, 34, 46, 0.10); }"
        )
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.retry = QPushButton(tr("Retry"), self)
        self.retry.setAccessibleName(tr("Retry"))
        self.retry.clicked.connect(self.retryRequested)
        self.settings = QPushButton(self)
        self.settings.clicked.connect(lambda: self.settingsRequested.emit(self.section))
        self.close_button = QToolButton(self)
        self.close_button.setText("✕")
        self.close_button.setAutoRaise(True)
        self.close_button.setAccessibleName(tr("Dismiss error"))
        self.close_button.clicked.connect(self.hide)
        self.details_button = QToolButton(self)
        self.details_button.setText(tr("Details"))
        self.details_button.setCheckable(True)
        self.details_button.setAutoRaise(True)
        self.details_button.setAccessibleName(tr("Show error details"))
        self.details = QLabel(self)
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.PlainText)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details.setAccessibleName(tr("Error details"))
        self.details.hide()
        self.details_button.toggled.connect(self.details.setVisible)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.label, 1)
        row.addWidget(self.details_button)
        row.addWidget(self.settings)
        row.addWidget(self.retry)
        row.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 6, 6, 6)
        layout.addLayout(row)
        layout.addWidget(self.details)
        self.section: str = ""
        self.kind = ""
        self.hide()

    def show_error(self, kind: str, message: str = "", details: str = "") -> None:
        """Show the banner for an error ``kind`` (``TurnFailed.error_kind``).

        Args:
            kind: Decides the advice and the settings button.
            message: The core's one sentence (what happened); a generic one when empty.
            details: The full error text, behind "Details" (hidden when empty).
        """
        advice, section, button = ERRORS.get(kind, DEFAULT)
        self.kind = kind
        self.section = section
        headline = tr(HEADLINES.get(kind, GENERIC))
        sentence = " ".join((localized(message) or headline).split())
        if len(sentence) > 300:
            sentence = sentence[:299] + "…"
        advice = tr(advice) if advice else ""
        button = tr(button) if button else ""
        self.label.setText(
            tr("{sentence} {advice}").format(sentence=sentence, advice=advice)
            if advice
            else sentence
        )
        self.settings.setText(button)
        self.settings.setAccessibleName(button)
        self.settings.setVisible(bool(section))
        self.retry.setVisible(kind not in NO_RETRY)
        details = details.strip()
        if len(details) > DETAIL_CHARS:
            details = details[: DETAIL_CHARS - 1] + "…"
        self.details.setText(details)
        self.details_button.setChecked(False)
        self.details_button.setVisible(bool(details) and details != sentence)
        self.show()
