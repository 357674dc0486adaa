"""Search over all settings (Ctrl+F in Settings), driven with the keyboard only: a field under a
channel's closed Advanced, a provider's endpoint, a field of the tab's own pages; each jump
shows the page, opens the section, focuses the field and outlines it for a moment."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QScrollArea, QWidget
from pytestqt.qtbot import QtBot

from desktop.core.config import secret_fields
from desktop.core.config.provider_registry import PROVIDERS
from desktop.ui.settings import SettingsTab
from desktop.ui.settings.channel_form import channel_title, field_label
from desktop.ui.settings.channels_page import ChannelsPage
from desktop.ui.settings.providers_page import ProvidersPage
from desktop.ui.settings.search import build_index, find
from desktop.ui.settings.usage_page import UsagePage


def _search(qtbot: QtBot, tab: SettingsTab, query: str) -> None:
    """Ctrl+F from wherever the focus is in the tab, then type ``query``.

    The window is made active first: under the offscreen platform, showing the Channels page
    leaves no window active (seen before this change too), and shortcuts need one."""
    tab.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is tab)
    start = tab.focusWidget()
    assert start is not None and tab.isAncestorOf(start)
    QTest.keyClick(start, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(tab.search.field.hasFocus)
    QTest.keyClicks(tab.search.field, query)  # replaces the selected old query


def _down_to(qtbot: QtBot, tab: SettingsTab, wanted: str) -> None:
    """Press Down in the box until the current result's text holds ``wanted``."""
    results = tab.search.results
    for _ in range(results.count()):
        item = results.currentItem()
        if item is not None and wanted in item.text().replace("\n", " · "):
            return
        QTest.keyClick(tab.search.field, Qt.Key.Key_Down)
    raise AssertionError(
        f"{wanted!r} not among {[results.item(i).text() for i in range(results.count())]}"
    )


def _focused(qtbot: QtBot, widget: QWidget) -> None:
    """``widget`` holds the window's focus."""
    qtbot.waitUntil(lambda: widget.window().focusWidget() is widget)


def _in_view(widget: QWidget) -> bool:
    """``widget`` lies inside the visible part of every scroll area around it."""
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QScrollArea):
            viewport = parent.viewport()
            top_left = widget.mapTo(viewport, widget.rect().topLeft())
            if not viewport.rect().contains(top_left):
                return False
        parent = parent.parentWidget()
    return True


def test_ctrl_f_finds_and_jumps_to_fields_on_every_kind_of_page(
    make_tab: Callable[[], SettingsTab], qtbot: QtBot
) -> None:
    tab = make_tab()
    tab.activateWindow()
    tab.sidebar.setFocus()
    qtbot.waitUntil(tab.sidebar.hasFocus)

    # A channel field under the closed Advanced section.
    _search(qtbot, tab, "proxy")
    assert not tab.sidebar.isVisible() and tab.search.results.isVisible()
    _down_to(qtbot, tab, "Proxy · Channels › Telegram › Advanced")
    QTest.keyClick(tab.search.field, Qt.Key.Key_Return)
    channels = tab.page("channels")
    assert isinstance(channels, ChannelsPage) and tab.current_section() == "channels"
    form = channels.forms["telegram"]
    assert channels.list.currentItem().text() == "Telegram"
    proxy = form.controls["proxy"]
    _focused(qtbot, proxy)
    assert form.advanced.is_open and proxy.isVisible() and _in_view(proxy)
    flash = tab.search.flash
    assert flash is not None and flash.isVisible() and flash.parentWidget() is proxy
    qtbot.waitUntil(lambda: tab.search.flash is None, timeout=5_000)  # outlined for a moment

    # A provider's endpoint (Advanced), found by provider name and field together.
    _search(qtbot, tab, "openrouter api base")
    first = tab.search.results.currentItem()
    assert first is not None and first.text() == "API base\nProviders › OpenRouter › Advanced"
    QTest.keyClick(tab.search.field, Qt.Key.Key_Return)
    providers = tab.page("providers")
    assert isinstance(providers, ProvidersPage) and tab.current_section() == "providers"
    panel = providers.panels["openrouter"]
    _focused(qtbot, panel.api_base)
    assert panel.advanced.is_open and panel.isVisible() and _in_view(panel.api_base)

    # A key, found by the words of its help ("how to get a key").
    _search(qtbot, tab, "anthropic console")
    _down_to(qtbot, tab, "API key · Providers › Anthropic")
    QTest.keyClick(tab.search.field, Qt.Key.Key_Return)
    anthropic_key = providers.panels["anthropic"].key
    assert anthropic_key is not None
    _focused(qtbot, anthropic_key.edit)

    # A field of one of the tab's own pages, by its label.
    _search(qtbot, tab, "hard cap")
    _down_to(qtbot, tab, "Usage & budgets")
    QTest.keyClick(tab.search.field, Qt.Key.Key_Return)
    usage = tab.page("usage")
    assert isinstance(usage, UsagePage) and tab.current_section() == "usage"
    _focused(qtbot, usage.hard_cap)

    # Nothing found says so; Escape empties the box and brings the sections back.
    _search(qtbot, tab, "zzqx nothing")
    assert tab.search.none_found.isVisible() and not tab.search.results.isVisible()
    QTest.keyClick(tab.search.field, Qt.Key.Key_Escape)
    assert tab.search.field.text() == "" and tab.sidebar.isVisible()
    assert not tab.search.none_found.isVisible()


def test_the_index_covers_every_channel_and_provider_field(
    make_tab: Callable[[], SettingsTab],
) -> None:
    """Every field of every channel form (built here to compare) is in the index, and every
    provider's key or account; labels ranked before help-text matches."""
    tab = make_tab()
    entries = build_index(tab)
    channels = tab.page("channels")
    assert isinstance(channels, ChannelsPage)
    places = {
        (e.label, e.where.split(" › ")[1]) for e in entries if e.where.startswith("Channels › ")
    }
    for name in secret_fields.channel_names():
        form = channels.form(name)
        model = form.model
        for field in [*form.controls, *form.keys]:
            info = model.model_fields[field]
            assert (info.title or field_label(field), channel_title(name)) in places
    found = find(entries, "bot token")
    assert found[0].label == "Bot token"
    providers = {e.where for e in entries if e.label in ("API key", "Account")}
    assert len(providers) == len(PROVIDERS)
