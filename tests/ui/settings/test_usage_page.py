"""Settings › Usage & budgets: the chart and summary from the real ledger, budgets saved to
``desktop.json``."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from desktop.core.config.schema import Config
from desktop.core.session.manager import SessionManager
from desktop.core.usage.record import UsageRecord
from desktop.ui.channel_marks import channel_img_html
from desktop.ui.services import AppServices
from desktop.ui.settings.settings_tab import SettingsTab
from desktop.ui.settings.usage_page import UsagePage
from desktop.ui.usage_chart import COLOURS
from tests.conftest import write_config
from tests.core.usage.helpers import ledger_of, place_of


def _fill_ledger(config: Config) -> None:
    now = time.time() - 1
    ledger_of(config).extend(
        [
            UsageRecord(now, "chat", "m", 9000, 1000, cost_usd=0.2, session="desktop:a"),
            UsageRecord(now, "dream", "m", 4000, 1000, cost_usd=0.1, job="dream", phase=2),
            UsageRecord(now, "heartbeat", "m", 1500, 500, cost_usd=0.05, job="heartbeat"),
        ]
    )


def _has_colour(page: UsagePage, colour: str) -> bool:
    image = page.chart.grab().toImage()
    want = QColor(colour).rgb()
    return any(
        image.pixelColor(x, y).rgb() == want
        for x in range(0, image.width(), 2)
        for y in range(0, image.height(), 2)
    )


def test_usage_page_draws_the_month_and_saves_budgets(
    qtbot: QtBot,
    make_tab: Callable[[], SettingsTab],
    services: AppServices,
    config_path: Path,
) -> None:
    write_config(
        config_path.parent / "desktop.json",
        {"budgets": {"sources": {"dream": {"dailyTokens": 10000}}}, "theme": "kept"},
    )
    _fill_ledger(services.config)
    tab = make_tab()
    tab.show_section("usage")
    page = tab.page("usage")
    assert isinstance(page, UsagePage)
    qtbot.waitUntil(lambda: bool(page.chart.days), timeout=10_000)
    assert page.chart.sources() == ["chat", "dream", "heartbeat"]
    qtbot.waitUntil(lambda: _has_colour(page, COLOURS["dream"]), timeout=5_000)
    assert _has_colour(page, COLOURS["chat"]) and _has_colour(page, COLOURS["heartbeat"])
    text = page.summary.text()
    assert "17,000" in text  # today's total
    assert "50% of 10,000 tokens" in text  # Dream against its daily budget
    assert "deleted chat · Desktop" in text and "heartbeat" in text  # desktop:a has no file
    assert page.fields[("dream", "daily_tokens")].text() == "10000"

    def type_into(scope: str, key: str, text: str) -> None:
        field = page.fields[(scope, key)]
        field.selectAll()
        if text:
            qtbot.keyClicks(field, text)
        else:
            qtbot.keyClick(field, Qt.Key.Key_Delete)

    type_into("dream", "daily_tokens", "abc")
    assert page.dirty
    assert page.save_button is not None
    page.save_button.click()
    qtbot.waitUntil(lambda: page.status.kind == "error")
    assert "Dream Tokens / day" in page.status.text() and "not a number" in page.status.text()

    type_into("dream", "daily_tokens", "")
    type_into("overall", "monthly_usd", "$25")
    page.hard_cap.setChecked(True)
    page.save_button.click()
    qtbot.waitUntil(lambda: page.status.kind == "ok")
    saved = json.loads((config_path.parent / "desktop.json").read_text())
    assert saved["theme"] == "kept"  # unknown keys stay
    assert saved["budgets"]["overall"]["monthlyUsd"] == 25
    assert saved["budgets"]["sources"] == {}  # an emptied row is dropped
    assert saved["budgets"]["chatHardCap"] is True


def test_usage_page_says_when_the_ledger_lost_calls(
    qtbot: QtBot, make_tab: Callable[[], SettingsTab], services: AppServices
) -> None:
    """A ledger deleted behind the app's back is not "nothing spent": the page says so."""
    _fill_ledger(services.config)
    place = place_of(services.config)
    for path in place.folder.glob("ledger-*.jsonl"):
        path.unlink()
    tab = make_tab()
    tab.show_section("usage")
    page = tab.page("usage")
    assert isinstance(page, UsagePage)
    qtbot.waitUntil(lambda: "was deleted" in page.summary.text(), timeout=10_000)
    text = page.summary.text()
    assert "its 3 calls (17,000 tokens, $0.35) still count toward the budgets" in text


