"""The chat list: activity order, channels, new, rename, delete with undo, search; and the
session-manager operations behind it (summaries, search, set aside/restore, retry)."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from desktop.core.session.manager import SessionManager
from tests.typed import present
from tests.ui.chat.conftest import ChatHarness, MakeChat, session_path, write_session


def _seed(workspace: Path) -> None:
    write_session(
        workspace,
        "desktop:old",
        [{"role": "user", "content": "old desktop question"}],
        updated="2024-01-01T09:00:00",
    )
    write_session(
        workspace,
        "telegram:42",
        [
            {"role": "user", "content": "hello from the phone"},
            {"role": "assistant", "content": "the zebra answer"},
        ],
        updated="2024-03-01T09:00:00",
    )
    write_session(
        workspace,
        "cli:direct",
        [{"role": "user", "content": "terminal chat"}],
        updated="2024-02-01T09:00:00",
        title="Terminal work",
    )


def test_list_is_sorted_by_activity_and_marks_channels(
    make_chat: MakeChat, workspace: Path
) -> None:
    """Newest first; other channels carry their channel; titles fall back to the first message;
    the newest desktop chat opens at start."""
    _seed(workspace)
    chat: ChatHarness = make_chat()
    chat.wait(lambda: len(chat.tab.sessions.shown_keys()) == 3)
    keys = chat.tab.sessions.shown_keys()
    assert keys == ["telegram:42", "cli:direct", "desktop:old"]
    entries = [chat.tab.sessions.entry(k) for k in keys]
    assert [present(e).channel for e in entries] == ["telegram", "cli", "desktop"]
    assert [present(e).title for e in entries] == [
        "hello from the phone",
        "Terminal work",
        "old desktop question",
    ]
    assert chat.tab.current == "desktop:old"
    index = chat.tab.sessions.index(0)
    assert "telegram" in index.data(Qt.ItemDataRole.AccessibleTextRole)
    chat.tab.open_session("telegram:42")
    chat.wait(lambda: present(chat.tab.pane.view.model()).rowCount() == 2)
    assert chat.tab.pane.channel.text() == "from telegram"


def test_new_chat_rename_and_activity(make_chat: MakeChat, workspace: Path, qtbot: QtBot) -> None:
    """new_chat() adds a draft on top; the first message titles it; rename persists the title
    in the session metadata."""
    from tests.fakes.openai_server import Reply

    _seed(workspace)
    chat: ChatHarness = make_chat()
    chat.wait(lambda: chat.tab.current == "desktop:old")
    chat.tab.new_chat()
    chat.wait(lambda: chat.tab.current != "desktop:old")
    key = chat.tab.current
    assert key.startswith("desktop:") and chat.tab.sessions.shown_keys()[0] == key
    assert present(chat.tab.sessions.entry(key)).draft
    chat.tab.new_chat()  # still empty: no second draft
    assert chat.tab.current == key and len(chat.tab.sessions.all_keys()) == 4
    chat.server.push(Reply("Sure."))
    chat.send("plan my week")
    chat.idle()
    entry = chat.tab.sessions.entry(key)
    assert entry is not None and not entry.draft and entry.title == "plan my week"
    chat.tab.sessions.setData(chat.tab.sessions.index(chat.tab.sessions.row_of(key)), "Week plan")
    chat.wait(lambda: present(chat.tab.sessions.entry(key)).title == "Week plan")
    path = session_path(workspace, key)
    chat.wait(
        lambda: json.loads(path.read_text().splitlines()[0])["metadata"].get("title") == "Week plan"
    )
    chat.wait(lambda: chat.tab.sessions.shown_keys()[0] == key)


def test_delete_sets_aside_and_undo_restores(make_chat: MakeChat, workspace: Path) -> None:
    """Delete moves the file aside (not destroyed); Undo puts it back and reopens the chat."""
    _seed(workspace)
    chat: ChatHarness = make_chat()
    chat.wait(lambda: chat.tab.current == "desktop:old")
    original = session_path(workspace, "desktop:old")
    content = original.read_bytes()
    chat.tab.panel.deleteRequested.emit("desktop:old")
    snackbar = chat.tab.panel.snackbar
    chat.wait(snackbar.isVisible)
    assert not original.exists() and "desktop:old" not in chat.tab.sessions.all_keys()
    [aside] = list((original.parent / ".deleted").iterdir())
    assert aside.read_bytes() == content
    assert chat.tab.current != "desktop:old"
    assert snackbar.button.text() == "Undo"
    snackbar.button.click()
    chat.wait(lambda: original.exists() and chat.tab.current == "desktop:old")
    assert original.read_bytes() == content
    assert "desktop:old" in chat.tab.sessions.shown_keys()


def test_search_by_title_and_content(make_chat: MakeChat, workspace: Path) -> None:
    """Titles filter at once; a word that only appears in a message is found by the content
    search; clearing shows everything; Ctrl+K's slot focuses the field."""
    _seed(workspace)
    chat: ChatHarness = make_chat()
    chat.wait(lambda: len(chat.tab.sessions.shown_keys()) == 3)
    panel = chat.tab.panel
    chat.tab.focus_search()
    assert panel.search.hasFocus()
    panel.search.setText("terminal")
    chat.wait(lambda: chat.tab.sessions.shown_keys() == ["cli:direct"])
    panel.search.setText("ZEBRA")
    chat.wait(lambda: chat.tab.sessions.shown_keys() == ["telegram:42"])
    panel.search.setText("nothing like this")
    chat.wait(lambda: chat.tab.sessions.shown_keys() == [])
    panel.search.clear()
    chat.wait(lambda: len(chat.tab.sessions.shown_keys()) == 3)


