"""The "New messages ↓" chip: new content arrived below while the person reads further up.

It floats over the bottom of the conversation (not in a layout, so nothing moves when it
appears) and is a real button: Tab reaches it, Enter or a click scrolls to the newest message.
Its appearance is announced to screen readers (a polite announcement; they are not
interrupted).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPoint, Qt
from PySide6.QtGui import QAccessible, QAccessibleAnnouncementEvent
from PySide6.QtWidgets import QPushButton, QWidget

from desktop.ui.i18n import QT_TR_NOOP, tr

CHIP_TEXT = QT_TR_NOOP("New messages ↓")
ANNOUNCEMENT = QT_TR_NOOP("New messages below")
BOTTOM_GAP = 14


def announce(widget: QObject, text: str) -> None:
    """Have screen readers say ``text`` (politely) on behalf of ``widget``."""
    if not QAccessible.isActive():
        return
    event = QAccessibleAnnouncementEvent(widget, text)
    event.setPoliteness(QAccessible.AnnouncementPoliteness.Polite)
    QAccessible.updateAccessibility(event)


class JumpChip(QPushButton):
    """A small rounded button at the bottom centre of ``anchor``.

    Args:
        anchor: The widget it floats over (the conversation view).

    Attributes:
        announced: What was announced for screen readers, oldest first (the last few).
    """

    def __init__(self, anchor: QWidget) -> None:
        super().__init__(tr(CHIP_TEXT), anchor)
        self.anchor = anchor
        self.setObjectName("jumpChip")
        self.setAccessibleName(tr(ANNOUNCEMENT))
        self.setAccessibleDescription(tr("Scroll to the newest message"))
        self.setToolTip(tr("Scroll to the newest message (End)"))
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.setStyleSheet(
            "QPushButton#jumpChip { border-radius: 13px; padding: 5px 14px;"
            " background: palette(highlight); color: palette(highlighted-text);"
            " border: 2px solid palette(highlight); font-weight: 600; }"
            "QPushButton#jumpChip:focus { border: 2px solid palette(window-text); }"
        )
        self.announced: list[str] = []
        anchor.installEventFilter(self)
        self.hide()

    def pop_up(self) -> None:
        """Show the chip (announced once each time it appears)."""
        if self.isVisible():
            return
        self.adjustSize()
        self.place()
        self.show()
        self.raise_()
        said = tr(ANNOUNCEMENT)
        self.announced = [*self.announced[-9:], said]
        announce(self, said)

    def place(self) -> None:
        """Bottom centre of the anchor's visible area."""
        area = self.anchor.rect()
        x = area.center().x() - self.width() // 2
        self.move(QPoint(x, area.bottom() - self.height() - BOTTOM_GAP))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Stay in place when the conversation is resized."""
        if watched is self.anchor and event.type() == QEvent.Type.Resize and self.isVisible():
            self.place()
        return False
