"""The file preview pane beside the chat: files opened read-only in closable tabs.

A ``preview:<path>`` link (a path in a tool card, a diff's file header, a path in an answer;
:mod:`desktop.ui.chat.diff_view`) opens the file here: text with syntax colours, Markdown
rendered with the chat's renderer, images with zoom (Fit, 100 %, the mouse wheel), and a clear
message for a folder, a binary or too large file. Files are read in a worker thread
(:func:`~desktop.ui.chat.preview_files.read_preview`); nothing waits on the event loop.
"Open in editor" and "Show in folder" go through :attr:`PreviewPane.open_url` (a seam for
tests; ``QDesktopServices.openUrl`` by default). Esc or the close button hides the pane; its
width is kept in ``desktop.json`` (``previewWidth``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import (
    QDesktopServices,
    QGuiApplication,
    QImage,
    QKeySequence,
    QPalette,
    QPixmap,
    QResizeEvent,
    QShortcut,
    QShowEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.ui.chat.colors import ChatColors
from desktop.ui.chat.diff_view import PREVIEW, preview_path, resolve
from desktop.ui.chat.markdown import COPY_CODE
from desktop.ui.i18n import tr

if TYPE_CHECKING:
    from desktop.ui.chat.chat_tab import ChatTab
    from desktop.ui.chat.preview_files import Preview

log = logging.getLogger(__name__)

Spawn = Callable[[Coroutine[Any, Any, Any]], Any]
DEFAULT_WIDTH = 420
ZOOM_STEP = 1.25
ZOOM_RANGE = (0.05, 16.0)


class ImageView(QScrollArea):
    """An image that fits the view, shows at 100 %, or zooms with the mouse wheel."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setAccessibleName(tr("Image"))
        self.label = QLabel(self)
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setWidget(self.label)
        self.image = QImage()
        self.zoom: float | None = None  # None: fit the view

    def set_image(self, image: QImage) -> None:
        """Show ``image`` fitted to the view."""
        self.image = image
        self.fit()

    def fit(self) -> None:
        """Scale the image to fit the view (never above 100 %)."""
        self.zoom = None
        self._show()

    def actual_size(self) -> None:
        """Show the image at 100 %."""
        self.zoom = 1.0
        self._show()

    def scale(self) -> float:
        """The scale shown now."""
        if self.zoom is not None or self.image.isNull():
            return self.zoom or 1.0
        room = self.viewport().size()
        return min(
            1.0,
            max(1, room.width() - 4) / max(1, self.image.width()),
            max(1, room.height() - 4) / max(1, self.image.height()),
        )

    def _show(self) -> None:
        if self.image.isNull():
            return
        scale = self.scale()
        size = self.image.size() * scale
        pixmap = QPixmap.fromImage(self.image).scaled(
            size, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation
        )
        self.label.setPixmap(pixmap)
        self.label.resize(pixmap.size())
        self.setAccessibleDescription(
            tr("{width} × {height} pixels, shown at {scale}").format(
                width=self.image.width(), height=self.image.height(), scale=f"{scale:.0%}"
            )
        )

    def wheelEvent(self, event: QWheelEvent) -> None:
        """The wheel zooms in and out (around the current scale)."""
        steps = event.angleDelta().y() / 120
        if not steps or self.image.isNull():
            return
        low, high = ZOOM_RANGE
        self.zoom = max(low, min(high, self.scale() * ZOOM_STEP**steps))
        self._show()
        event.accept()

    def resizeEvent(self, event: QResizeEvent) -> None:
        """A fitted image follows the view's size."""
        super().resizeEvent(event)
        if self.zoom is None:
            self._show()


