"""Steering from the window (issue #25 §2): while a turn runs, Enter sends what was typed to
that turn as guidance — it waits above the composer ("Queued for the next step") until the turn
takes it in, then shows in the conversation where the turn read it, and the answer goes on
below it. "Send now" stops the turn and sends it as a new message; "Remove" takes it back;
what the turn never took in is sent as the next message when it ends. Esc still stops.

A real ChatTab and runtime on the scripted model server (the real LiteLLM path); the tool that
keeps the turn busy is a real ``exec`` in the sandbox.
"""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from desktop.core.agent.approval import ApprovalPolicy
from tests.fakes.openai_server import Reply
from tests.ui.chat.conftest import ChatHarness, MakeChat

GUIDANCE = "Only look at the docs folder."


def _busy_until(go: Path) -> str:
    """``exec`` arguments for a command that keeps the turn busy until the test, done with
    what it does meanwhile, creates ``go`` (rather than for a fixed time)."""
    command = f"while [ ! -e {go} ]; do sleep 0.02; done; echo listed"
    return json.dumps({"command": command})


def _type_and_enter(chat: ChatHarness, qtbot: QtBot, text: str) -> None:
    edit = chat.tab.pane.composer.edit
    edit.setPlainText(text)
    qtbot.keyClick(edit, Qt.Key.Key_Return)


def _strip_texts(chat: ChatHarness) -> list[str]:
    """The lines of the strip above the composer."""
    strip = chat.tab.pane.guidance
    return [label.text() for row in strip.rows.values() for label in row.findChildren(QLabel)]


def test_enter_while_a_turn_runs_steers_it(
    make_chat: MakeChat, qtbot: QtBot, workspace: Path
) -> None:
    chat: ChatHarness = make_chat(policy=ApprovalPolicy(mode="autonomous"))
    go = workspace / "go"
    chat.server.push(
        Reply(tool_calls=[("exec", _busy_until(go))]),
        Reply("Looked at the docs folder only."),
    )
    chat.send("What is in this workspace?")
    chat.wait(lambda: any(i.kind == "tool" and i.running for i in chat.items()))
    composer, strip = chat.tab.pane.composer, chat.tab.pane.guidance
    assert composer.send.text() == "Stop"
    assert composer.edit.placeholderText().startswith("Guide the running answer")
    _type_and_enter(chat, qtbot, GUIDANCE)
    assert composer.text() == "" and composer.send.text() == "Stop"  # it did not stop the turn
    assert strip.isVisible() and len(strip.rows) == 1
    assert _strip_texts(chat) == [f"Queued for the next step: {GUIDANCE}"]
    go.touch()  # the tool may end now
    chat.idle()
    assert not strip.isVisible() and not chat.tab.state.guidance
    items = chat.items()
    assert [i.kind for i in items] == ["user", "tool", "user", "assistant"]
    assert items[2].text == GUIDANCE and items[3].text == "Looked at the docs folder only."
    second = chat.requests()[1]["messages"]
    assert second[-1] == {"role": "user", "content": GUIDANCE}


def test_send_now_stops_the_turn_and_sends_it_as_a_new_message(
    make_chat: MakeChat, qtbot: QtBot
) -> None:
    chat: ChatHarness = make_chat()
    chat.server.push(
        Reply("slow " * 200, chunk=5, stall_after=8, stall_for=60),
        Reply("Here is the short version."),
    )
    chat.send("talk slowly")
    chat.wait(lambda: any(i.kind == "assistant" and i.text for i in chat.items()))
    _type_and_enter(chat, qtbot, "Stop rambling, give me the short version.")
    strip = chat.tab.pane.guidance
    chat.wait(lambda: len(strip.rows) == 1)
    send_now = next(
        b for b in strip.findChildren(type(chat.tab.pane.composer.send)) if b.text() == "Send now"
    )
    send_now.click()
    chat.wait(lambda: chat.kinds()[-1] == "assistant" and "short version" in chat.items()[-1].text)
    chat.idle()
    items = chat.items()
    assert [i.kind for i in items] == ["user", "assistant", "user", "assistant"]
    assert items[1].footer == "Stopped"
    assert items[2].text == "Stop rambling, give me the short version."
    assert not strip.isVisible()


def test_remove_takes_it_back(make_chat: MakeChat, qtbot: QtBot, workspace: Path) -> None:
    chat: ChatHarness = make_chat(policy=ApprovalPolicy(mode="autonomous"))
    go = workspace / "go"
    chat.server.push(
        Reply(tool_calls=[("exec", _busy_until(go))]),
        Reply("Done."),
    )
    chat.send("List it.")
    chat.wait(lambda: any(i.kind == "tool" and i.running for i in chat.items()))
    _type_and_enter(chat, qtbot, "never mind")
    strip = chat.tab.pane.guidance
    remove = next(
        b for b in strip.findChildren(type(chat.tab.pane.composer.send)) if b.text() == "Remove"
    )
    remove.click()
    assert not strip.isVisible() and not chat.tab.state.guidance
    go.touch()  # the tool may end now
    chat.idle()
    assert [i.kind for i in chat.items()] == ["user", "tool", "assistant"]
    assert all("never mind" not in str(r["messages"]) for r in chat.requests())


def test_what_the_turn_never_took_in_is_sent_next(make_chat: MakeChat, qtbot: QtBot) -> None:
    """Guidance the core accepted after the turn's last step (it ended first) is not lost:
    the tab sends it as the next message."""
    chat: ChatHarness = make_chat()
    chat.server.push(Reply("slow " * 40, chunk=5, delay=0.025), Reply("Answering the late words."))
    chat.send("talk")
    chat.wait(lambda: any(i.kind == "assistant" and i.text for i in chat.items()))
    key = chat.tab.current
    chat.tab.feed.render(chat.tab.state.steer("late", key, "late words"))  # never given to the turn
    chat.wait(lambda: chat.items()[-1].text == "Answering the late words.", timeout=30_000)
    chat.idle()
    items = chat.items()
    assert [i.kind for i in items] == ["user", "assistant", "user", "assistant"]
    assert items[2].text == "late words" and not chat.tab.state.guidance
