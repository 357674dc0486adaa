"""Image mode in the composer: while it is on, what the person sends is a description that the
configured image provider draws (sent as ``/image <description>``,
:mod:`desktop.core.agent.image_command`); the image is shown in the chat and kept in the
workspace. The toggle button and Ctrl+Shift+I switch it."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QToolButton, QWidget

from desktop.ui.i18n import QT_TR_NOOP, tr

SHORTCUT = "Ctrl+Shift+I"
COMMAND = "/image"
HINTS = (
    QT_TR_NOOP(
        "Describe an image — Enter makes it with the image provider, Ctrl+Shift+I leaves image mode"
    ),
    QT_TR_NOOP("Describe an image — Enter makes it"),
    QT_TR_NOOP("Describe an image"),
)


class ImageMode(QObject):
    """The composer's image-mode switch.

    Signals:
        toggled(bool): image mode was turned on or off.
    """

    toggled = Signal(bool)

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.button = QToolButton(parent)
        self.button.setText("🖼")
        self.button.setCheckable(True)
        self.button.setToolTip(
            tr("Image mode ({shortcut}): what you send is drawn as an image").format(
                shortcut=SHORTCUT
            )
        )
        self.button.setAccessibleName(tr("Image mode"))
        self.button.toggled.connect(self._toggled)
        self.keys = QKeySequence(SHORTCUT)

    def watch(self, edit: QObject) -> None:
        """Take the shortcut in ``edit`` (the composer's editor)."""
        edit.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """The shortcut, pressed in the editor."""
        from desktop.ui.chat.voice import matches

        if matches(event, self.keys):
            self.button.toggle()
            return True
        return super().eventFilter(watched, event)

    @property
    def on(self) -> bool:
        """Whether image mode is on."""
        return self.button.isChecked()

    def _toggled(self, on: bool) -> None:
        self.button.setText("🖼 " + tr("Image mode") if on else "🖼")  # the state, said in words too
        self.button.setAccessibleName(tr("Image mode (on)") if on else tr("Image mode"))
        self.toggled.emit(on)

    def apply(self, text: str, attachments: list[str]) -> str:
        """What to send for ``text``: in image mode a description becomes ``/image …``
        (commands and messages with attachments are sent as they are)."""
        if not self.on or not text or text.startswith("/") or attachments:
            return text
        return f"{COMMAND} {text}"
