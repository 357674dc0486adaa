"""The provider layer (LiteLLM, ≈200 MB) loads when the person starts typing, not while the app
merely waits (it used to load 5 s after the agent was ready, whether or not a chat followed)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from pytestqt.qtbot import QtBot

from desktop.ui.startup import AgentStarter
from tests.ui.chat.conftest import ChatHarness
from tests.ui.conftest import run_async


def test_typing_the_first_letter_warms_the_provider_once(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, make_chat: Callable[..., ChatHarness]
) -> None:
    chat = make_chat(ready=False)
    starter = AgentStarter()
    chat.services.starter = starter
    edit = chat.tab.pane.composer.edit
    try:
        edit.setPlainText("")  # a draft cleared (switching chats): nothing is typed yet
        assert starter._warm is None
        edit.setEnabled(True)
        edit.setFocus()
        qtbot.keyClicks(edit, "h")
        warm = starter._warm
        assert warm is not None
        qtbot.keyClicks(edit, "ello")
        assert starter._warm is warm  # once
        warm.result(timeout=60)  # the import itself completes (a daemon thread)
    finally:
        run_async(qtbot, qloop, starter.stop())
