"""Pinned lines in the files view: the tint on pinned lines and the list of a file's pins."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QTextCharFormat, QTextCursor, QTextFormat
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from desktop.core.memory.pins import Pin, line_text
from desktop.ui.i18n import tr
from desktop.ui.memory.look import dot_icon, mute, tint, tone


def pin_selections(editor: QPlainTextEdit, pinned: set[str]) -> list[QTextEdit.ExtraSelection]:
    """A full-width tint on every line of ``editor`` whose text is pinned."""
    found: list[QTextEdit.ExtraSelection] = []
    if not pinned:
        return found
    fmt = QTextCharFormat()
    fmt.setBackground(tint("accent", strength=0.14))
    fmt.setProperty(QTextFormat.Property.FullWidthSelection, True)
    block = editor.document().firstBlock()
    while block.isValid():
        if block.text() in pinned:
            selection = QTextEdit.ExtraSelection()
            selection.cursor = QTextCursor(block)
            selection.format = fmt
            found.append(selection)
        block = block.next()
    return found


def line_at_cursor(editor: QPlainTextEdit) -> str:
    """The text of the line the editor's cursor is on."""
    return line_text(editor.textCursor().block().text())


class PinsPanel(QWidget):
    """The pins of the file shown, with Unpin; a pin whose line is gone is marked.

    Signals:
        unpinRequested(str): unpin this line text.
    """

    unpinRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel(self)
        mute(self.title)
        self.list = QListWidget(self)
        self.list.setAccessibleName(tr("Pinned lines"))
        self.list.setMaximumHeight(84)
        self.unpin_button = QPushButton(tr("Unpin"), self)
        self.unpin_button.setAccessibleName(tr("Unpin the selected line"))
        self.unpin_button.setEnabled(False)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.list, 1)
        row.addWidget(self.unpin_button, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.title)
        layout.addLayout(row)
        self.list.currentItemChanged.connect(
            lambda item, _old: self.unpin_button.setEnabled(item is not None)
        )
        self.unpin_button.clicked.connect(self._unpin)
        self.set_pins([], "")

    def set_pins(self, pins: list[Pin], text: str | None) -> None:
        """Show ``pins`` of one file; ``text`` is the file's text, to mark pins not found."""
        lines = {line_text(line) for line in (text or "").splitlines()}
        self.list.clear()
        for pin in pins:
            found = pin.text in lines
            label = (
                pin.text if found else tr("{line}   (not in the file now)").format(line=pin.text)
            )
            item = QListWidgetItem(dot_icon(tone("accent" if found else "muted")), label)
            item.setData(Qt.ItemDataRole.UserRole, pin.text)
            item.setToolTip(
                tr("Dream never changes or removes this line.")
                if found
                else tr(
                    "This pinned line is not in the file; the pin applies again when it is back."
                )
            )
            self.list.addItem(item)
        self.title.setText(
            tr("Pinned lines in this file ({count}): Dream leaves them as they are").format(
                count=len(pins)
            )
            if pins
            else tr(
                "No pinned lines. Right-click a line and choose “Pin this line” so Dream "
                "never changes it."
            )
        )
        self.list.setVisible(bool(pins))
        self.unpin_button.setVisible(bool(pins))
        self.unpin_button.setEnabled(self.list.currentItem() is not None)

    def texts(self) -> list[str]:
        """The pinned line texts listed."""
        return [
            str(self.list.item(i).data(Qt.ItemDataRole.UserRole)) for i in range(self.list.count())
        ]

    def _unpin(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self.unpinRequested.emit(str(item.data(Qt.ItemDataRole.UserRole)))
