"""A channel's QR login in Settings: the code drawn with Qt, the steps, then "Linked".

WhatsApp (a linked device, or the legacy bridge) is linked by scanning a QR code with the
phone. While the running channel waits for that, its status carries the code
(``login_code``); the channel form shows it here, replaces it when a new one is offered and
says "Linked" once the status is connected again.
"""

from __future__ import annotations

from typing import Literal

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from desktop.core.utils.qr import QrUnavailable, qr_modules
from desktop.ui.i18n import tr
from desktop.ui.settings.widgets import InlineStatus, hint

TARGET_PX = 264
"""How wide the code is drawn at least (each module a whole number of pixels)."""


class QrCodeView(QWidget):
    """A QR code, module by module: black on white in the light and the dark theme alike
    (phones look for dark modules on a light ground), the quiet zone included, each module a
    whole number of pixels so the edges stay sharp."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._modules: list[list[bool]] = []
        self._text = ""
        self.setAccessibleName(tr("QR code to scan"))
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)

    def set_text(self, text: str) -> None:
        """Draw the code of ``text``.

        Raises:
            QrUnavailable: The QR library is not installed (nothing changes).
            ValueError: ``text`` cannot be a QR code (nothing changes).
        """
        modules = qr_modules(text)
        self._modules, self._text = modules, text
        self.updateGeometry()
        self.update()

    def text(self) -> str:
        """The text the code shows."""
        return self._text

    def module_px(self) -> int:
        """Pixels per module at the preferred size."""
        return -(-TARGET_PX // max(1, len(self._modules)))  # rounded up

    def sizeHint(self) -> QSize:
        """Square, a whole number of pixels per module."""
        side = self.module_px() * len(self._modules)
        return QSize(side, side)

    def minimumSizeHint(self) -> QSize:
        """The preferred size (the code is never squeezed)."""
        return self.sizeHint()

    def paintEvent(self, event: QPaintEvent) -> None:
        """White ground, black modules; horizontal runs of dark modules as one rectangle."""
        count = len(self._modules)
        if not count:
            return
        px = max(1, min(self.width(), self.height()) // count)
        side = px * count
        left, top = (self.width() - side) // 2, (self.height() - side) // 2
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        painter.fillRect(left, top, side, side, Qt.GlobalColor.white)
        for y, row in enumerate(self._modules):
            x = 0
            while x < count:
                if not row[x]:
                    x += 1
                    continue
                end = x
                while end < count and row[end]:
                    end += 1
                painter.fillRect(
                    left + x * px, top + y * px, (end - x) * px, px, Qt.GlobalColor.black
                )
                x = end
        painter.end()


class QrLoginPanel(QWidget):
    """The steps and the code while a channel waits to be linked, then "Linked".

    Hidden until there is a code to show.

    Args:
        steps: What the person does with the phone, ending where the code is scanned.
        parent: The parent widget.
        note: Said under the code (how it is renewed; WhatsApp's renewal when not given).
    """

    def __init__(
        self,
        steps: str,
        parent: QWidget | None = None,
        note: str = "",
    ) -> None:
        super().__init__(parent)
        self.state: Literal["hidden", "code", "linked"] = "hidden"
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 4)
        layout.setSpacing(6)
        self.steps = QLabel(tr("{steps}, then scan this code:").format(steps=steps))
        self.steps.setWordWrap(True)
        self.steps.setAccessibleName(tr("How to link"))
        layout.addWidget(self.steps)
        self.code = QrCodeView()
        layout.addWidget(self.code, 0, Qt.AlignmentFlag.AlignLeft)
        self.note = hint(
            note or tr("WhatsApp offers a new code every 20 seconds or so; it appears here.")
        )
        layout.addWidget(self.note)
        self.linked = InlineStatus(accessible=tr("Login"))
        layout.addWidget(self.linked)
        self.problem = InlineStatus(accessible=tr("QR code problem"))
        layout.addWidget(self.problem)
        self.hide()

    def show_code(self, text: str) -> None:
        """Show (or replace) the code to scan."""
        try:
            self.code.set_text(text)
        except (QrUnavailable, ValueError) as exc:
            self.code.hide()
            self.problem.error(tr("The code cannot be drawn here: {error}").format(error=exc))
        else:
            self.code.show()
            self.problem.clear()
        self.state = "code"
        self.steps.show()
        self.note.show()
        self.linked.clear()
        self.show()

    def show_linked(self, text: str) -> None:
        """Replace the code with ``text`` (the account is linked)."""
        self.state = "linked"
        for part in (self.steps, self.code, self.note, self.problem):
            part.hide()
        self.linked.ok(text)
        self.show()

    def clear(self) -> None:
        """Hide everything (no login under way)."""
        self.state = "hidden"
        self.hide()
