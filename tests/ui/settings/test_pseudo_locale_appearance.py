"""Settings › Appearance in the pseudo locale (every text translated) and its language choice."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

from pytestqt.qtbot import QtBot

from desktop.ui.settings import SettingsTab
from desktop.ui.settings.appearance_page import AppearancePage
from tests.ui.conftest import run_async
from tests.ui.i18n.pseudo import pseudo_locale, untranslated
from tests.ui.settings.pages import page_of


def test_the_appearance_page_shows_no_untranslated_text(
    make_tab: Callable[[], SettingsTab], qtbot: QtBot, qloop: asyncio.AbstractEventLoop
) -> None:
    with pseudo_locale():
        tab = make_tab()
        tab.show_section("appearance")
        page = page_of(tab, "appearance", AppearancePage)
        qtbot.waitUntil(lambda: page.theme_buttons["system"].isChecked())
        page.language.setCurrentIndex(page.language.findData("zh_CN"))
        assert run_async(qtbot, qloop, page.save())
        assert untranslated(page) == []


def test_the_language_is_saved_for_the_next_start(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    config_path: Path,
) -> None:
    """简体中文 is offered by its own name; choosing it saves ``language`` in desktop.json and
    says when it shows; the page reads it back."""
    tab = make_tab()
    tab.show_section("appearance")
    page = page_of(tab, "appearance", AppearancePage)
    qtbot.waitUntil(lambda: page.theme_buttons["system"].isChecked())
    names = [page.language.itemText(i) for i in range(page.language.count())]
    assert names == ["System default", "English", "简体中文"]
    page.language.setCurrentIndex(2)
    assert page.dirty
    assert run_async(qtbot, qloop, page.save())
    assert "next start" in page.status.text()
    prefs = json.loads((config_path.parent / "desktop.json").read_text(encoding="utf-8"))
    assert prefs["language"] == "zh_CN"
    page.language.setCurrentIndex(0)
    page.reload()
    qtbot.waitUntil(lambda: page.language.currentData() == "zh_CN" and not page.dirty)
