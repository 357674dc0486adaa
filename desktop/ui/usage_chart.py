"""Spend per day stacked by source, drawn with QPainter (no plotting library: nothing to load
at start-up, a few kilobytes of memory).

:class:`SpendChart` shows one bar per day of a month, each split by source in a fixed colour
per source, with a legend, a y-axis scale and the day numbers underneath. ``unit`` is
``cost`` (dollars, LiteLLM's prices) or ``tokens``. Hovering a bar shows that day's numbers.
"""

from __future__ import annotations

import calendar
from datetime import date

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QHelpEvent, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from desktop.core.usage.summary import Totals, source_order
from desktop.ui.dates import day_month, month_year
from desktop.ui.i18n import QT_TR_NOOP, tr

COLOURS = {
    "chat": "#4C8BF5",
    "subagent": "#8E6CEF",
    "title": "#9AA5B1",
    "consolidation": "#E0A030",
    "dream": "#D9548C",
    "heartbeat": "#2FB3A0",
    "cron": "#E86F3A",
}
OTHER = "#7F8C8D"
SOURCE_NAMES = {
    "chat": QT_TR_NOOP("chat"),
    "subagent": QT_TR_NOOP("subagent"),
    "title": QT_TR_NOOP("title"),
    "consolidation": QT_TR_NOOP("consolidation"),
    "dream": QT_TR_NOOP("dream"),
    "heartbeat": QT_TR_NOOP("heartbeat"),
    "cron": QT_TR_NOOP("cron"),
}
"""What the chart calls each known source (others by their own name)."""
Days = dict[date, dict[str, Totals]]


def colour_of(source: str) -> QColor:
    """The colour of ``source`` in the chart and its legend."""
    return QColor(COLOURS.get(source, OTHER))


def source_name(source: str) -> str:
    """``source`` as the chart names it, in the window's language."""
    name = SOURCE_NAMES.get(source)
    return tr(name) if name is not None else source


def _value(totals: Totals, metric: str) -> float:
    return totals.cost_usd if metric == "cost" else float(totals.tokens)


def _label(value: float, metric: str) -> str:
    if metric == "cost":
        return f"${value:.2f}" if value >= 0.1 or value == 0 else f"${value:.3f}"
    if value >= 1_000_000:
        return f"{value / 1_000_000:.1f}M"
    return f"{value / 1000:.0f}k" if value >= 1000 else f"{value:.0f}"


def _tick(value: float, ceiling: float, unit: str) -> str:
    """A scale label; dollar labels share one number of decimals."""
    if unit == "cost":
        return f"${value:.2f}" if ceiling >= 0.2 else f"${value:.3f}"
    return _label(value, unit)


