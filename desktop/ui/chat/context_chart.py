"""A chat's model calls round by round, drawn with QPainter in the usage page's style
(:mod:`desktop.ui.usage_chart`): input tokens per round (the cached part in its own colour
where the provider reported cache hits), output tokens beside them, the context window as a
dashed line and each compaction as a dashed mark between the rounds around it.

When more rounds exist than fit (a bar needs a few pixels) the latest ones are shown and the
chart says how many came before.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QHelpEvent, QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from desktop.core.usage.rounds import Round, SessionContext
from desktop.ui.i18n import QT_TR_NOOP, tr
from desktop.ui.usage_chart import _label, _nice_ceiling

INPUT = "#4C8BF5"
CACHED = "#2FB3A0"
OUTPUT = "#E0A030"
WINDOW = "#D64545"
COMPACTION = "#8E6CEF"
OUTCOMES = {"stopped": QT_TR_NOOP("stopped"), "failed": QT_TR_NOOP("failed")}
"""How a round that did not end well ended (others by their own name)."""
MIN_SLOT = 12.0
"""Pixels per round below which older rounds are left out."""


def tokens(value: float) -> str:
    """A token count the way the chart labels it (``1.2k``, ``3.4M``)."""
    return _label(value, "tokens")


def round_text(number: int, item: Round) -> str:
    """One round in words (tooltip, screen readers)."""
    head = tr("Round {number} · {model}").format(number=number, model=item.model)
    if item.outcome != "ok":
        outcome = OUTCOMES.get(item.outcome)
        head += tr(", {outcome}").format(outcome=tr(outcome) if outcome else item.outcome)
    if item.estimated:
        head += tr(", estimated")
    if item.cached_tokens:
        into = tr("input {tokens} ({cached} cached)").format(
            tokens=f"{item.prompt_tokens:,}", cached=f"{item.cached_tokens:,}"
        )
    else:
        into = tr("input {tokens}").format(tokens=f"{item.prompt_tokens:,}")
    out = tr("output {tokens}").format(tokens=f"{item.completion_tokens:,}")
    return f"{head}\n{into}\n{out}"


class ContextChart(QWidget):
    """Input and output tokens per round of one chat, the window line and compactions.

    Args:
        parent: Owner.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName(tr("Context per round chart"))
        self.setMinimumHeight(240)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMouseTracking(True)
        self.context = SessionContext("")
        self.window_tokens = 0
        self.first = 0  # index of the first round drawn
        self._bars: list[tuple[QRectF, int]] = []

    def sizeHint(self) -> QSize:
        """Wide and not too tall."""
        return QSize(640, 300)

    def set_data(self, context: SessionContext, window: int) -> None:
        """Show ``context``'s rounds against a ``window``-token context window (0: unknown)."""
        self.context, self.window_tokens = context, max(0, window)
        self.setAccessibleDescription(self.describe())
        self.update()

    def describe(self) -> str:
        """The chart in words."""
        rounds = self.context.rounds
        if not rounds:
            return tr("No rounds recorded yet")
        last = rounds[-1]
        fields = {
            "rounds": len(rounds),
            "tokens": f"{last.prompt_tokens:,}",
            "window": f"{self.window_tokens:,}",
            "output": f"{last.completion_tokens:,}",
            "compactions": len(self.context.compactions),
        }
        if self.window_tokens:
            return tr(
                "{rounds} round(s); last input {tokens} of {window} tokens, output {output}; "
                "{compactions} compaction(s)"
            ).format(**fields)
        return tr(
            "{rounds} round(s); last input {tokens} tokens, output {output}; "
            "{compactions} compaction(s)"
        ).format(**fields)

    # -- drawing ----------------------------------------------------------------------------
    def _legend(self) -> list[tuple[str, str, bool]]:
        items = [(tr("input"), INPUT, False)]
        if self.context.cached_reported:
            items.append((tr("cached input"), CACHED, False))
        items.append((tr("output"), OUTPUT, False))
        if self.window_tokens:
            items.append((tr("context window"), WINDOW, True))
        if self.context.compactions:
            items.append((tr("compaction"), COMPACTION, True))
        return items

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: C901  # one drawing pass
        """Legend, scale, bars, the window line and compaction marks."""
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        text = self.palette().color(QPalette.ColorRole.WindowText)
        faint = QColor(text)
        faint.setAlphaF(0.18)
        metrics = painter.fontMetrics()
        line = metrics.height()

        x = 4.0
        for name, colour, dashed in self._legend():
            if dashed:
                painter.setPen(QPen(QColor(colour), 2, Qt.PenStyle.DashLine))
                painter.drawLine(QPointF(x, 4 + line / 2), QPointF(x + line * 0.9, 4 + line / 2))
                x += line * 0.4
            else:
                painter.fillRect(QRectF(x, 4 + line / 4, line / 2, line / 2), QColor(colour))
            painter.setPen(text)
            painter.drawText(QPointF(x + line * 0.7, 4 + line * 0.8), name)
            x += line * 0.7 + metrics.horizontalAdvance(name) + line

        rounds = self.context.rounds
        top = 8 + line * 1.5
        peak = max((max(r.prompt_tokens, r.completion_tokens) for r in rounds), default=0)
        ceiling = _nice_ceiling(float(max(peak, self.window_tokens)))
        ticks = [tokens(ceiling * i / 4) for i in range(5)]
        axis_w = max(max(metrics.horizontalAdvance(t) for t in ticks), 24) + 8
        plot = QRectF(axis_w, top, self.width() - axis_w - 4, self.height() - top - line - 6)

        for i in range(5):
            y = plot.bottom() - plot.height() * i / 4
            painter.setPen(faint)
            painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
            painter.setPen(text)
            painter.drawText(
                QRectF(0, y - line / 2, axis_w - 6, line),
                int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
                ticks[i],
            )

        fit = max(1, int(plot.width() // MIN_SLOT))
        self.first = max(0, len(rounds) - fit)
        shown = rounds[self.first :]
        slot = plot.width() / max(len(shown), 1)
        bar_w = max(2.0, slot * 0.36)
        step = max(1, math.ceil(metrics.horizontalAdvance("0000") / max(slot, 1.0)))
        self._bars = []

        def height(value: int) -> float:
            return plot.height() * value / ceiling

        for offset, item in enumerate(shown):
            number = self.first + offset + 1
            left = plot.left() + slot * offset + slot * 0.12
            h_in = height(item.prompt_tokens)
            h_cached = height(item.cached_tokens)
            painter.fillRect(
                QRectF(left, plot.bottom() - h_in, bar_w, h_in - h_cached), QColor(INPUT)
            )
            if h_cached > 0:
                painter.fillRect(
                    QRectF(left, plot.bottom() - h_cached, bar_w, h_cached), QColor(CACHED)
                )
            h_out = height(item.completion_tokens)
            painter.fillRect(
                QRectF(left + bar_w, plot.bottom() - h_out, bar_w, h_out), QColor(OUTPUT)
            )
            self._bars.append(
                (QRectF(plot.left() + slot * offset, plot.top(), slot, plot.height()), number - 1)
            )
            if offset % step == 0 or offset == len(shown) - 1:
                painter.setPen(text)
                painter.drawText(
                    QRectF(left - slot, plot.bottom() + 2, 2 * bar_w + 2 * slot, line),
                    int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop),
                    str(number),
                )

        if self.window_tokens:
            y = plot.bottom() - height(self.window_tokens)
            painter.setPen(QPen(QColor(WINDOW), 2, Qt.PenStyle.DashLine))
            painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
            label = tr("window {tokens}").format(tokens=f"{self.window_tokens:,}")
            painter.drawText(
                QRectF(plot.left(), y + 2, plot.width() - 4, line),
                int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop),
                label,
            )

        for compaction in self.context.compactions:
            at = compaction.after - self.first
            if at < 0 or at > len(shown):
                continue
            cx = plot.left() + slot * at
            painter.setPen(QPen(QColor(COMPACTION), 2, Qt.PenStyle.DashLine))
            painter.drawLine(QPointF(cx, plot.top()), QPointF(cx, plot.bottom()))
            painter.setPen(QColor(COMPACTION))
            painter.drawText(QPointF(cx + 3, plot.top() + line), tr("compacted"))

        painter.setPen(text)
        if not rounds:
            painter.drawText(plot, int(Qt.AlignmentFlag.AlignCenter), tr("No rounds recorded yet"))
        elif self.first:
            painter.drawText(
                QRectF(plot.left() + 4, plot.top(), plot.width(), line),
                int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop),
                tr("(latest {shown} of {total} rounds)").format(
                    shown=len(shown), total=len(rounds)
                ),
            )
        painter.end()

    def event(self, event: QEvent) -> bool:
        """Tooltips: the hovered round's numbers."""
        if isinstance(event, QHelpEvent):
            pos = QPointF(event.pos())
            for rect, index in self._bars:
                if rect.contains(pos) and index < len(self.context.rounds):
                    text = round_text(index + 1, self.context.rounds[index])
                    QToolTip.showText(event.globalPos(), text, self)
                    return True
            QToolTip.hideText()
            return True
        return super().event(event)
