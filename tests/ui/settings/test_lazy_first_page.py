"""The Settings tab builds no page until it is shown (#26: the idle window starts on Chat)."""

from __future__ import annotations

import asyncio

from pytestqt.qtbot import QtBot

from desktop.ui.services import AppServices
from desktop.ui.settings import SettingsTab


def test_first_page_is_built_when_the_tab_is_first_shown(
    qtbot: QtBot, services: AppServices
) -> None:
    """A hidden Settings tab holds no page (the Providers page brings the HTTP and sign-in
    stacks into memory); shown, it opens on Providers as before."""
    tab = SettingsTab(services)
    qtbot.addWidget(tab)
    try:
        assert tab.pages == {}
        assert tab.current_section() == "providers"
        assert tab.stack.currentWidget() is None

        tab.resize(1024, 700)
        tab.show()
        assert list(tab.pages) == ["providers"]
        assert tab.stack.currentWidget() is tab.page("providers")
        tab.hide()
        tab.show()  # shown again: nothing more is built
        assert list(tab.pages) == ["providers"]
    finally:
        future = asyncio.ensure_future(tab.aclose())
        qtbot.waitUntil(future.done, timeout=30_000)
