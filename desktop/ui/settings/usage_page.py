"""Usage & budgets: spend per day stacked by source, the top sessions and jobs, this period
against the budgets, and the budgets themselves (``desktop.json``)."""

from __future__ import annotations

import asyncio
import html
from collections.abc import Mapping
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop.core.config.budgets import Budgets, Limit
from desktop.core.config.edit import ChangeError
from desktop.core.session.manager import SessionManager, SessionSummary
from desktop.core.usage.summary import Totals, UsageSummary, source_order
from desktop.ui.channel_marks import channel_img_html
from desktop.ui.i18n import QT_TR_NOOP, localized, tr
from desktop.ui.settings.budget_presets import PRESETS, BudgetPreset, cell_text, preset_matching
from desktop.ui.settings.channel_form import channel_title
from desktop.ui.settings.page import SettingsPage
from desktop.ui.settings.prefs_access import prefs_store, update_prefs
from desktop.ui.settings.widgets import button, heading, hint
from desktop.ui.usage_chart import SpendChart

if TYPE_CHECKING:
    from desktop.ui.services import AppServices

ROWS = (
    ("overall", QT_TR_NOOP("Everything")),
    ("chat", QT_TR_NOOP("Chat")),
    ("subagent", QT_TR_NOOP("Subagents")),
    ("dream", QT_TR_NOOP("Dream")),
    ("heartbeat", QT_TR_NOOP("Heartbeat")),
    ("cron", QT_TR_NOOP("Scheduled jobs")),
    ("consolidation", QT_TR_NOOP("Consolidation")),
)
COLUMNS = (
    ("daily_tokens", QT_TR_NOOP("Tokens / day")),
    ("monthly_tokens", QT_TR_NOOP("Tokens / month")),
    ("daily_usd", QT_TR_NOOP("$ / day")),
    ("monthly_usd", QT_TR_NOOP("$ / month")),
)
#: The ledger's sources as the summary names them (others: as the ledger names them).
SOURCE_NAMES = {
    "chat": QT_TR_NOOP("chat"),
    "subagent": QT_TR_NOOP("subagent"),
    "dream": QT_TR_NOOP("dream"),
    "heartbeat": QT_TR_NOOP("heartbeat"),
    "cron": QT_TR_NOOP("cron"),
    "consolidation": QT_TR_NOOP("consolidation"),
}


def _money(totals: Totals) -> str:
    return f"${totals.cost_usd:.2f}" + ("*" if totals.unpriced else "")


def _against(totals: Totals, limit: Limit, daily: bool) -> str:
    tokens = limit.daily_tokens if daily else limit.monthly_tokens
    usd = limit.daily_usd if daily else limit.monthly_usd
    parts = []
    if tokens:
        parts.append(
            tr("{share} of {limit} tokens").format(
                share=f"{totals.tokens / tokens:.0%}", limit=f"{tokens:,}"
            )
        )
    if usd:
        parts.append(
            tr("{share} of {limit}").format(share=f"{totals.cost_usd / usd:.0%}", limit=f"${usd:g}")
        )
    return ", ".join(parts) or "—"


def chat_name(key: str, titles: Mapping[str, SessionSummary] | None) -> str:
    """How the usage page names session ``key``: its title as the chat list shows it and the
    channel (``Plan the trip · Telegram``); a session no longer on disk: ``deleted chat``;
    ``titles`` unknown (the sessions could not be read): the key itself."""
    if titles is None:
        return key
    found = titles.get(key)
    channel = chat_channel(key, titles)
    where = channel_title(channel) if channel else ""
    title = found.title if found is not None else tr("deleted chat")
    return f"{title} · {where}" if where else title


def chat_channel(key: str, titles: Mapping[str, SessionSummary] | None) -> str:
    """The channel session ``key`` belongs to (``telegram``), or ``""`` when unknown."""
    channel = key.partition(":")[0] if ":" in key else ""
    found = titles.get(key) if titles is not None else None
    return (found.channel if found is not None else "") or channel


