"""Temporary chats in the window (issue #25 §1): "New temporary chat" opens a chat marked as
such, which is answered like any other, stays in the list and keeps its rows while the window
lives (a list refresh or switching chats does not read it back from disk: it is not there), and
is gone for good when closed.

A real ChatTab and runtime on the scripted model server (the real LiteLLM path).
"""

from __future__ import annotations

import asyncio

from pytestqt.qtbot import QtBot

from desktop.core.session.temporary import is_temporary
from tests.fakes.openai_server import Reply
from tests.ui.chat.conftest import ChatHarness, MakeChat
from tests.ui.conftest import run_async


def test_a_temporary_chat_is_marked_answered_kept_while_shown_and_gone_when_closed(
    make_chat: MakeChat,
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
) -> None:
    chat: ChatHarness = make_chat()
    tab, pane = chat.tab, chat.tab.pane
    first = tab.current
    assert not pane.temporary.isVisible()
    tab.panel.temporary_button.click()
    chat.wait(lambda: tab.current != first and is_temporary(tab.current))
    key = tab.current
    assert pane.temporary.isVisible() and "nothing is saved" in pane.temporary.text()
    chat.server.push(Reply("An answer nobody will remember."))
    chat.send("a passing thought")
    chat.wait(lambda: chat.items() and chat.items()[-1].text == "An answer nobody will remember.")
    chat.idle()

    # Away and back, and a list refresh: the rows are the only copy, and they stay.
    tab.new_chat()
    chat.wait(lambda: tab.current != key)
    assert not pane.temporary.isVisible()
    run_async(qtbot, qloop, tab.list_controller.refresh())
    assert tab.sessions.entry(key) is not None
    tab.open_session(key)
    chat.wait(lambda: tab.current == key)
    assert [i.text for i in chat.items()] == [
        "a passing thought",
        "An answer nobody will remember.",
    ]
    assert pane.temporary.isVisible()

    sessions = chat.agent.sessions
    assert not sessions.path_for(key).exists()
    assert not [p for p in sessions.directory.iterdir() if "temp-" in p.name]
    assert sessions.cached(key)  # the agent holds it in memory meanwhile

    run_async(qtbot, qloop, tab.list_controller.delete(key))
    chat.wait(lambda: sessions.cached(key) is None)
    assert tab.sessions.entry(key) is None and tab.current != key