class PreviewPage(QWidget):
    """One tab: a file's actions and its content.

    Signals:
        linkOpened(str): a link in a rendered Markdown file was clicked (``preview:`` for a
            local file, else a URL).
    """

    linkOpened = Signal(str)

    def __init__(self, path: Path, pane: PreviewPane) -> None:
        super().__init__(pane)
        self.path = path
        self.preview: Preview | None = None
        bar = QHBoxLayout()
        bar.setContentsMargins(6, 4, 6, 4)
        self.editor = QPushButton(tr("Open in editor"), self)
        self.editor.setAccessibleName(
            tr("Open {name} in the system's editor").format(name=path.name)
        )
        self.editor.clicked.connect(lambda: pane.open_url(QUrl.fromLocalFile(str(self.path))))
        self.folder = QPushButton(tr("Show in folder"), self)
        self.folder.setAccessibleName(tr("Show the folder of {name}").format(name=path.name))
        self.folder.clicked.connect(
            lambda: pane.open_url(QUrl.fromLocalFile(str(self.path.parent)))
        )
        self.fit = QToolButton(self)
        self.fit.setText(tr("Fit"))
        self.fit.setAccessibleName(tr("Fit the image to the pane"))
        self.actual = QToolButton(self)
        self.actual.setText("100 %")
        self.actual.setAccessibleName(tr("Show the image at 100 %"))
        self.info = QLabel("", self)
        self.info.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        for widget in (self.editor, self.folder, self.fit, self.actual):
            bar.addWidget(widget)
        bar.addStretch(1)
        bar.addWidget(self.info)
        self.text = QTextBrowser(self)
        self.text.setOpenLinks(False)
        self.text.setAccessibleName(tr("Contents of {name}").format(name=path.name))
        self.text.anchorClicked.connect(self._link)
        self.text.setPlainText(tr("Loading…"))
        self.image = ImageView(self)
        self.image.hide()
        self.fit.clicked.connect(self.image.fit)
        self.actual.clicked.connect(self.image.actual_size)
        self.fit.hide()
        self.actual.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(bar)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.image, 1)

    def _link(self, url: QUrl) -> None:
        href = url.toString()
        if href.startswith(COPY_CODE):  # a code block's "Copy" in rendered Markdown
            blocks = self.preview.code_blocks if self.preview is not None else ()
            index = int(href[len(COPY_CODE) :] or -1)
            if 0 <= index < len(blocks):
                QGuiApplication.clipboard().setText(blocks[index])
            return
        if url.isRelative() and not href.startswith(PREVIEW) and not href.startswith("#"):
            href = PREVIEW + str(self.path.parent / url.path())  # a sibling file
        self.linkOpened.emit(href)

    def show_preview(self, preview: Preview, image: QImage | None) -> None:
        """Show what was read (``image``: the decoded image of an image preview)."""
        self.preview = preview
        scrolled = self.text.verticalScrollBar().value()  # a file read again keeps its place
        colors = ChatColors.from_palette(self.palette())
        self.text.document().setDefaultStyleSheet(colors.css() + "pre { margin: 0; }")
        size = tr("{count} bytes").format(count=f"{preview.size:,}") if preview.size >= 0 else ""
        if preview.kind == "image":
            if image is None or image.isNull():
                self.text.setPlainText(tr("This image could not be decoded."))
                return
            self.text.hide()
            self.image.show()
            self.fit.show()
            self.actual.show()
            self.image.set_image(image)
            self.info.setText(f"{image.width()} × {image.height()} · {size}")
            return
        self.info.setText(size)
        for widget in (self.image, self.fit, self.actual):
            widget.hide()
        self.text.show()
        if preview.kind == "message":
            text, fields = preview.message_parts()
            self.text.setPlainText(tr(text).format(**fields))
        elif preview.html:
            self.text.setHtml(preview.html)
        else:
            self.text.setPlainText(preview.text)
            self.text.setFont(self._mono())
        self.text.verticalScrollBar().setValue(scrolled)

    def _mono(self) -> Any:
        font = self.text.font()
        font.setFamily("monospace")
        return font


