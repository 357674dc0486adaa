"""What a tab shows until its real widget is plugged in (or while the agent loads)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from desktop.ui.i18n import tr


class PlaceholderTab(QWidget):
    """A centred title and hint.

    Args:
        title: Large heading (translated).
        text: Explanation below it (translated).
        parent: Owner.
    """

    def __init__(self, title: str, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName(tr("{title} (not loaded yet)").format(title=title))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 24, 24, 24)
        layout.addStretch(1)
        self.title = QLabel(title, self)
        self.title.setObjectName("placeholderTitle")
        self.title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(self.title)
        self.hint = QLabel(text, self)
        self.hint.setObjectName("placeholderText")
        self.hint.setWordWrap(True)
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(self.hint)
        layout.addStretch(2)

    def set_text(self, text: str) -> None:
        """Replace the hint."""
        self.hint.setText(text)
