"""The composer: attachments, the message editor, Attach and Send/Stop."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QSize, Qt, Signal
from PySide6.QtGui import QIcon, QImage, QPixmap, QResizeEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QPushButton,
    QStyle,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.utils.tasks import TaskOwner
from desktop.ui.chat import image_mode
from desktop.ui.chat.composer_edit import ComposerEdit, is_attachment_path
from desktop.ui.chat.thumbnails import load_thumbnail
from desktop.ui.chat.voice import VoiceInput
from desktop.ui.i18n import QT_TR_NOOP, tr

log = logging.getLogger(__name__)
ATTACH_FILTER = QT_TR_NOOP(
    "Images and documents (*.png *.jpg *.jpeg *.gif *.webp *.bmp *.pdf *.docx *.xlsx *.pptx)"
)
MAX_ATTACHMENTS = 8
# The ready placeholder, longest first: the longest that fits the editor on one line is shown
# (a narrow window or a large scale factor would otherwise wrap it and cut its second line).
READY_HINTS = (
    QT_TR_NOOP("Message nanobot — Enter sends, Shift+Enter adds a line, / for commands"),
    QT_TR_NOOP("Message nanobot — Enter sends, / for commands"),
    QT_TR_NOOP("Message nanobot"),
)
BUSY_HINTS = (
    QT_TR_NOOP("Guide the running answer — Enter queues it for its next step, Esc stops"),
    QT_TR_NOOP("Guide the running answer — Esc stops"),
    QT_TR_NOOP("Guide the running answer"),
)


class Composer(QWidget):
    """Where the person writes.

    Signals:
        sendRequested(str, list): send this text with these attachments (image or document
            paths). The receiver calls :meth:`clear_input` once it accepted the message.
        stopRequested(): the Stop button or Esc while a turn runs.
    """

    sendRequested = Signal(str, list)
    stopRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.media_dir: Path | None = None
        self.attachments: list[str] = []
        self._busy = False
        self._tasks = TaskOwner("composer")
        self.edit = ComposerEdit(self)
        self.edit.submitted.connect(self.submit)
        self.edit.escapePressed.connect(self._escape)
        self.edit.filesDropped.connect(self.add_files)
        self.edit.imagePasted.connect(self.add_image)
        self.attach = QToolButton(self)
        self.attach.setText("+")
        self.attach.setToolTip(tr("Attach images or documents (or paste / drop them)"))
        self.attach.setAccessibleName(tr("Attach images or documents"))
        self.attach.clicked.connect(self._choose)
        self.send = QPushButton(tr("Send"), self)
        self.send.setAccessibleName(tr("Send"))
        self.send.setDefault(False)
        self.send.setAutoDefault(False)
        self.send.clicked.connect(self._send_clicked)
        self.strip = QHBoxLayout()
        self.strip.setContentsMargins(0, 0, 0, 0)
        self.strip.addStretch(1)
        self.voice = VoiceInput(self, self.edit, self)
        self.image_mode = image_mode.ImageMode(self)
        self.image_mode.watch(self.edit)
        self.image_mode.toggled.connect(lambda _on: self._fit_placeholder())
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.attach, 0, Qt.AlignmentFlag.AlignBottom)
        row.addWidget(self.edit, 1)
        row.addWidget(self.image_mode.button, 0, Qt.AlignmentFlag.AlignBottom)
        row.addWidget(self.voice.button, 0, Qt.AlignmentFlag.AlignBottom)
        row.addWidget(self.send, 0, Qt.AlignmentFlag.AlignBottom)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addLayout(self.strip)
        layout.addWidget(self.voice.bar)
        layout.addLayout(row)
        self._ready_hint = True
        self.edit.installEventFilter(self)
        self.set_ready(False)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Re-fit the placeholder when the editor changes width."""
        if watched is self.edit and isinstance(event, QResizeEvent):
            self._fit_placeholder(event.size().width())  # the viewport follows only later
        return super().eventFilter(watched, event)

    def _fit_placeholder(self, width: int | None = None) -> None:
        if not self._ready_hint:
            return
        edit = self.edit
        metrics = edit.fontMetrics()
        outer = edit.width() if width is None else width
        room = outer - 2 * edit.frameWidth() - 2 * edit.document().documentMargin()
        hints = [
            tr(hint)
            for hint in (
                image_mode.HINTS
                if self.image_mode.on
                else BUSY_HINTS
                if self._busy
                else READY_HINTS
            )
        ]
        fitting = [hint for hint in hints if metrics.horizontalAdvance(hint) <= room]
        hint = fitting[0] if fitting else hints[-1]
        if edit.placeholderText() != hint:
            edit.setPlaceholderText(hint)

    # -- state ----------------------------------------------------------------------------
    def set_ready(self, ready: bool, hint: str = "") -> None:
        """Enable typing once the agent exists (``hint``, or "connecting…", shows until then)."""
        self.edit.setEnabled(ready)
        self.attach.setEnabled(ready)
        self.send.setEnabled(ready)
        self.voice.button.setEnabled(ready)
        self.image_mode.button.setEnabled(ready)
        self._ready_hint = ready
        if ready:
            self._fit_placeholder()
        else:
            self.edit.setPlaceholderText(hint or tr("connecting…"))
            self.edit.viewport().update()  # a disabled editor is not repainted by itself

    def set_busy(self, busy: bool) -> None:
        """While a turn runs the button stops it (commands can still be sent)."""
        self._busy = busy
        self._fit_placeholder()
        self.send.setText(tr("Stop") if busy else tr("Send"))
        self.send.setAccessibleName(tr("Stop") if busy else tr("Send"))
        self.send.setToolTip(
            tr("Stop the running turn (Esc). Enter sends what you typed to it as guidance.")
            if busy
            else tr("Send (Enter)")
        )

    @property
    def busy(self) -> bool:
        """Whether a turn runs in the shown chat."""
        return self._busy

    # -- sending --------------------------------------------------------------------------
    def text(self) -> str:
        """The message as typed."""
        return self.edit.toPlainText()

    def submit(self) -> None:
        """Ask to send the current text and attachments. While a turn runs, text goes to
        that turn as guidance (steering); attachments wait until it ends."""
        text = self.edit.toPlainText().strip()
        if not text and not self.attachments:
            return
        if self._busy and self.attachments and not text.startswith("/"):
            return
        self.sendRequested.emit(
            self.image_mode.apply(text, self.attachments), list(self.attachments)
        )

    def clear_input(self) -> None:
        """Empty the editor and the attachments."""
        self.edit.clear()
        self.attachments.clear()
        self._rebuild_strip()

    def _send_clicked(self) -> None:
        if self._busy:
            self.stopRequested.emit()
        else:
            self.submit()

    def _escape(self) -> None:
        if self._busy:
            self.stopRequested.emit()

    # -- attachments ----------------------------------------------------------------------
    def _choose(self) -> None:
        dialog = QFileDialog(self, tr("Attach images or documents"))
        dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
        dialog.setNameFilter(tr(ATTACH_FILTER))
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.filesSelected.connect(self.add_files)
        dialog.open()  # not exec(): no nested event loop

    def add_files(self, paths: list[str]) -> None:
        """Attach image and document files (others are ignored)."""
        for path in paths:
            if (
                is_attachment_path(path)
                and path not in self.attachments
                and len(self.attachments) < MAX_ATTACHMENTS
            ):
                self.attachments.append(path)
        self._rebuild_strip()

    def add_image(self, image: QImage) -> None:
        """Attach a pasted image: saved as PNG under :attr:`media_dir` in a worker thread."""
        folder = self.media_dir
        if folder is None:
            log.warning("no media folder; pasted image dropped")
            return
        path = folder / f"pasted-{time.strftime('%Y%m%d-%H%M%S')}-{len(self.attachments)}.png"
        copy = image.copy()

        def save() -> str:
            folder.mkdir(parents=True, exist_ok=True)
            if not copy.save(str(path), "PNG"):  # type: ignore[call-overload]  # PySide6's stub wants bytes; Qt takes str
                raise OSError(f"could not write {path}")
            return str(path)

        async def save_then_attach() -> None:
            try:
                saved = await asyncio.to_thread(save)
            except OSError as exc:
                log.error("saving a pasted image failed: %s", exc)
                return
            self.add_files([saved])

        self._tasks.try_spawn(save_then_attach(), name="save-pasted-image")

    def _rebuild_strip(self) -> None:
        while self.strip.count() > 1:
            item = self.strip.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        for index, path in enumerate(self.attachments):
            chip = QToolButton(self)
            chip.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            chip.setText(f"{Path(path).name}  ✕")
            chip.setToolTip(tr("{path}\nClick to remove").format(path=path))
            chip.setAccessibleName(tr("Remove attachment {name}").format(name=Path(path).name))
            chip.setIconSize(QSize(32, 32))
            self._load_icon(chip, path)
            chip.clicked.connect(lambda _=False, p=path: self._remove(p))
            self.strip.insertWidget(index, chip)

    def _load_icon(self, chip: QToolButton, path: str) -> None:
        """Decode the chip's thumbnail in a worker thread, then show it."""

        async def load() -> None:
            image = await asyncio.to_thread(load_thumbnail, path, 64)
            try:
                if image is not None:
                    chip.setIcon(QIcon(QPixmap.fromImage(image)))
                else:  # a document
                    chip.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_FileIcon))
            except RuntimeError:  # the chip was removed meanwhile
                pass

        self._tasks.try_spawn(load(), name="attachment-icon")

    def _remove(self, path: str) -> None:
        if path in self.attachments:
            self.attachments.remove(path)
        self._rebuild_strip()

    def cancel_tasks(self) -> None:
        """Cancel pending image saves (shutdown)."""
        self._tasks.cancel()
        self.voice.close()