def summary_html(
    summary: UsageSummary,
    budgets: Budgets,
    titles: Mapping[str, SessionSummary] | None = None,
) -> str:
    """Today and this month per source against the budgets, then the top sessions (by their
    chat titles, see :func:`chat_name`) and jobs."""
    heads = (
        ("left", tr("Source")),
        ("right", tr("Today")),
        ("left", tr("against the day")),
        ("right", tr("This month")),
        ("left", tr("against the month")),
    )
    rows = [
        "<tr>"
        + "".join(f"<th align='{side}'>{html.escape(text)}</th>" for side, text in heads)
        + "</tr>"
    ]

    def row(name: str, today: Totals, month: Totals, limit: Limit) -> str:
        return (
            f"<tr><td>{html.escape(name)}</td>"
            f"<td align='right'>{today.tokens:,} · {_money(today)}</td>"
            f"<td>{_against(today, limit, True)}</td>"
            f"<td align='right'>{month.tokens:,} · {_money(month)}</td>"
            f"<td>{_against(month, limit, False)}</td></tr>"
        )

    rows.append(row(tr("Everything"), summary.today, summary.month, budgets.overall))
    rows.extend(
        row(
            tr(SOURCE_NAMES[source]) if source in SOURCE_NAMES else source,
            summary.today_by_source.get(source, Totals()),
            summary.month_by_source[source],
            budgets.limit_for(source),
        )
        for source in source_order(summary.month_by_source)
    )
    parts = [
        f"<p style='color:#c0392b'><b>⚠ {html.escape(localized(text))}</b></p>"
        for text in summary.warnings
    ]
    parts += ["<table cellspacing='0' cellpadding='3'>", *rows, "</table>"]
    sessions = [
        (chat_name(key, titles), t, chat_channel(key, titles)) for key, t in summary.top_sessions
    ]
    jobs = [(name, t, "") for name, t in summary.top_jobs]
    for title, ranked in (
        (tr("Top chats this month"), sessions),
        (tr("Top jobs this month"), jobs),
    ):
        if ranked:
            items = "".join(
                f"<li>{channel_img_html(channel) + ' ' if channel else ''}{html.escape(name)} — "
                + html.escape(tr("{count} tokens").format(count=f"{t.tokens:,}"))
                + f" · {_money(t)}</li>"
                for name, t, channel in ranked
            )
            parts.append(f"<p><b>{html.escape(title)}</b></p><ul>{items}</ul>")
    if summary.month.unpriced:
        note = tr("* models without a known price are not in the dollar figures.")
        parts.append(f"<p>{html.escape(note)}</p>")
    return "".join(parts)


def budget_name(row: str, column: str) -> str:
    """One budget field's name (``Dream Tokens / day``) from its row's and column's labels."""
    return tr("{row} {column}").format(row=tr(row), column=tr(column))


def _number(text: str, kind: type[int] | type[float], where: str) -> int | float | None:
    text = text.strip().replace(",", "").lstrip("$")
    if not text:
        return None
    try:
        value = kind(text)
    except ValueError:
        raise ChangeError(where, tr("“{text}” is not a number").format(text=text)) from None
    if value < 0:
        raise ChangeError(where, tr("must not be negative"))
    return value


