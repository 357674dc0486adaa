"""Settings › Usage & budgets in the pseudo locale, over the real ledger: the summary (sources
against budgets, top chats and jobs, unpriced models), the budget table, the presets, and the
save's messages; every text went through the translation system. In zh_CN it reads Chinese."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from desktop.core.usage.record import UsageRecord
from desktop.ui.i18n import install_language
from desktop.ui.services import AppServices
from desktop.ui.settings import SettingsTab
from desktop.ui.settings.budget_presets import PRESETS
from desktop.ui.settings.usage_page import UsagePage
from tests.conftest import write_config
from tests.core.usage.helpers import ledger_of
from tests.ui.conftest import run_async
from tests.ui.i18n.pseudo import pseudo_locale, untranslated
from tests.ui.settings.pages import page_of

# The jobs' names in the ledger are data (the person's job, the system's Dream job); the
# desktop channel's name is the channel forms' text (translated there); "$" figures are numbers.
DATA = ["standup", "dream", "Desktop"]


def skip(page: UsagePage) -> list[QWidget]:
    """The chart: ``desktop/ui/usage_chart.py`` is not this area's (its texts are its own)."""
    return [page.chart]


def _fill_ledger(services: AppServices) -> None:
    now = time.time() - 1
    ledger_of(services.config).extend(
        [
            UsageRecord(now, "chat", "m", 9000, 1000, cost_usd=0.2, session="desktop:a"),
            UsageRecord(now, "dream", "m", 4000, 1000, cost_usd=0.1, job="dream", phase=2),
            UsageRecord(now, "cron", "m", 1500, 500, job="standup"),  # no price: unpriced
            UsageRecord(now, "subagent", "m", 100, 50, cost_usd=0.01),
        ]
    )


def _open(make_tab: Callable[[], SettingsTab], qtbot: QtBot) -> UsagePage:
    tab = make_tab()
    tab.show_section("usage")
    page = page_of(tab, "usage", UsagePage)
    qtbot.waitUntil(lambda: "standup" in page.summary.text(), timeout=10_000)
    return page


def test_the_usage_page_shows_no_untranslated_text(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    services: AppServices,
    config_path: Path,
) -> None:
    write_config(
        config_path.parent / "desktop.json",
        {"budgets": {"overall": {"dailyUsd": 2}, "sources": {"dream": {"dailyTokens": 10000}}}},
    )
    _fill_ledger(services)
    with pseudo_locale():
        page = _open(make_tab, qtbot)
        text = page.summary.text()
        for part in ("Top chats", "Top jobs", "models without a known price", "of 10,000"):
            assert part in text  # each part of the summary is there (in brackets)
        found = untranslated(page, DATA, skip=skip(page))
        assert found == [], "\n".join(found)
        page.unit_box.setCurrentIndex(1)
        assert untranslated(page, DATA, skip=skip(page)) == []
        for preset in PRESETS:  # each preset's button, tooltip and what the page says
            page.apply_preset(preset)
            assert untranslated(page, DATA, skip=skip(page)) == []
        page.fields[("dream", "daily_tokens")].setText("lots")
        assert not run_async(qtbot, qloop, page.save())
        assert untranslated(page, [*DATA, "lots"], skip=skip(page)) == []
        page.fields[("dream", "daily_tokens")].setText("-5")
        assert not run_async(qtbot, qloop, page.save())
        assert untranslated(page, DATA, skip=skip(page)) == []
        page.fields[("dream", "daily_tokens")].setText("5000")  # not a preset: "your own"
        assert run_async(qtbot, qloop, page.save())
        assert untranslated(page, DATA, skip=skip(page)) == []


def test_the_usage_page_reads_chinese_in_zh_cn(
    make_tab: Callable[[], SettingsTab], qtbot: QtBot, services: AppServices
) -> None:
    _fill_ledger(services)
    try:
        assert install_language("zh_CN") == "zh_CN"
        page = _open(make_tab, qtbot)
        text = page.summary.text()
        assert "本月用量最多的聊天" in text and "梦境整理" in text
        assert page.preset_buttons["No limit"].text() == "不限制"
        assert page.hard_cap.text().startswith("达到上限时停止聊天")
    finally:
        install_language("en")