def test_manager_operations(tmp_path: Path) -> None:
    """summaries/search/set_aside/restore/take_pending_turn on a real SessionManager."""
    manager = SessionManager(tmp_path)
    session = manager.get_or_create("desktop:a")
    session.add_message("user", "first question")
    session.add_message("assistant", "an answer mentioning kiwi")
    manager.save(session)
    pending = manager.get_or_create("desktop:b")
    pending.begin_turn("retry me", media=["/x.png"])
    pending.checkpoint([{"role": "assistant", "content": "", "tool_calls": [{"id": "1"}]}])
    manager.save(pending)
    manager.get_or_create("desktop:empty")  # opened, never used: not listed
    [b, a] = manager.summaries()
    assert (a.key, a.channel, a.title) == ("desktop:a", "desktop", "first question")
    assert b.key == "desktop:b" and b.title == "retry me"
    assert manager.search("KIWI") == ["desktop:a"] and manager.search("") == []
    fresh = SessionManager(tmp_path)
    assert fresh.search("kiwi") == ["desktop:a"]  # from the file
    message = pending.take_pending_turn()
    assert (
        message is not None and message["content"] == "retry me" and message["media"] == ["/x.png"]
    )
    assert pending.messages == [] and not pending.has_pending_turn
    assert pending.take_pending_turn() is None
    aside = manager.set_aside("desktop:a")
    assert aside is not None and aside.parent.name == ".deleted"
    assert [s.key for s in manager.summaries()] == ["desktop:b"]
    assert manager.set_aside("desktop:nothing") is None
    manager.restore("desktop:a", aside)
    assert manager.get_or_create("desktop:a").messages[1]["content"] == "an answer mentioning kiwi"
    aside = manager.set_aside("desktop:a")
    assert aside is not None
    manager.save(manager.get_or_create("desktop:a"))  # a new chat took the key meanwhile
    try:
        manager.restore("desktop:a", aside)
    except FileExistsError:
        pass
    else:
        raise AssertionError("restore must not overwrite")
    assert aside.exists()


def test_new_command_opens_a_new_chat_and_keeps_the_old_one(
    make_chat: MakeChat, workspace: Path
) -> None:
    """``/new`` in the window archives the chat into memory as nanobot's does (one summary
    call; history.jsonl gets it) and opens a new, empty chat: the old one stays in the list
    with its title and every message (only its archived mark moves); /help says so."""
    from desktop.core.memory.store import MemoryStore
    from tests.fakes.openai_server import Reply
    from tests.ui.conftest import run_async

    chat: ChatHarness = make_chat()
    chat.server.push(Reply("Hello."))
    chat.send("hi there")
    chat.idle()
    old = chat.tab.current
    path = session_path(workspace, old)
    chat.wait(path.exists)
    saved = path.read_bytes()
    chat.send("/help")
    chat.wait(lambda: chat.items()[-1].kind == "command" and "/new" in chat.items()[-1].text)
    [line] = [x for x in chat.items()[-1].text.splitlines() if x.strip().startswith("/new")]
    assert "a new chat opens and this one stays in the list" in line
    assert "summarise this conversation into memory" in line
    requests = len(chat.server.chat_requests())
    chat.server.push(Reply("- The person said hi."))
    with chat.qtbot.waitSignal(chat.tab.archiver.archived, timeout=20_000):
        chat.send("/new")
    chat.wait(lambda: chat.tab.current != old)
    new = chat.tab.current
    assert new.startswith("desktop:") and present(chat.tab.sessions.entry(new)).draft
    assert chat.items() == [] and chat.tab.pane.composer.text() == ""
    run_async(chat.qtbot, chat.loop, chat.tab.list_controller.refresh())
    entry = chat.tab.sessions.entry(old)
    assert entry is not None and entry.title == "hi there" and not entry.draft
    assert path.read_bytes() != saved and path.exists(), "kept; only its archived mark moved"
    session = chat.agent.sessions.get_or_create(old)
    assert [m["content"] for m in session.messages] == ["hi there", "Hello."]
    assert session.last_consolidated == 2
    assert [e.content for e in MemoryStore(workspace).entries()] == ["- The person said hi."]
    assert len(chat.server.chat_requests()) == requests + 1, "the summary call"
    chat.tab.open_session(old)
    chat.wait(lambda: chat.tab.current == old and chat.kinds()[:2] == ["user", "assistant"])
    assert chat.tab.pane.title.toolTip() == "hi there"