def _nice_ceiling(value: float) -> float:
    """A round number ≥ ``value`` for the top of the scale."""
    if value <= 0:
        return 1.0
    step = 10 ** (len(str(int(value))) - 1) if value >= 1 else 0.01
    while step * 10 < value:
        step *= 10
    for factor in (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
        if step * factor >= value:
            return step * factor
    return step * 10


class SpendChart(QWidget):
    """A month of spend per day, stacked by source.

    Args:
        parent: Owner.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName(tr("Spend per day chart"))
        self.setMinimumHeight(220)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.setMouseTracking(True)
        self.days: Days = {}
        self.month = date.today().replace(day=1)
        self.unit = "tokens"
        self._bars: list[tuple[QRectF, date]] = []

    def sizeHint(self) -> QSize:
        """Wide and not too tall."""
        return QSize(640, 260)

    def set_data(self, days: Days, month: date, unit: str) -> None:
        """Show ``days`` (``{day: {source: totals}}``) of ``month`` as ``cost`` or ``tokens``."""
        self.days, self.month, self.unit = days, month.replace(day=1), unit
        self.setAccessibleDescription(self.describe())
        self.update()

    def sources(self) -> list[str]:
        """The sources present, in legend order."""
        return source_order({s for parts in self.days.values() for s in parts})

    def describe(self) -> str:
        """The chart in words (screen readers, tooltips)."""
        total = sum(_value(t, self.unit) for p in self.days.values() for t in p.values())
        names = tr(", ").join(source_name(s) for s in self.sources()) or tr("none")
        return tr("{month}: {total} over {days} day(s), by source: {sources}").format(
            month=month_year(self.month),
            total=_label(total, self.unit),
            days=len(self.days),
            sources=names,
        )

    # -- drawing ----------------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:
        """Legend, scale, bars and day numbers."""
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        text = palette.color(QPalette.ColorRole.WindowText)
        faint = QColor(text)
        faint.setAlphaF(0.18)
        metrics = painter.fontMetrics()
        line = metrics.height()
        sources = self.sources()

        # Legend across the top.
        x = 4.0
        for source in sources:
            name = source_name(source)
            painter.fillRect(QRectF(x, 4 + line / 4, line / 2, line / 2), colour_of(source))
            painter.setPen(text)
            painter.drawText(QPointF(x + line * 0.7, 4 + line * 0.8), name)
            x += line * 0.7 + metrics.horizontalAdvance(name) + line
        top = 8 + line * 1.5
        days_in_month = calendar.monthrange(self.month.year, self.month.month)[1]
        totals = {
            day: sum(_value(t, self.unit) for t in parts.values())
            for day, parts in self.days.items()
        }
        ceiling = _nice_ceiling(max(totals.values(), default=0.0))
        ticks = [_tick(ceiling * i / 4, ceiling, self.unit) for i in range(5)]
        axis_w = max(max(metrics.horizontalAdvance(t) for t in ticks), 24) + 8
        plot = QRectF(axis_w, top, self.width() - axis_w - 4, self.height() - top - line - 6)

        # Scale: four grid lines with labels.
        for i in range(5):
            y = plot.bottom() - plot.height() * i / 4
            painter.setPen(faint)
            painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
            painter.setPen(text)
            label = ticks[i]
            painter.drawText(
                QRectF(0, y - line / 2, axis_w - 6, line),
                int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
                label,
            )

        # Bars, one per day, stacked in legend order.
        slot = plot.width() / days_in_month
        bar_w = max(2.0, slot * 0.7)
        self._bars = []
        for n in range(1, days_in_month + 1):
            day = self.month.replace(day=n)
            left = plot.left() + slot * (n - 1) + (slot - bar_w) / 2
            y = plot.bottom()
            for source in sources:
                part = self.days.get(day, {}).get(source)
                if part is None:
                    continue
                h = plot.height() * _value(part, self.unit) / ceiling
                if h <= 0:
                    continue
                painter.fillRect(QRectF(left, y - h, bar_w, h), colour_of(source))
                y -= h
            self._bars.append((QRectF(left, plot.top(), bar_w, plot.height()), day))
            if n == 1 or n % 5 == 0 or n == days_in_month:
                painter.setPen(text)
                painter.drawText(
                    QRectF(left - slot, plot.bottom() + 2, bar_w + 2 * slot, line),
                    int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop),
                    str(n),
                )
        if not self.days:
            painter.setPen(text)
            painter.drawText(plot, int(Qt.AlignmentFlag.AlignCenter), tr("No spend recorded yet"))
        painter.end()

    def day_text(self, day: date) -> str:
        """One day's spend per source, in lines (the bar's tooltip)."""
        parts = self.days.get(day, {})
        rows = [
            tr("{source}: {amount}").format(
                source=source_name(s), amount=_label(_value(parts[s], self.unit), self.unit)
            )
            for s in source_order(parts)
        ]
        return "\n".join([day_month(day), *rows])

    def event(self, event: QEvent) -> bool:
        """Tooltips: the hovered day's spend per source."""
        if isinstance(event, QHelpEvent):
            pos = QPointF(event.pos())
            for rect, day in self._bars:
                if rect.contains(pos) and day in self.days:
                    QToolTip.showText(event.globalPos(), self.day_text(day), self)
                    return True
            QToolTip.hideText()
            return True
        return super().event(event)
