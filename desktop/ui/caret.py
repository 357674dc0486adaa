"""The text caret rests after a while without input, as GTK's does.

Qt blinks the caret of a focused text field for as long as the window has focus: the chat's
composer keeps the main thread (and the X connection's thread) waking several times a second
while the window just sits in front, waiting. :class:`CaretRest` lets it blink while the person
works and shows it steady once nothing has been typed or clicked for :data:`REST_MS` (GTK's
``gtk-cursor-blink-timeout`` is 10 s too). The next key press, click or focus change brings the
blinking back. A desktop whose caret does not blink (flash time 0) is left alone.

Its one timer runs only after input: a window that nobody touches has no timer at all.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication

REST_MS = 10_000

# What counts as the person working (a wheel turn or a hover does not move the caret).
_INPUT = frozenset(
    {
        QEvent.Type.KeyPress,
        QEvent.Type.MouseButtonPress,
        QEvent.Type.InputMethod,
        QEvent.Type.FocusIn,
    }
)


class CaretRest(QObject):
    """Stops the caret's blinking :data:`REST_MS` after the last input; input restarts it.

    Args:
        app: The application (its caret flash time is the one changed).
        rest_ms: Milliseconds without input before the caret rests.
    """

    def __init__(self, app: QApplication, rest_ms: int = REST_MS) -> None:
        super().__init__(app)
        self._blink_ms = QApplication.cursorFlashTime()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(rest_ms)
        self._timer.timeout.connect(self._rest)
        if self._blink_ms > 0:
            app.installEventFilter(self)

    @property
    def resting(self) -> bool:
        """Whether the caret is steady now because nothing was typed for a while."""
        return self._blink_ms > 0 and QApplication.cursorFlashTime() == 0

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Note input; never consumes an event."""
        if event.type() in _INPUT:
            self.wake()
        return False

    def wake(self) -> None:
        """The person did something: blink again, and rest after the next quiet spell."""
        if QApplication.cursorFlashTime() == 0:
            QApplication.setCursorFlashTime(self._blink_ms)
        self._timer.start()

    def _rest(self) -> None:
        QApplication.setCursorFlashTime(0)