def test_usage_page_names_chats_by_their_titles(
    qtbot: QtBot,
    make_tab: Callable[[], SettingsTab],
    services: AppServices,
    config_path: Path,
) -> None:
    """Top chats read as the chat list shows them (title and channel), not as session ids
    like ``desktop:20261128-031553-578b97``."""
    desktop_key, telegram_key = "desktop:20261128-031553-578b97", "telegram:4242"
    sessions = SessionManager(services.workspace, config_dir=config_path.parent)
    renamed = sessions.get_or_create(desktop_key)
    renamed.add_message("user", "what should I pack for Lisbon?")
    sessions.save(renamed)
    sessions.rename(desktop_key, "Plan the Lisbon trip")
    untitled = sessions.get_or_create(telegram_key)
    untitled.add_message("user", "remind me to call the dentist")
    sessions.save(untitled)
    now = time.time() - 1
    ledger_of(services.config).extend(
        [
            UsageRecord(now, "chat", "m", 5000, 500, cost_usd=0.3, session=desktop_key),
            UsageRecord(now, "chat", "m", 2000, 200, cost_usd=0.1, session=telegram_key),
        ]
    )
    tab = make_tab()
    tab.show_section("usage")
    page = tab.page("usage")
    assert isinstance(page, UsagePage)
    qtbot.waitUntil(lambda: "Top chats" in page.summary.text(), timeout=10_000)
    text = page.summary.text()
    assert "Plan the Lisbon trip · Desktop — 5,500 tokens" in text
    assert "remind me to call the dentist · Telegram — 2,200 tokens" in text
    assert desktop_key not in text and telegram_key not in text
    # Each chat leads with its channel's mark.
    assert f"<li>{channel_img_html('desktop')} Plan the Lisbon trip" in text
    assert f"<li>{channel_img_html('telegram')} remind me to call the dentist" in text


def _set(limit: dict[str, Any]) -> dict[str, Any]:
    """A saved limit's set fields."""
    return {k: v for k, v in limit.items() if v is not None}


def test_budget_presets_fill_the_table_and_save_with_the_keyboard(
    qtbot: QtBot,
    make_tab: Callable[[], SettingsTab],
    config_path: Path,
) -> None:
    """A preset fills the budget table (other cells emptied) and marks the page changed; Save
    writes desktop.json. A million tokens reads back as ``1000000`` and saves again (it was
    shown as ``1e+06``, which does not parse); "No limit" empties every limit."""
    write_config(
        config_path.parent / "desktop.json",
        {"budgets": {"sources": {"consolidation": {"monthlyTokens": 777}}}},
    )
    tab = make_tab()
    tab.show_section("usage")
    page = tab.page("usage")
    assert isinstance(page, UsagePage)
    qtbot.waitUntil(lambda: page.fields[("consolidation", "monthly_tokens")].text() == "777")
    assert page.preset_note.text() == "Now: your own" and not page.dirty
    desktop_json = config_path.parent / "desktop.json"

    def choose(name: str) -> None:
        choice = page.preset_buttons[name]
        choice.setFocus()
        qtbot.waitUntil(choice.hasFocus)
        QTest.keyClick(choice, Qt.Key.Key_Space)

    def save() -> dict[str, Any]:
        assert page.dirty and page.save_button is not None and page.save_button.isEnabled()
        QTest.keyClick(page.save_button, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(lambda: page.status.kind == "ok" and not page.dirty)
        budgets: dict[str, Any] = json.loads(desktop_json.read_text())["budgets"]
        return budgets

    choose("About $20 a month")
    assert page.fields[("overall", "monthly_usd")].text() == "20"
    assert page.fields[("dream", "daily_tokens")].text() == "50000"
    assert page.fields[("consolidation", "monthly_tokens")].text() == ""
    assert page.preset_note.text() == "Now: About $20 a month"
    assert "Save" in page.status.text()
    saved = save()
    assert _set(saved["overall"]) == {"dailyUsd": 2, "monthlyUsd": 20}
    assert _set(saved["sources"]["dream"]) == {"dailyTokens": 50000}
    assert "consolidation" not in saved["sources"]

    choose("About $100 a month")
    assert _set(save()["sources"]["cron"]) == {"dailyTokens": 1_000_000}
    page.fields[("cron", "daily_tokens")].setText("")
    page.reload()  # from desktop.json
    qtbot.waitUntil(lambda: page.fields[("cron", "daily_tokens")].text() == "1000000")
    assert page.preset_note.text() == "Now: About $100 a month"
    type_into = page.fields[("overall", "monthly_usd")]
    type_into.selectAll()
    qtbot.keyClicks(type_into, "120")
    assert page.preset_note.text() == "Now: your own"
    saved = save()  # the million tokens parse back
    assert saved["overall"]["monthlyUsd"] == 120 and saved["sources"]["cron"]["dailyTokens"]

    choose("About $20 a month")
    assert page.status.kind == "info" and page.revert_button is not None
    QTest.keyClick(page.revert_button, Qt.Key.Key_Space)  # Revert: the saved values again
    qtbot.waitUntil(lambda: page.fields[("overall", "monthly_usd")].text() == "120")
    assert not page.dirty and page.status.kind == ""

    choose("No limit")
    assert all(not field.text() for field in page.fields.values())
    saved = save()
    assert _set(saved["overall"]) == {} and saved["sources"] == {}
