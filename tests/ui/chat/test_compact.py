"""``/compact`` from the chat box, and a compacted chat as the window shows it (real agent on
the scripted server, LiteLLM path)."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from desktop.core.session.compaction import CONTINUATION_TEXT, HIDDEN_KEY
from tests.fakes.openai_server import Reply
from tests.typed import present
from tests.ui.chat.conftest import ChatHarness, MakeChat, write_session


def test_compact_is_offered_and_answered_inline(make_chat: MakeChat, qtbot: QtBot) -> None:
    """ "/comp" offers /compact; sent after a turn it makes one summary call and says so in
    the chat."""
    chat: ChatHarness = make_chat()
    edit = chat.tab.pane.composer.edit
    edit.setFocus()
    qtbot.keyClicks(edit, "/comp")
    completer = edit.completer
    chat.wait(present(completer.popup()).isVisible)
    offered = [
        completer.completionModel().index(r, 0).data() for r in range(completer.completionCount())
    ]
    assert offered == ["/compact"]
    present(completer.popup()).hide()
    edit.clear()

    chat.server.push(Reply("Visit Ribeira."))
    chat.send("Plan a day in Porto.")
    chat.idle()
    chat.server.push(Reply("- Planned a Porto day."))
    chat.send("/compact")
    chat.wait(
        lambda: chat.items()[-1].kind == "command" and chat.items()[-1].text == "Context compacted."
    )
    assert "Plan a day in Porto." in str(chat.requests()[-1]["messages"])  # the summary call
    assert chat.kinds() == ["user", "assistant", "user", "command"]  # "/compact" and its answer
    chat.idle()
    composer = chat.tab.pane.composer
    chat.wait(lambda: not composer.busy)  # the command's turn is over: nothing to guide
    assert composer.send.text() == "Send" and not composer.edit.placeholderText().startswith(
        "Guide"
    ), composer.edit.placeholderText()

    session = chat.agent.sessions.get_or_create(chat.tab.current)
    assert session.messages[-1]["content"] == CONTINUATION_TEXT  # compacted on disk too


def test_a_chat_nanobot_compacted_shows_no_checkpoint_row(
    make_chat: MakeChat, workspace: Path
) -> None:
    """nanobot 0.3.5's hidden checkpoint is for the model only: the window leaves it out."""
    write_session(
        workspace,
        "telegram:7",
        [
            {"role": "user", "content": "Plan a day in Lisbon."},
            {"role": "assistant", "content": "Visit Alfama."},
            {"role": "user", "content": CONTINUATION_TEXT, HIDDEN_KEY: True},
            {"role": "user", "content": "And Sunday?"},
            {"role": "assistant", "content": "Take the tram."},
        ],
    )
    chat: ChatHarness = make_chat()
    chat.wait(lambda: "telegram:7" in chat.tab.sessions.shown_keys())
    chat.tab.open_session("telegram:7")
    chat.wait(lambda: len(chat.items()) == 4)
    assert [i.text for i in chat.items()] == [
        "Plan a day in Lisbon.",
        "Visit Alfama.",
        "And Sunday?",
        "Take the tram.",
    ]