class PreviewPane(QFrame):
    """Closable tabs of files opened read-only beside the chat.

    Args:
        base: The folder relative paths are read from (the agent's workspace).
        spawn: Starts a coroutine as a task its owner cancels and awaits.
        parent: Parent widget.

    Signals:
        opened(): the pane was shown (to give it its remembered width).
    """

    opened = Signal()

    def __init__(self, base: Callable[[], Path], spawn: Spawn, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("previewPane")
        self.setAccessibleName(tr("File preview"))
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.base = base
        self.spawn = spawn
        self.open_url: Callable[[QUrl], Any] = QDesktopServices.openUrl
        self.preferred_width = DEFAULT_WIDTH
        self.settings: PaneSettings | None = None
        title = QLabel("<b>{title}</b>".format(title=tr("Preview")), self)
        self.close_button = QToolButton(self)
        self.close_button.setText("✕")
        self.close_button.setToolTip(tr("Close the preview (Esc); Ctrl+W closes the tab"))
        self.close_button.setAccessibleName(tr("Close the preview"))
        self.close_button.clicked.connect(self.close_pane)
        head = QHBoxLayout()
        head.setContentsMargins(8, 4, 4, 0)
        head.addWidget(title)
        head.addStretch(1)
        head.addWidget(self.close_button)
        self.tabs = QTabWidget(self)
        self.tabs.setTabsClosable(True)
        self.tabs.setDocumentMode(True)
        self.tabs.setMovable(True)
        self.tabs.setAccessibleName(tr("Previewed files"))
        self.tabs.tabCloseRequested.connect(self.close_tab)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(head)
        layout.addWidget(self.tabs, 1)
        escape = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        escape.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        escape.activated.connect(self.close_pane)
        close_tab = QShortcut(QKeySequence("Ctrl+W"), self)
        close_tab.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        close_tab.activated.connect(lambda: self.close_tab(self.tabs.currentIndex()))
        self.hide()

    # -- opening --------------------------------------------------------------------------
    def open_href(self, href: str) -> None:
        """Open a ``preview:`` link (other links are left to the caller)."""
        path = preview_path(href)
        if path is not None:
            self.open_path(path)
        elif href.startswith("file:"):
            self.open_path(QUrl(href).toLocalFile())

    def page(self, index: int) -> PreviewPage | None:
        """The tab at ``index``."""
        widget = self.tabs.widget(index)
        return widget if isinstance(widget, PreviewPage) else None

    def pages(self) -> list[PreviewPage]:
        """Every open tab, in order."""
        return [p for i in range(self.tabs.count()) if (p := self.page(i)) is not None]

    def open_path(self, raw: str) -> PreviewPage:
        """Show the file ``raw`` names in a tab of its own; a file open already is read again
        (the agent may have changed it since) and its tab comes to the front."""
        path = resolve(raw, self.base())
        self.show()
        for page in self.pages():
            if page.path == path:
                self.tabs.setCurrentWidget(page)
                self.spawn(self._load(page))
                return page
        page = PreviewPage(path, self)
        page.linkOpened.connect(self._page_link)
        index = self.tabs.addTab(page, path.name or str(path))
        self.tabs.setTabToolTip(index, str(path))
        self.tabs.setCurrentIndex(index)
        self.spawn(self._load(page))
        return page

    async def _load(self, page: PreviewPage) -> None:
        from desktop.ui.chat.preview_files import read_preview  # the file tools: on first use

        theme = ChatColors.from_palette(self.palette()).markdown
        preview = await asyncio.to_thread(read_preview, str(page.path), self.base(), theme)
        image = None
        if preview.kind == "image":
            image = await asyncio.to_thread(QImage.fromData, preview.data)
        if page.parent() is not None:  # the tab may have been closed meanwhile
            page.show_preview(preview, image)

    def _page_link(self, href: str) -> None:
        if href.startswith((PREVIEW, "file:")):
            self.open_href(href)
        else:
            self.open_url(QUrl(href))

    # -- closing --------------------------------------------------------------------------
    def close_tab(self, index: int) -> None:
        """Close one tab (the pane closes with its last)."""
        page = self.tabs.widget(index)
        self.tabs.removeTab(index)
        if page is not None:
            page.setParent(None)
            page.deleteLater()
        if not self.tabs.count():
            self.close_pane()

    def showEvent(self, event: QShowEvent) -> None:
        """Say the pane is shown."""
        super().showEvent(event)
        self.opened.emit()

    def close_pane(self) -> None:
        """Hide the pane (Esc, its close button); its tabs stay for the next time."""
        self.hide()


class PaneSettings:
    """The pane's width and the diff setting, kept in ``desktop.json``.

    Args:
        tab: The chat tab (its services, conversation view and task owner).
        splitter: The splitter the pane sits in (last).
        pane: The preview pane.
    """

    def __init__(self, tab: ChatTab, splitter: QSplitter, pane: PreviewPane) -> None:
        self.tab, self.splitter, self.pane = tab, splitter, pane
        self.pending: list[int] = []
        pane.opened.connect(self.place)
        splitter.splitterMoved.connect(self.moved)
        tab._spawn(self.load())

    def place(self) -> None:
        """Give the shown pane its remembered width (at most half of the room)."""
        sizes = self.splitter.sizes()
        rest = sum(sizes[1:])
        width = min(self.pane.preferred_width, max(200, rest // 2))
        self.splitter.setSizes([sizes[0], max(300, rest - width), width])

    def moved(self, _pos: int, _index: int) -> None:
        """The person resized the pane: remember its width."""
        pane = self.pane
        if pane.isVisible() and pane.width() != pane.preferred_width:
            pane.preferred_width = pane.width()
            if not self.pending:
                self.tab._spawn(self.save())
            self.pending[:] = [pane.width()]

    async def save(self) -> None:
        """Write the width (one write at a time; a drag's last width wins)."""
        from desktop.core.config.edit import ChangeError  # pydantic: not before the window
        from desktop.ui.settings.prefs_access import update_prefs

        while self.pending:
            width = self.pending[-1]
            try:
                await update_prefs(self.tab.services, preview_width=width)
            except (ChangeError, OSError) as exc:
                log.warning("the preview width was not saved: %s", exc)
            if self.pending and self.pending[-1] == width:
                self.pending.clear()

    async def load(self) -> None:
        """Read the width and the diff setting; follow later changes of the diff setting."""
        from desktop.ui.settings.prefs_access import prefs_store

        store = await prefs_store(self.tab.services)
        view = self.tab.pane.view
        view.set_diff_mode(store.prefs.diff_display)
        self.pane.preferred_width = store.prefs.preview_width or DEFAULT_WIDTH

        def changed(names: set[str]) -> None:
            if "diff_display" in names:
                view.set_diff_mode(store.prefs.diff_display)

        unsubscribe = store.subscribe(changed)
        self.pane.destroyed.connect(lambda *_: unsubscribe())


def attach_preview(tab: ChatTab, splitter: QSplitter) -> PreviewPane:
    """Put a preview pane to the right of the chat in ``splitter`` and wire it: links in
    the conversation open in it, its width and the diff setting come from ``desktop.json``."""
    pane = PreviewPane(tab.working_folder, tab._spawn, splitter)
    splitter.addWidget(pane)
    splitter.setCollapsible(splitter.indexOf(pane), False)
    tab.pane.view.linkActivated.connect(pane.open_href)
    pane.settings = PaneSettings(tab, splitter, pane)
    return pane
