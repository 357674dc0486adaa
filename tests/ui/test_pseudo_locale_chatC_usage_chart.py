"""The spend chart (Settings › Usage) in the pseudo locale and in Chinese: its legend, scale
message, tooltips and description go through the translation system."""

from __future__ import annotations

from datetime import date

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.usage.summary import Totals
from desktop.ui import usage_chart
from desktop.ui.i18n import install_language
from desktop.ui.usage_chart import SpendChart
from tests.ui.chat.test_pseudo_locale_chatC import english_in, painted
from tests.ui.i18n.pseudo import pseudo_locale, untranslated

MONTH = date(2026, 3, 1)
DAYS = {
    date(2026, 3, 2): {"chat": Totals(3, 9000, 0.2), "dream": Totals(1, 4000, 0.1)},
    date(2026, 3, 9): {"heartbeat": Totals(1, 1500, 0.05), "my-script": Totals(1, 10, 0.0)},
    date(2026, 3, 12): {"subagent": Totals(1, 5, 0.0), "consolidation": Totals(1, 5, 0.0)},
    date(2026, 3, 20): {"title": Totals(1, 5, 0.0), "cron": Totals(1, 5, 0.0)},
}


def _chart(qtbot: QtBot) -> SpendChart:
    chart = SpendChart()
    qtbot.addWidget(chart)
    chart.resize(900, 260)
    return chart


def test_the_spend_chart_shows_no_untranslated_text(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Empty, then a month with every known source (and one unknown: its own name), in cost
    and in tokens; the legend, the tooltips and the description."""
    allow = ["my-script"]
    with pseudo_locale():
        chart = _chart(qtbot)
        chart.set_data({}, MONTH, "cost")
        assert untranslated(chart) == []
        assert "⟦No spend recorded yet⟧" in painted(chart, usage_chart, monkeypatch)
        for unit in ("cost", "tokens"):
            chart.set_data(DAYS, MONTH, unit)
            assert untranslated(chart, allow) == []
            drawn = painted(chart, usage_chart, monkeypatch)
            assert "⟦dream⟧" in drawn and english_in(drawn, allow) == []
            tips = [chart.day_text(day) for day in DAYS]
            assert english_in(tips, allow) == []


def test_the_spend_chart_speaks_chinese(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        assert install_language("zh_CN") == "zh_CN"
        chart = _chart(qtbot)
        chart.set_data(DAYS, MONTH, "tokens")
        assert chart.accessibleName() == "每日花费图表"
        assert chart.describe().startswith("2026年3月：4 天共 ")
        assert chart.day_text(date(2026, 3, 2)) == "3月2日\n聊天：9k\n梦境整理：4k"
        assert "梦境整理" in painted(chart, usage_chart, monkeypatch)
    finally:
        install_language("en")
