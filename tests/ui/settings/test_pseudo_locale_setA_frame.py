"""The Settings tab's frame in the pseudo locale (sidebar, config-file banner, the search box
and its results, every text translated) and in Chinese (the sidebar, and a search typed in
Chinese finds a setting by its translated label and jumps to it)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QListWidget, QWidget
from pytestqt.qtbot import QtBot

from desktop.ui.i18n import install_language
from desktop.ui.settings import SettingsTab
from desktop.ui.settings.channels_page import ChannelsPage
from tests.ui.conftest import run_async
from tests.ui.i18n.pseudo import _english, pseudo_locale, untranslated
from tests.ui.settings.pages import page_of

ITEM_ROLES = (
    Qt.ItemDataRole.DisplayRole,
    Qt.ItemDataRole.ToolTipRole,
    Qt.ItemDataRole.AccessibleTextRole,
    Qt.ItemDataRole.AccessibleDescriptionRole,
)


def _item_texts(view: QListWidget) -> Iterator[str]:
    """Every text a list's items show or tell a screen reader."""
    for row in range(view.count()):
        item = view.item(row)
        for role in ITEM_ROLES:
            value = item.data(role)
            if isinstance(value, str) and value:
                yield value


def untranslated_items(view: QListWidget, allow: list[str] | None = None) -> list[str]:
    """``untranslated()`` for a list widget's own texts and its items (the shared check walks
    item views by their header only)."""
    allowed = frozenset(allow or [])
    texts = [view.accessibleName(), view.toolTip(), *_item_texts(view)]
    return [text for text in texts if text and _english(text, allowed)]


def _frame_untranslated(tab: SettingsTab) -> list[str]:
    """What the frame shows untranslated: the tab's own widgets (the pages are checked by
    their own tests; other helpers' pages are not this test's) and its two lists."""
    lists = [tab.sidebar, tab.search.results]
    pages = list(tab.pages.values())
    # A page's menus are windows of their own (not inside the page for ``isAncestorOf``).
    windows = [w for page in pages for w in page.findChildren(QWidget) if w.isWindow()]
    return (
        untranslated(tab, skip=[*pages, *windows, *lists])
        + untranslated_items(tab.sidebar)
        + untranslated_items(tab.search.results)
    )


def test_the_settings_frame_shows_no_untranslated_text(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    config_path: Path,
) -> None:
    """The sidebar, the config-file banner, the search box with results and with none, and
    the outline of a found setting: every text went through the translation system."""
    with pseudo_locale():
        tab = make_tab()
        tab.show_section("channels")
        assert tab.sidebar.count() == 9
        assert _frame_untranslated(tab) == []
        config_path.write_text("[1, 2", encoding="utf-8")
        assert not run_async(qtbot, qloop, tab.check_config_file())
        assert tab.banner.isVisibleTo(tab)
        error = tab.banner_text.text()
        assert error.startswith("⟦The config file cannot be read:")
        core_error = error.removeprefix("⟦The config file cannot be read: ").split(". ")[0]
        assert untranslated(tab.banner, allow=[core_error]) == []
        tab.search.field.setText("send progress")
        qtbot.waitUntil(lambda: tab.search.results.count() > 0)
        first = tab.search.results.item(0).text()
        assert first.startswith("⟦Send progress messages while the agent works⟧\n⟦Channels⟧")
        assert _frame_untranslated(tab) == []
        found = tab.search.jump(tab.search.found[0])
        assert found is page_of(tab, "channels", ChannelsPage).send_progress
        assert tab.search.flash is not None
        assert untranslated(tab.search.flash) == []
        tab.search.field.setText("zzzz nothing like it")
        assert tab.search.none_found.isVisibleTo(tab)
        assert _frame_untranslated(tab) == []


def test_the_provider_and_channel_entries_of_the_search_are_translated(
    make_tab: Callable[[], SettingsTab],
) -> None:
    """The index the search builds without the pages (providers' and channels' fields): the
    labels and places this area writes are translated (the schema's own field titles are
    checked where they are marked)."""
    from desktop.ui.settings.search import _channel_entries, _provider_entries

    with pseudo_locale():
        tab = make_tab()
        entries = [*_provider_entries(), *_channel_entries(tab)]
    places = {entry.where for entry in entries}
    assert "⟦Channels⟧ › Telegram › ⟦Advanced⟧" in places
    assert "⟦Channels⟧ › Telegram › ⟦Who may talk to the agent⟧" in places
    assert "⟦Providers⟧ › OpenAI › ⟦Advanced⟧" in places
    brands = [entry.where.split(" › ")[1] for entry in entries]
    for entry in entries:
        assert _english(entry.where, frozenset(brands)) == "", entry.where
    provider_labels = {e.label for e in entries if e.where.startswith("⟦Providers⟧")}
    assert {"⟦API key⟧", "⟦API base⟧", "⟦Extra headers⟧", "⟦Models⟧"} <= provider_labels


def test_the_settings_frame_in_chinese_and_a_search_typed_in_chinese(
    make_tab: Callable[[], SettingsTab], qtbot: QtBot
) -> None:
    """With the real zh_CN translation: the sidebar and the search box speak Chinese, and a
    search for words of a translated label finds that setting and jumps to it."""
    assert install_language("zh_CN") == "zh_CN"
    try:
        tab = make_tab()
        tab.show_section("channels")
        names = [tab.sidebar.item(i).text() for i in range(tab.sidebar.count())]
        assert names[:2] == ["服务商", "智能体"] and "渠道" in names
        assert tab.search.field.placeholderText() == "搜索设置（Ctrl+F）"
        tab.search.field.setText("发送进度")
        qtbot.waitUntil(lambda: tab.search.results.count() > 0)
        assert tab.search.results.item(0).text() == "智能体工作时发送进度消息\n渠道"
        page = page_of(tab, "channels", ChannelsPage)
        target = tab.search.jump(tab.search.found[0])
        assert target is page.send_progress
        tab.search.field.setText("谁可以与智能体对话")
        qtbot.waitUntil(lambda: tab.search.results.count() > 0)
        places = {entry.where for entry in tab.search.found}
        assert "渠道 › Telegram › 谁可以与智能体对话" in places
        tab.search.field.setText("没有这种设置")
        assert tab.search.none_found.text() == "没有匹配的设置。"
        shown: QWidget = tab.search.none_found
        assert shown.isVisibleTo(tab)
    finally:
        install_language("en")
