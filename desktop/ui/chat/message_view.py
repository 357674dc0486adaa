"""The virtualised conversation view: only rows on screen are laid out and painted.

A :class:`MessageView` keeps one height per row (a cheap estimate until the row has been on
screen, then its measured height) and their running sums, so finding the rows under the
viewport is a binary search and a growing last row costs O(1). Rendered rows are cached by
(item version, width); a 10,000-message conversation is 10,000 small Python objects and no
widgets. While the view is scrolled to the bottom it stays there as rows grow; otherwise the
row at the top of the viewport stays put when rows above it are measured, and rows added
below show the "New messages ↓" chip (:mod:`desktop.ui.chat.jump_chip`).
"""

from __future__ import annotations

import bisect
import itertools
from collections import OrderedDict
from typing import Any

from PySide6.QtCore import QEvent, QModelIndex, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QCloseEvent,
    QFocusEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QResizeEvent,
)
from PySide6.QtWidgets import QAbstractScrollArea, QFrame, QWidget

from desktop.ui.chat import accessible
from desktop.ui.chat.colors import ChatColors
from desktop.ui.chat.items import ChatItem
from desktop.ui.chat.jump_chip import JumpChip, announce
from desktop.ui.chat.message_model import MessageModel
from desktop.ui.chat.read_aloud import ReadAloud
from desktop.ui.chat.row_layout import RowBuilder, RowLayout
from desktop.ui.chat.row_painter import PixelCache, paint_row, spinner_dirty_rect
from desktop.ui.chat.view_input import ViewInput
from desktop.ui.i18n import tr

TOP_PAD = 12.0
CACHE_ROWS = 300