class UsagePage(SettingsPage):
    """The Usage view and the budget settings."""

    section = "usage"
    title = QT_TR_NOOP("Usage & budgets")

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(
            services,
            parent,
            description=tr(
                "Every model call is counted in a ledger beside the config "
                "(usage/<workspace id>/ledger-*.jsonl), out of the agent's reach. Budgets "
                "pause Dream, the heartbeat, scheduled jobs and consolidation before they pass "
                "a limit and ask you; chats are warned, and stopped only with a hard cap."
            ),
        )
        add = self.body_layout.addWidget
        top = QHBoxLayout()
        top.addWidget(heading(tr("Spend per day"), level=2), 1)
        self.unit_box = QComboBox()
        self.unit_box.addItem(tr("Tokens"), "tokens")
        self.unit_box.addItem(tr("Cost ($)"), "cost")
        self.unit_box.setAccessibleName(tr("Chart shows"))
        self.unit_box.currentIndexChanged.connect(self._redraw)
        self.refresh_button = button(tr("Refresh"), tr("Refresh usage"))
        self.refresh_button.clicked.connect(self.load)
        top.addWidget(self.unit_box)
        top.addWidget(self.refresh_button)
        self.body_layout.addLayout(top)
        self.chart = SpendChart()
        add(self.chart)
        self.summary = QLabel(tr("Loading…"))
        self.summary.setWordWrap(True)
        self.summary.setAccessibleName(tr("Usage summary"))
        add(self.summary)

        add(heading(tr("Budgets"), level=2))
        add(hint(tr("Leave a field empty for no limit, or start from a preset on the right.")))
        budgets_row = QHBoxLayout()
        budgets_row.setSpacing(16)
        grid = QGridLayout()
        grid.setHorizontalSpacing(8)
        for c, (_key, label) in enumerate(COLUMNS, start=1):
            grid.addWidget(QLabel(tr(label)), 0, c)
        self.fields: dict[tuple[str, str], QLineEdit] = {}
        for r, (scope, label) in enumerate(ROWS, start=1):
            grid.addWidget(QLabel(tr(label)), r, 0)
            for c, (key, column) in enumerate(COLUMNS, start=1):
                field = QLineEdit()
                field.setPlaceholderText(tr("no limit"))
                field.setAccessibleName(budget_name(label, column))
                field.setMaximumWidth(110)
                grid.addWidget(field, r, c)
                self.fields[(scope, key)] = field
        budgets_row.addLayout(grid)
        budgets_row.addWidget(self._presets_box(), 0, Qt.AlignmentFlag.AlignTop)
        budgets_row.addStretch(1)  # fields and presets stay beside their labels
        self.body_layout.addLayout(budgets_row)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        self.warn_at = QSpinBox()
        self.warn_at.setRange(10, 100)
        self.warn_at.setSuffix(" %")
        self.warn_at.setAccessibleName(tr("Warn chats at"))
        self.warn_at.setMinimumWidth(110)
        self.hard_cap = QCheckBox(tr("Stop chats at the limit (hard cap) instead of only warning"))
        self.hard_cap.setAccessibleName(tr("Hard cap for chats"))
        self.runaway = QDoubleSpinBox()
        self.runaway.setRange(0, 100)
        self.runaway.setDecimals(1)
        self.runaway.setSuffix(tr(" × usual"))
        self.runaway.setSpecialValueText(tr("off"))
        self.runaway.setAccessibleName(tr("Stop a background run past"))
        self.runaway.setMinimumWidth(110)
        form.addRow(tr("Warn chats at"), self.warn_at)
        form.addRow("", self.hard_cap)
        form.addRow(tr("Stop a background run past"), self.runaway)
        self.body_layout.addLayout(form)
        self.body_layout.addStretch(1)
        self.watch(*self.fields.values(), self.warn_at, self.hard_cap, self.runaway)
        self._summary: UsageSummary | None = None
        self._titles: dict[str, SessionSummary] | None = None

    def _presets_box(self) -> QWidget:
        """A column of preset buttons beside the table, and which preset the table holds."""
        box = QFrame()
        box.setFrameShape(QFrame.Shape.StyledPanel)
        box.setAccessibleName(tr("Budget presets"))
        column = QVBoxLayout(box)
        column.setContentsMargins(10, 8, 10, 8)
        column.setSpacing(4)
        column.addWidget(heading(tr("Presets"), level=2))
        self.preset_buttons: dict[str, QPushButton] = {}
        for preset in PRESETS:
            choose = QPushButton(tr(preset.name))
            choose.setAccessibleName(tr("Budget preset: {name}").format(name=tr(preset.name)))
            choose.setToolTip(tr(preset.about))
            choose.setAutoDefault(False)
            choose.clicked.connect(lambda _checked=False, p=preset: self.apply_preset(p))
            column.addWidget(choose)
            self.preset_buttons[preset.name] = choose
        self.preset_note = QLabel()
        self.preset_note.setAccessibleName(tr("Budget preset in use"))
        self.preset_note.setWordWrap(True)
        self.preset_note.setMaximumWidth(200)
        column.addWidget(self.preset_note)
        for field in self.fields.values():
            field.textChanged.connect(self._name_preset)
        self._name_preset()
        return box

    def apply_preset(self, preset: BudgetPreset) -> None:
        """Fill the table with ``preset`` (other cells emptied); the page is then changed and
        Save keeps it."""
        for cell, field in self.fields.items():
            field.setText(cell_text(preset.values.get(cell)))
        self._set_dirty(True)
        self.status.info(
            tr("“{name}” filled in. Review the fields, then Save.").format(name=tr(preset.name))
        )

    def _name_preset(self, *_args: object) -> None:
        found = preset_matching({cell: field.text() for cell, field in self.fields.items()})
        self.preset_note.setText(
            tr("Now: {name}").format(name=tr(found.name))
            if found is not None
            else tr("Now: your own")
        )
        for name, choose in self.preset_buttons.items():
            font = choose.font()
            font.setBold(found is not None and found.name == name)
            choose.setFont(font)

    def load(self) -> None:
        """Read the budgets and the ledger (in the background)."""
        if self.status.kind == "info":  # "preset filled in": Revert drops it
            self.status.clear()
        self.spawn(self._load(), "load-usage")

    async def _load(self) -> None:
        store = await prefs_store(self.services)
        budgets = store.prefs.budgets
        self._loading = True
        try:
            self._fill(budgets)
        finally:
            self._loading = False
        self._set_dirty(False)
        self._summary = await self.services.usage_summary()
        self._titles = await self._chat_titles()
        self._redraw()

    async def _chat_titles(self) -> dict[str, SessionSummary] | None:
        """Every session's summary by key (the running agent's sessions, else the disk's)."""
        runtime = self.services.runtime
        manager = (
            runtime.sessions
            if runtime is not None
            else SessionManager(
                self.services.workspace, config_dir=self.services.config_path.parent
            )
        )
        try:
            summaries = await asyncio.to_thread(manager.summaries)
        except OSError:
            return None  # the page then names the sessions by their keys
        return {s.key: s for s in summaries}

    def _fill(self, budgets: Budgets) -> None:
        for (scope, key), field in self.fields.items():
            limit = budgets.overall if scope == "overall" else budgets.limit_for(scope)
            value = getattr(limit, key)
            field.setText(cell_text(value))
        self.warn_at.setValue(round(budgets.chat_warn_at * 100))
        self.hard_cap.setChecked(budgets.chat_hard_cap)
        self.runaway.setValue(budgets.runaway_multiple)

    def _redraw(self) -> None:
        summary = self._summary
        if summary is None:
            return
        budgets = self.services.prefs.prefs.budgets if self.services.prefs else Budgets()
        self.chart.set_data(summary.days, summary.now.date(), self.unit_box.currentData())
        self.summary.setText(summary_html(summary, budgets, self._titles))

    def budgets(self) -> Budgets:
        """The budgets the form holds.

        Raises:
            ChangeError: A field is not a number.
        """
        store = self.services.prefs
        current = store.prefs.budgets if store is not None else Budgets()
        data = current.model_copy(deep=True)
        for (scope, key), field in self.fields.items():
            kind = int if key.endswith("tokens") else float
            label = budget_name(dict(ROWS)[scope], dict(COLUMNS)[key])
            value = _number(field.text(), kind, label)
            limit = data.overall if scope == "overall" else data.sources.setdefault(scope, Limit())
            setattr(limit, key, value)
        data.sources = {k: v for k, v in data.sources.items() if not v.empty}
        data.chat_warn_at = self.warn_at.value() / 100
        data.chat_hard_cap = self.hard_cap.isChecked()
        data.runaway_multiple = self.runaway.value()
        return data

    async def save(self) -> bool:
        """Save the budgets to ``desktop.json`` (the governor reads them at its next check)."""
        try:
            await update_prefs(self.services, budgets=self.budgets())
        except ChangeError as exc:
            self.status.error(
                tr("{field}: {reason}. Nothing was saved.").format(
                    field=exc.path, reason=exc.reason
                )
            )
            return False
        except OSError as exc:
            self.status.error(tr("Not saved: {error}").format(error=exc.strerror or exc))
            return False
        self._set_dirty(False)
        self.status.ok(tr("Saved. Budgets apply from the next model call."))
        self._redraw()
        self.saved.emit()
        return True
