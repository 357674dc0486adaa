"""Attachment thumbnails, decoded and scaled in worker threads (QImage is thread-safe)."""

from __future__ import annotations

import asyncio
import base64
import logging

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QImage

from desktop.core.utils.tasks import TaskOwner

log = logging.getLogger(__name__)
THUMB = 160


def load_thumbnail(source: str, size: int = THUMB) -> QImage | None:
    """A scaled image for a file path or ``data:image/...;base64,`` URL (``None`` if unusable)."""
    image = QImage()
    if source.startswith("data:image/"):
        try:
            image.loadFromData(base64.b64decode(source.partition(",")[2], validate=False))
        except ValueError:
            return None
    else:
        image.load(source)
    if image.isNull():
        return None
    return image.scaled(
        size, size, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation
    )


class ThumbnailLoader(QObject):
    """Loads each attachment's thumbnail once.

    Signals:
        loaded(str, QImage): a thumbnail is ready for this path or data URL.
    """

    loaded = Signal(str, QImage)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._images: dict[str, QImage | None] = {}
        self._tasks = TaskOwner("thumbnails")

    def request(self, sources: list[str]) -> None:
        """Load what is not loaded yet; cached ones are emitted again at once."""
        for source in sources:
            if source in self._images:
                image = self._images[source]
                if image is not None:
                    self.loaded.emit(source, image)
                continue
            self._images[source] = None
            self._tasks.try_spawn(self._load(source), name="thumbnail")

    async def _load(self, source: str) -> None:
        image = await asyncio.to_thread(load_thumbnail, source)
        if image is not None:
            self._images[source] = image
            self.loaded.emit(source, image)

    def cancel(self) -> None:
        """Stop pending loads (shutdown)."""
        self._tasks.cancel()