class MessageView(ViewInput, QAbstractScrollArea):
    """Shows a :class:`MessageModel`; links, copy buttons, collapsible cards, text selection.

    Signals:
        linkActivated(str): a link in a message was clicked (also opened with
            ``QDesktopServices`` unless :attr:`open_links` is false).
        copied(str): something was put on the clipboard; the argument says what ("Code").
        painted(): a frame was painted (benchmarks measure time to first paint with it).
        editRequested(int): "Edit and resend" on the person's message in this row.
        regenerateRequested(): "Regenerate answer" on the last answer.
        versionRequested(int, int): show the previous (-1) or next (+1) version of the
            conversation from the message in this row ("‹ 2/3 ›", Left/Right, the menu).
        currentRowChanged(int): the keyboard moved to this row.
    """

    linkActivated = Signal(str)
    copied = Signal(str)
    painted = Signal()
    editRequested = Signal(int)
    regenerateRequested = Signal()
    versionRequested = Signal(int, int)
    currentRowChanged = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAccessibleName(tr("Conversation"))
        self.viewport().setMouseTracking(True)
        self.viewport().setAutoFillBackground(False)
        bar = self.verticalScrollBar()
        bar.setSingleStep(40)
        bar.valueChanged.connect(self._scrolled)
        self.open_links = True
        self.diff_mode = "inline"  # file changes in tool cards: summary, inline or collapsed
        self.reader = ReadAloud(self)
        self._model: MessageModel | None = None
        self._builder: RowBuilder | None = None
        self._heights: list[float] = []
        self._tops: list[float] = [0.0]
        self._dirty: int | None = None
        self._cache: OrderedDict[int, tuple[tuple[int, int], RowLayout]] = OrderedDict()
        self._pixels = PixelCache()
        self._thumbnails: dict[str, Any] = {}
        self._stick = True
        self._scroll_anchor = (0, 0.0)
        self._adjusting = False
        self._painting_all = False
        self._hover = -1
        self._current = -1  # the keyboard's row
        self._pressed: tuple[int, str, int] | None = None  # uid, href, part
        self._selection: tuple[int, int, int, int] | None = None  # uid, part, anchor, cursor
        self._selecting = False
        self._spin_angle = 0
        self._spinners: list[QRectF] = []
        self._spin = QTimer(self)
        self._spin.setInterval(80)
        self._spin.timeout.connect(self._turn_spinners)
        self.chip = JumpChip(self)
        self.chip.clicked.connect(self.scroll_to_bottom)
        accessible.install(MessageView)  # screen readers see one list item per message
        self.currentRowChanged.connect(lambda row: accessible.announce_focus(self, row))

    # -- model ----------------------------------------------------------------------------
    def model(self) -> MessageModel | None:
        """The shown model."""
        return self._model

    def setModel(self, model: MessageModel | None) -> None:
        """Show ``model`` (scrolled to its end)."""
        if self._model is not None:
            for signal, slot in self._connections():
                signal.disconnect(slot)
        self._model = model
        if model is not None:
            for signal, slot in self._connections():
                signal.connect(slot)
        self._reset()

    def _connections(self) -> list[tuple[Any, Any]]:
        assert self._model is not None
        model = self._model
        return [
            (model.modelReset, self._reset),
            (model.rowsInserted, self._inserted),
            (model.rowsRemoved, self._removed),
            (model.dataChanged, self._changed),
        ]

    def _items(self) -> list[ChatItem]:
        return self._model.items if self._model is not None else []

    def builder(self) -> RowBuilder:
        """The row builder for the current font and palette."""
        if self._builder is None:
            self._builder = RowBuilder(self.font(), ChatColors.from_palette(self.palette()))
            self._builder.thumbnails = self._thumbnails
            self._builder.diff_mode = self.diff_mode
        return self._builder

    def _width(self) -> float:
        return float(self.viewport().width())

    def _reset(self) -> None:
        builder, width = self.builder(), self._width()
        self._cache.clear()
        self._selection = None
        self._current = -1
        self._heights = builder.estimates(self._items(), width)
        self._tops = [0.0]
        self._dirty = 0
        self._stick = True
        self.chip.hide()
        self.viewport().update()

    def _inserted(self, parent: QModelIndex, first: int, last: int) -> None:
        builder, width, items = self.builder(), self._width(), self._items()
        self._heights[first:first] = builder.estimates(items[first : last + 1], width)
        self._mark(first)
        if not self._stick and last == len(items) - 1:
            self.chip.pop_up()  # new content below, out of sight

    def _removed(self, parent: QModelIndex, first: int, last: int) -> None:
        del self._heights[first : last + 1]
        if self._current >= first:
            self._current = -1 if self._current <= last else self._current - (last - first + 1)
        self._mark(first)

    def _changed(self, top_left: QModelIndex, bottom_right: QModelIndex, roles: Any = ()) -> None:
        self.viewport().update()

    def _mark(self, row: int) -> None:
        self._dirty = row if self._dirty is None else min(self._dirty, row)
        self.viewport().update()

    # -- geometry -------------------------------------------------------------------------
    def _sync(self) -> None:
        if self._dirty is None:
            return
        start = min(self._dirty, len(self._tops) - 1, len(self._heights))
        base = self._tops[start]
        del self._tops[start:]
        self._tops.extend(itertools.accumulate(self._heights[start:], initial=base))
        self._dirty = None

    def _total(self) -> float:
        return self._tops[-1] + TOP_PAD

    def _apply_scroll(self) -> None:
        bar = self.verticalScrollBar()
        height = self.viewport().height()
        maximum = max(0, int(self._total() - height + 0.5))
        self._adjusting = True
        try:
            bar.setRange(0, maximum)
            bar.setPageStep(max(1, height))
            if self._stick:
                bar.setValue(maximum)
            else:
                row, offset = self._scroll_anchor
                row = min(row, len(self._heights) - 1)
                bar.setValue(int(self._tops[row] + offset) if row >= 0 else 0)
        finally:
            self._adjusting = False

    def _scrolled(self, value: int) -> None:
        if self._adjusting:
            return
        bar = self.verticalScrollBar()
        self._stick = value >= bar.maximum() - 2
        if self._stick:
            self.chip.hide()
        row = max(0, bisect.bisect_right(self._tops, value) - 1)
        row = min(row, max(0, len(self._heights) - 1))
        self._scroll_anchor = (row, value - self._tops[row] if self._tops else 0.0)
        self.viewport().update()

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        """Scrolling repaints (rows are drawn at their offsets) — unless a full repaint is
        already under way (the paint itself moved the scroll position)."""
        if not self._painting_all:
            self.viewport().update()

    def _visible(self) -> range:
        value = self.verticalScrollBar().value() - TOP_PAD
        first = max(0, bisect.bisect_right(self._tops, value) - 1)
        last = bisect.bisect_left(self._tops, value + self.viewport().height())
        return range(first, min(len(self._heights), last + 1))

    def _layout(self, row: int) -> RowLayout:
        item = self._items()[row]
        key = (item.version, int(self._width()))
        cached = self._cache.get(item.uid)
        if cached is not None and cached[0] == key:
            self._cache.move_to_end(item.uid)
            return cached[1]
        layout = self.builder().build(item, self._width())
        self._cache[item.uid] = (key, layout)
        if len(self._cache) > CACHE_ROWS:
            self._cache.popitem(last=False)
        return layout

    def _measure(self) -> range:
        """Lay out the rows on screen, correcting estimates; returns the visible rows."""
        for _ in range(4):
            self._sync()
            self._apply_scroll()
            rows = self._visible()
            changed = False
            for row in rows:
                height = self._layout(row).height
                if abs(height - self._heights[row]) > 0.5:
                    self._heights[row] = height
                    self._dirty = row if self._dirty is None else min(self._dirty, row)
                    changed = True
            if not changed:
                return rows
        self._sync()
        self._apply_scroll()
        return self._visible()

    def _row_top(self, row: int) -> float:
        return self._tops[row] + TOP_PAD - self.verticalScrollBar().value()

    # -- painting -------------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:
        """Paint the rows that intersect the exposed area."""
        self._painting_all = event.rect().contains(self.viewport().rect())
        try:
            rows = self._measure() if self._model is not None else range(0)
        finally:
            self._painting_all = False
        colors = self.builder().colors
        painter = QPainter(self.viewport())
        clip = QRectF(event.rect())
        painter.fillRect(clip, colors.base)
        self._spinners = []
        items = self._items()
        ratio = self.viewport().devicePixelRatioF()
        for row in rows:
            layout = self._layout(row)
            top = self._row_top(row)
            spinner = spinner_dirty_rect(layout, top)
            if spinner is not None:
                self._spinners.append(spinner)
            if top > clip.bottom() or top + layout.height < clip.top():
                continue
            selection = None
            if self._selection is not None and self._selection[0] == items[row].uid:
                selection = self._selection[1:]
            paint_row(
                painter,
                layout,
                top,
                colors,
                clip=clip,
                hovered=row == self._hover,
                spin_angle=self._spin_angle,
                selection=selection,
                pixels=self._pixels,
                ratio=ratio,
            )
        current = self._current
        if self.hasFocus() and current in rows:
            ring = self.row_rect(current).adjusted(6, -5, -6, -6)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            painter.setPen(QPen(colors.accent, 2))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(ring, 6, 6)
        if not rows and self._model is not None and not items:
            painter.setPen(colors.muted)
            painter.drawText(
                self.viewport().rect(),
                Qt.AlignmentFlag.AlignCenter,
                tr("Start the conversation below."),
            )
        painter.end()
        if self._spinners and not self._spin.isActive():
            self._spin.start()
        elif not self._spinners:
            self._spin.stop()
        self.painted.emit()

    def _turn_spinners(self) -> None:
        self._spin_angle = (self._spin_angle + 30) % 360
        for rect in self._spinners:
            self.viewport().update(rect.toAlignedRect())

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Rows re-wrap at the new width (as they come on screen). A selection is kept: it
        is held as character positions in the row's text, which re-wrapping leaves alone (a
        scroll bar appearing after a search jump would otherwise drop the highlight)."""
        super().resizeEvent(event)
        self.viewport().update()

    def changeEvent(self, event: QEvent) -> None:
        """A new palette or font (light/dark switch) re-renders every row."""
        if event.type() in (
            QEvent.Type.PaletteChange,
            QEvent.Type.FontChange,
            QEvent.Type.StyleChange,
        ):
            self._builder = None
            self._cache.clear()
            self._pixels.clear()
            self.viewport().update()
        super().changeEvent(event)

    def set_diff_mode(self, mode: str) -> None:
        """Show file changes in tool cards as ``summary``, ``inline`` or ``collapsed``
        (:mod:`desktop.ui.chat.diff_view`); every row is laid out again."""
        self.diff_mode = mode
        self._builder = None
        self._cache.clear()
        self._pixels.clear()
        self._mark(0)
        self.viewport().update()

    def focusInEvent(self, event: QFocusEvent) -> None:
        """Keyboard focus lands on the newest message (or where it was)."""
        super().focusInEvent(event)
        if self.current_row() < 0 and self._items():
            self._current = len(self._items()) - 1
        self.viewport().update()

    def focusOutEvent(self, event: QFocusEvent) -> None:
        """The focus ring goes with the focus."""
        super().focusOutEvent(event)
        self.viewport().update()

    def closeEvent(self, event: QCloseEvent) -> None:
        """A view closed on its own (not inside a chat tab, which stops and awaits its reading)
        stops reading and its look-up of the synthesiser: no task outlives it unowned."""
        self.reader.close()
        super().closeEvent(event)

    # -- public helpers -------------------------------------------------------------------
    def reveal(self, row: int, *, highlight: str = "") -> None:
        """Scroll ``row`` near the top and put the keyboard on it; select the first
        occurrence of ``highlight`` in it (a search result)."""
        items = self._items()
        if not 0 <= row < len(items):
            return
        self._sync()
        self._current = row
        self._stick = False
        self._scroll_anchor = (row, -TOP_PAD)
        self._adjusting = True
        try:
            self.verticalScrollBar().setValue(int(self._tops[row]))
        finally:
            self._adjusting = False
        if highlight:
            for index, part in enumerate(self._layout(row).parts):
                cursor = part.doc.find(highlight, 0)
                if not cursor.isNull():
                    self._selection = (
                        items[row].uid,
                        index,
                        cursor.selectionStart(),
                        cursor.selectionEnd(),
                    )
                    break
        self.viewport().update()

    def scroll_to_bottom(self) -> None:
        """Jump to the newest row and follow new text."""
        self._stick = True
        self.chip.hide()
        self.viewport().update()

    def announce(self, text: str) -> None:
        """Have screen readers say ``text`` (politely)."""
        announce(self, text)

    def at_bottom(self) -> bool:
        """Whether the view follows the newest row."""
        return self._stick

    def visible_rows(self) -> range:
        """Rows currently on screen (lays them out)."""
        return self._measure()

    def layout_of(self, row: int) -> RowLayout:
        """The layout of ``row`` at the current width."""
        return self._layout(row)

    def row_rect(self, row: int) -> QRectF:
        """Viewport rectangle of ``row`` (call :meth:`visible_rows` first)."""
        return QRectF(0, self._row_top(row), self._width(), self._heights[row])

    def set_thumbnail(self, path: str, image: Any) -> None:
        """Show ``image`` for attachments at ``path`` (rows that have it are re-rendered)."""
        self._thumbnails[path] = image
        for item in self._items():
            if path in item.media:
                self._cache.pop(item.uid, None)
                item.touch()
        self.viewport().update()

    def warm_up(self) -> None:
        """Render a sample row once (markdown, Pygments, fonts) so the first real one is quick."""
        sample = ChatItem(
            "assistant",
            "**warm** `up` https://example.com\n\n```python\nx = 1\n```\n\n| a |\n|---|\n| 1 |",
        )
        self.builder().build(sample, max(400.0, self._width()))
