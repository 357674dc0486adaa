"""Archiving a chat into memory from the window: the ⋯ menu's "Archive into memory now" and
``/new`` (nanobot's semantics: the chat's messages not yet in memory go to history.jsonl through
the Consolidator), against the real agent on the scripted server."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from desktop.core.memory.store import MemoryStore
from tests.fakes.openai_server import Reply
from tests.ui.chat.conftest import ChatHarness, MakeChat


def test_archive_now_and_new_put_the_chat_into_memory(
    make_chat: MakeChat, qtbot: QtBot, workspace: Path
) -> None:
    chat: ChatHarness = make_chat()
    chat.server.push(Reply("Paris."))
    chat.send("capital of France?")
    chat.idle()
    first = chat.tab.current
    archiver = chat.tab.archiver
    assert archiver.action in chat.tab.pane.more.menu().actions()
    assert archiver.action.text() == "Archive into memory now"

    chat.server.push(Reply("- The person asked for the capital of France (Paris)."))
    with qtbot.waitSignal(archiver.archived, timeout=20_000) as done:
        archiver.action.trigger()
    assert done.args == [first, 2]
    notice = chat.tab.pane.copied
    assert notice.isVisible() and notice.text().startswith("2 messages summarised into memory")
    store = MemoryStore(workspace)
    assert [e.content for e in store.entries()] == [
        "- The person asked for the capital of France (Paris)."
    ]
    with qtbot.waitSignal(archiver.archived, timeout=20_000) as again:
        archiver.action.trigger()
    assert again.args == [first, 0] and notice.text().startswith("Nothing new to archive")

    chat.server.push(Reply("Berlin."))
    chat.send("and Germany?")
    chat.idle()
    chat.server.push(Reply("- Then for Germany's (Berlin)."))
    with qtbot.waitSignal(archiver.archived, timeout=20_000) as new:
        chat.send("/new")
    assert new.args == [first, 2]
    assert chat.tab.current != first, "a new chat opened"
    assert chat.tab.sessions.entry(first) is not None, "the old chat stays in the list"
    assert len(store.entries()) == 2
    session = chat.agent.sessions.get_or_create(first)
    assert len(session.messages) == 4 and session.last_consolidated == 4
