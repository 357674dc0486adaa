"""What a new user hit in the chat window (issue 21, part 2): keeping up with new content
while reading further up, a chat's own model, search without hits. A real runtime on the
scripted server, real session files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from desktop.core.bus.events import OutboundMessage
from tests.fakes.openai_server import Reply
from tests.ui.chat.conftest import ChatHarness, MakeChat, write_session
from tests.ui.conftest import run_async

LONG = "desktop:long"


def _filler(pairs: int) -> list[dict[str, Any]]:
    return [
        m
        for i in range(pairs)
        for m in (
            {"role": "user", "content": f"question {i}"},
            {"role": "assistant", "content": f"answer {i} " * 30},
        )
    ]


def _open_long_chat(make_chat: Any, workspace: Path) -> ChatHarness:
    write_session(workspace, LONG, _filler(30), title="Long read")
    chat: ChatHarness = make_chat()  # opens the most recent desktop chat: this one
    chat.wait(lambda: chat.tab.current == LONG and len(chat.items()) == 60)
    return chat


def _scroll_to_top(chat: ChatHarness) -> None:
    view = chat.tab.pane.view
    view.visible_rows()  # laid out, so the scroll range is real
    view.verticalScrollBar().setValue(0)
    assert not view.at_bottom() and 0 in view.visible_rows()


def _remind(chat: ChatHarness, text: str) -> None:
    """Something arrives in the open chat without a turn (a reminder through the channel)."""
    runtime = chat.services.runtime
    assert runtime is not None
    chat_id = chat.tab.current.partition(":")[2]
    message = OutboundMessage("desktop", chat_id, text, metadata={"reminder": True})
    run_async(chat.qtbot, chat.loop, runtime.bus.publish_outbound(message))
    chat.wait(lambda: chat.items()[-1].text == text)


# -- item 2: sending while scrolled up; "New messages ↓" ------------------------------------
def test_sending_while_scrolled_up_brings_your_message_and_the_answer_into_view(
    make_chat: MakeChat, workspace: Path
) -> None:
    chat = _open_long_chat(make_chat, workspace)
    _scroll_to_top(chat)
    chat.server.push(Reply("Here is the last answer."))
    chat.send("one more question")
    chat.idle()
    view = chat.tab.pane.view
    rows = view.visible_rows()
    last = len(chat.items()) - 1
    assert chat.items()[last].text == "Here is the last answer."
    assert view.at_bottom() and last in rows and last - 1 in rows  # question and answer
    assert view.verticalScrollBar().value() == view.verticalScrollBar().maximum()
    assert not view.chip.isVisible()


def test_new_content_while_reading_above_shows_a_chip_that_scrolls_down(
    make_chat: MakeChat, workspace: Path
) -> None:
    chat = _open_long_chat(make_chat, workspace)
    _scroll_to_top(chat)
    view = chat.tab.pane.view
    _remind(chat, "Stretch your legs.")
    chat.wait(view.chip.isVisible)
    assert view.verticalScrollBar().value() == 0  # the reader's place is kept
    assert view.chip.text() == "New messages ↓"
    assert view.chip.accessibleName() == "New messages below"
    assert view.chip.announced == ["New messages below"]
    chip = view.chip.geometry()
    assert view.rect().contains(chip) and chip.bottom() > view.height() // 2  # bottom, inside
    QTest.mouseClick(view.chip, Qt.MouseButton.LeftButton)
    chat.wait(lambda: len(chat.items()) - 1 in view.visible_rows())
    assert view.at_bottom() and not view.chip.isVisible()
    # at the bottom already: new content just shows, no chip
    _remind(chat, "And drink water.")
    assert len(chat.items()) - 1 in view.visible_rows() and not view.chip.isVisible()


def test_after_a_search_jump_new_content_shows_the_chip(
    make_chat: MakeChat, workspace: Path
) -> None:
    messages = [*_filler(30), {"role": "user", "content": "where is the marmalade jar?"}]
    messages.append({"role": "assistant", "content": "On the top shelf."})
    messages.extend(_filler(20))
    write_session(workspace, "desktop:pantry", messages, title="Kitchen")
    chat: ChatHarness = make_chat()
    panel = chat.tab.panel
    chat.wait(lambda: "desktop:pantry" in chat.tab.sessions.all_keys())
    panel.search.setText("marmalade")
    chat.wait(lambda: chat.tab.sessions.hit("desktop:pantry") is not None)
    panel.search.returnPressed.emit()
    view = chat.tab.pane.view
    chat.wait(lambda: chat.tab.current == "desktop:pantry" and view.current_row() >= 0)
    hit = view.current_row()
    assert chat.items()[hit].message_index == 60 and hit in view.visible_rows()
    _remind(chat, "Buy more marmalade.")
    chat.wait(view.chip.isVisible)
    assert hit in view.visible_rows()  # still reading the hit
    QTest.keyClick(view.chip, Qt.Key.Key_Space)
    chat.wait(lambda: len(chat.items()) - 1 in view.visible_rows())
    assert not view.chip.isVisible()


# -- item 14: a search without hits says so -------------------------------------------------
def test_a_search_without_hits_says_so(make_chat: MakeChat, workspace: Path) -> None:
    write_session(workspace, "desktop:pantry", _filler(2), title="Kitchen")
    chat: ChatHarness = make_chat(ready=False)
    panel = chat.tab.panel
    chat.wait(lambda: "desktop:pantry" in chat.tab.sessions.all_keys())
    chat.tab.focus_search()
    QTest.keyClicks(panel.search, "zebra crossing")
    chat.wait(lambda: panel.empty.isVisible() and "No chats match" in panel.empty.text())
    assert panel.empty.text() == "No chats match “zebra crossing”."
    assert chat.tab.sessions.rowCount() == 0
    empty = panel.empty.geometry()
    assert panel.list.viewport().rect().contains(empty.topLeft()) and empty.width() > 100
    # a query that finds a message (not a title): the note goes, the chat is listed
    panel.search.setText("answer 1")
    chat.wait(lambda: chat.tab.sessions.rowCount() == 1)
    assert not panel.empty.isVisible()
    panel.search.setText("")
    chat.wait(lambda: chat.tab.sessions.rowCount() >= 1)
    assert not panel.empty.isVisible()


# -- item 3: a chat's own model -------------------------------------------------------------
def test_a_new_chat_keeps_the_model_picked_before_its_first_message(
    make_chat: MakeChat, workspace: Path, memory_keyring: object
) -> None:
    from desktop.core.session.manager import SessionManager
    from tests.fakes.openai_server import ScriptedOpenAIServer

    with ScriptedOpenAIServer(Reply("Answer from B.")) as second:
        chat: ChatHarness = make_chat(model="openai/scripted", provider="custom")
        chat.services.config.providers.vllm.api_base = second.url
        chat.tab.new_chat()
        key = chat.tab.current
        picker = chat.tab.pane.picker
        picker.modelChosen.emit("hosted_vllm/model-b", "vllm")
        chat.wait(lambda: picker.own and picker.isEnabled())
        sessions = SessionManager(workspace, config_dir=workspace.parent)
        assert not sessions.path_for(key).exists()  # an empty new chat leaves no file
        chat.send("hello")
        chat.idle()
        assert [i.text for i in chat.items() if i.kind == "assistant"] == ["Answer from B."]
        meta = SessionManager(workspace, config_dir=workspace.parent).get_or_create(key).metadata
        assert meta["desktop_model"] == {"model": "hosted_vllm/model-b", "provider": "vllm"}
        assert not chat.server.chat_requests()  # the default model was not asked


def test_a_chats_model_that_lost_its_key_fails_the_turn_with_a_way_out(
    make_chat: MakeChat, workspace: Path, memory_keyring: object
) -> None:
    """The chat's model cannot be used any more: the message is kept, the banner says why."""
    write_session(workspace, "desktop:own", _filler(1), title="Own model")
    session_file = workspace / "sessions" / "desktop_own.jsonl"
    lines = session_file.read_text().splitlines()
    head = json.loads(lines[0])
    head["metadata"]["desktop_model"] = {"model": "anthropic/claude-3-5-haiku-latest"}
    session_file.write_text("\n".join([json.dumps(head), *lines[1:]]) + "\n")
    chat: ChatHarness = make_chat()
    chat.tab.open_session("desktop:own")
    picker = chat.tab.pane.picker
    chat.wait(lambda: chat.tab.current == "desktop:own" and "haiku" in picker.text())
    assert picker.own
    chat.send("still there?")
    chat.wait(lambda: chat.tab.pane.banner.isVisible())
    banner = chat.tab.pane.banner.label.text()
    assert "This chat's model anthropic/claude-3-5-haiku-latest cannot be used" in banner
    assert [i.text for i in chat.items() if i.kind == "user"][-1] == "still there?"
    assert not chat.server.chat_requests()
