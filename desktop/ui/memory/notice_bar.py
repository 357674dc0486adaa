"""An inline message bar: what happened, in words, with optional actions (Undo, Reload, …).

Used instead of modal message boxes, so no nested event loop is ever needed and a message
stays readable while the person looks at what it is about.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton, QWidget

from desktop.ui.i18n import tr
from desktop.ui.memory.look import Tone, tint, tone

_SYMBOL = {"info": "ℹ", "success": "✓", "warning": "⚠", "error": "✕"}


class NoticeBar(QFrame):
    """A dismissible message with a tone (info, success, warning, error) and action buttons.

    Signals:
        dismissed(): the person closed the bar.
    """

    dismissed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("NoticeBar")
        self.setAccessibleName(tr("Message"))
        self._tone: Tone = "info"
        self._styling = False
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 6, 6)
        layout.setSpacing(8)
        self._symbol = QLabel(self)
        self._symbol.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignHCenter)
        self._symbol.setFixedWidth(16)
        self._text = QLabel(self)
        self._text.setWordWrap(True)
        self._text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._text.setAccessibleName(tr("Message text"))
        self._actions = QHBoxLayout()
        self._actions.setSpacing(4)
        close = QToolButton(self)
        close.setText("✕")
        close.setAutoRaise(True)
        close.setToolTip(tr("Dismiss"))
        close.setAccessibleName(tr("Dismiss message"))
        close.clicked.connect(self._dismiss)
        layout.addWidget(self._symbol)
        layout.addWidget(self._text, 1)
        layout.addLayout(self._actions)
        layout.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        self.hide()

    @property
    def text(self) -> str:
        """The message shown (empty when hidden)."""
        parent = self.parentWidget()
        return self._text.text() if parent is not None and self.isVisibleTo(parent) else ""

    @property
    def tone(self) -> Tone:
        """The tone of the current message."""
        return self._tone

    def show_message(
        self, kind: Tone, text: str, actions: Sequence[tuple[str, Callable[[], object]]] = ()
    ) -> None:
        """Show ``text``; each action is ``(button label, callback)`` and also dismisses."""
        self._tone = kind
        self._symbol.setText(_SYMBOL.get(kind, "ℹ"))
        self._text.setText(text)
        self._text.setAccessibleDescription(text)
        while self._actions.count():
            item = self._actions.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        for label, callback in actions:
            button = QPushButton(label, self)
            button.setAccessibleName(label)

            def clicked(_: bool = False, cb: Callable[[], object] = callback) -> None:
                self.clear()
                cb()

            button.clicked.connect(clicked)
            self._actions.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
        self._restyle()
        self.show()

    def action_labels(self) -> list[str]:
        """Labels of the action buttons shown (for tests and accessibility checks)."""
        found = []
        for i in range(self._actions.count()):
            item = self._actions.itemAt(i)
            widget = item.widget() if item is not None else None
            if isinstance(widget, QPushButton):
                found.append(widget.text())
        return found

    def trigger(self, label: str) -> None:
        """Click the action button called ``label``."""
        for i in range(self._actions.count()):
            item = self._actions.itemAt(i)
            widget = item.widget() if item is not None else None
            if isinstance(widget, QPushButton) and widget.text() == label:
                widget.click()
                return
        raise KeyError(label)

    def clear(self) -> None:
        """Hide the bar."""
        self.hide()

    def _dismiss(self) -> None:
        self.clear()
        self.dismissed.emit()

    def _restyle(self) -> None:
        fg = tone(self._tone).name()
        bg = tint(self._tone).name()
        self.setStyleSheet(
            f"#NoticeBar {{ background: {bg}; border: 1px solid {fg}; border-radius: 6px; }}"
        )
        self._symbol.setStyleSheet(f"color: {fg}; font-weight: bold;")

    def changeEvent(self, event: QEvent) -> None:
        """Follow palette (light/dark) changes."""
        if event.type() == QEvent.Type.PaletteChange and self.isVisible() and not self._styling:
            self._styling = True
            try:
                self._restyle()
            finally:
                self._styling = False
        super().changeEvent(event)
