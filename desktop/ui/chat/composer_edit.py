"""The message editor: Enter sends, Shift+Enter breaks the line, slash commands complete,
pasted or dropped images and documents (PDF, Word, Excel, PowerPoint) become attachments."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, Qt, Signal
from PySide6.QtGui import (
    QFontMetrics,
    QImage,
    QKeyEvent,
    QPixmap,
    QStandardItem,
    QStandardItemModel,
)
from PySide6.QtWidgets import QCompleter, QPlainTextEdit, QWidget

from desktop.core.agent.commands import COMMANDS
from desktop.ui.chat.mentions import MentionCompleter
from desktop.ui.i18n import tr

SLASH_COMMANDS = list(COMMANDS)  # completion offers the loop's one command table, in its order
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp"}
DOCUMENT_SUFFIXES = {".pdf", ".docx", ".xlsx", ".pptx"}  # the model gets their text
MAX_LINES = 8


def is_image_path(path: str) -> bool:
    """Whether ``path`` names an image file we can attach."""
    return Path(path).suffix.lower() in IMAGE_SUFFIXES and Path(path).is_file()


def is_attachment_path(path: str) -> bool:
    """Whether ``path`` names an image or a document file we can attach."""
    suffix = Path(path).suffix.lower()
    return suffix in IMAGE_SUFFIXES | DOCUMENT_SUFFIXES and Path(path).is_file()


class ComposerEdit(QPlainTextEdit):
    """A growing plain-text editor for messages.

    Signals:
        submitted(): Enter was pressed (without Shift).
        escapePressed(): Esc (stop the running turn).
        editLastRequested(): Up in an empty editor (edit the last message sent).
        imagePasted(QImage): an image was pasted or dropped.
        filesDropped(list): image or document files were pasted or dropped (paths).
    """

    submitted = Signal()
    escapePressed = Signal()
    editLastRequested = Signal()
    imagePasted = Signal(QImage)
    filesDropped = Signal(list)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName(tr("Message"))
        self.setTabChangesFocus(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.completer = QCompleter(self)
        # Each command with what it does as its tooltip (a QStringListModel keeps no tooltips).
        commands = QStandardItemModel(self.completer)
        for name in SLASH_COMMANDS:
            item = QStandardItem(name)
            item.setToolTip(tr(COMMANDS[name]))
            commands.appendRow(item)
        self.completer.setModel(commands)
        self.completer.setWidget(self)
        self.completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.completer.activated.connect(self._complete)
        popup = self.completer.popup()
        assert popup is not None  # a QCompleter always has its popup view
        popup.setAccessibleName(tr("Commands"))
        self.mentions = MentionCompleter(self)  # @handle of another chat
        self.document().contentsChanged.connect(self._fit)
        self._fit()

    # -- size -----------------------------------------------------------------------------
    def _fit(self) -> None:
        line = QFontMetrics(self.font()).lineSpacing()
        lines = max(1, min(MAX_LINES, int(self.document().size().height())))
        margins = self.contentsMargins()
        frame = int(self.document().documentMargin() * 2) + margins.top() + margins.bottom()
        self.setFixedHeight(lines * line + frame + 2)

    # -- keys -----------------------------------------------------------------------------
    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Enter sends, Shift+Enter breaks, Esc stops; the command popup gets its keys."""
        popup = self.completer.popup()
        assert popup is not None  # a QCompleter always has its popup view
        key = event.key()
        if (popup.isVisible() or self.mentions.visible) and key in (
            Qt.Key.Key_Enter,
            Qt.Key.Key_Return,
            Qt.Key.Key_Tab,
            Qt.Key.Key_Escape,
            Qt.Key.Key_Backtab,
        ):
            event.ignore()  # the completer handles these
            return
        if (
            key in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
            and not event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        ):
            self.submitted.emit()
            return
        if key == Qt.Key.Key_Escape:
            self.escapePressed.emit()
            return
        if key == Qt.Key.Key_Up and not self.toPlainText() and not event.modifiers():
            self.editLastRequested.emit()
            return
        super().keyPressEvent(event)
        self._update_completion()
        self.mentions.update()

    def _update_completion(self) -> None:
        text = self.toPlainText()
        popup = self.completer.popup()
        assert popup is not None  # a QCompleter always has its popup view
        if not text.startswith("/") or any(c.isspace() for c in text):
            popup.hide()
            return
        self.completer.setCompletionPrefix(text)
        if self.completer.completionCount() == 0 or (
            self.completer.completionCount() == 1 and self.completer.currentCompletion() == text
        ):
            popup.hide()
            return
        rect = self.cursorRect()
        rect.setWidth(
            popup.sizeHintForColumn(0) + popup.verticalScrollBar().sizeHint().width() + 24
        )
        self.completer.complete(rect)

    def _complete(self, text: str) -> None:
        self.setPlainText(text + " ")
        cursor = self.textCursor()
        cursor.movePosition(cursor.MoveOperation.End)
        self.setTextCursor(cursor)

    # -- paste and drop -------------------------------------------------------------------
    def canInsertFromMimeData(self, source: QMimeData) -> bool:
        """Images and image files are accepted too."""
        return source.hasImage() or source.hasUrls() or super().canInsertFromMimeData(source)

    def insertFromMimeData(self, source: QMimeData) -> None:
        """Images and documents become attachments; everything else is pasted as text."""
        if source.hasUrls():
            files = [u.toLocalFile() for u in source.urls() if u.isLocalFile()]
            attachable = [f for f in files if is_attachment_path(f)]
            if attachable:
                self.filesDropped.emit(attachable)
                return
        if source.hasImage():
            image = source.imageData()
            if isinstance(image, QPixmap):
                image = image.toImage()
            if isinstance(image, QImage) and not image.isNull():
                self.imagePasted.emit(image)
                return
        super().insertFromMimeData(source)
