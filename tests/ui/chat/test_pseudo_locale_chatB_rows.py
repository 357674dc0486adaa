"""The conversation's rows in the pseudo locale: every painted text, what screen readers hear,
and the rows' context menus went through the translation system.

The rows are painted (no widget per message), so :func:`untranslated` cannot walk them: each
row's laid-out documents, its accessible text and its menu entries are checked with the same
rule (:func:`tests.ui.i18n.pseudo._english`), and the texts the view paints directly (the
empty view's hint, the copy button) are caught as they are drawn. The rows come from the real
reducer (:class:`ChatState` fed run events) and the real loader (``items_from_messages``)
where the wording is made there, and are built directly for the view's own states.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtGui import QAccessible, QPainter
from pytestqt.qtbot import QtBot

from desktop.core.bus.events import (
    DESKTOP_CHANNEL,
    ModelRetrying,
    OutboundMessage,
    ToolCallStarted,
    TurnFinished,
    TurnStarted,
    TurnStopped,
    UsageReport,
)
from desktop.ui.chat import message_view
from desktop.ui.chat.accessible import row_text
from desktop.ui.chat.changes import RowAdded
from desktop.ui.chat.items import ChatItem, items_from_messages
from desktop.ui.chat.message_model import MessageModel
from desktop.ui.chat.message_view import MessageView
from desktop.ui.chat.state import ChatState
from tests.ui.i18n.pseudo import _english, pseudo_locale, untranslated

KEY = "desktop:t"
# What the test itself puts on screen (the person's and the model's words, names, paths).
DATA = frozenset(
    {
        "hello there",
        "first question",
        "Rate limited.",
        "An answer",
        "print",
        "pondering",
        "exec_session",
        "exec",
        "write_file",
        "read_file",
        "src",
        "app",
        "ls",
        "/status",
        "Water the plants",
        "Plants",
        "The report",
        "report.pdf",
        "pic.png",
        "session_id",
        "command",
        "path",
        "input",
        "wait_for",
        "ready",
        "abc",
        "close_stdin",
        "true",
        "false",
        "denied output",
        "boom",
        "partial",
        "python",
        "Stopped here",
        "terminate",
        "until_exit",
        "generate_image",
        "artifacts",
        "Denied by the user",
    }
)
DIFF = "--- /dev/null\n+++ b/src/app.py\n@@ -0,0 +1,45 @@\n" + "".join(
    f"+x = {n}\n" for n in range(45)
)


def _leftover(text: str) -> str:
    return _english(text, DATA)


def _state_rows() -> list[ChatItem]:
    """Rows whose wording the reducer makes: queued, retrying, usage, stopped, commands."""
    state = ChatState()
    state.current = KEY
    rows: list[ChatItem] = []

    def take(changes: list[Any]) -> None:
        rows.extend(c.item for c in changes if isinstance(c, RowAdded) and c.item not in rows)

    take(state.apply(TurnStarted("t1", KEY, "message", DESKTOP_CHANNEL, "t", "first question")))
    take(state.apply(ModelRetrying("t1", KEY, "Rate limited.", 0, 3, 1.0)))
    waiting = next(r for r in rows if r.kind == "assistant")
    retrying = ChatItem("assistant", streaming=True, status=waiting.status)
    queued = ChatItem("user", "hello there")
    take(state.queue("r2", KEY, queued))
    take(state.apply(ToolCallStarted("t1", KEY, "c1", "exec", {"command": "ls"})))
    take(state.apply(TurnStopped("t1", KEY, "partial")))
    take(state.apply(TurnStarted("t2", KEY, "message", DESKTOP_CHANNEL, "t", "first question")))
    take(state.apply(UsageReport("t2", KEY, 1200, 30, 0.0012, 1230, 8000)))
    take(state.apply(TurnFinished("t2", KEY, "An answer")))
    take(state.command("r3", KEY, "/status"))
    working = [r for r in rows if r.kind == "command"][-1]
    working_copy = ChatItem("command", working.text, tool=working.tool)
    take(state.command("r4", KEY, "/status"))
    state.outbound(OutboundMessage(DESKTOP_CHANNEL, "t", "", metadata={"request_id": "r4"}))
    for metadata in ({"reminder": True}, {"generated_images": ["/tmp/pic.png"]}, {}):
        take(state.outbound(OutboundMessage(DESKTOP_CHANNEL, "t", "The report", metadata=metadata)))
    return [*rows, retrying, queued, working_copy]


def _saved_rows() -> list[ChatItem]:
    """Rows the loader makes of a saved chat: a stopped answer, an interrupted call, a
    generated image, a reminder and the heartbeat."""
    call = {"id": "c9", "type": "function", "function": {"name": "exec", "arguments": "{}"}}
    image = {"id": "c8", "type": "function", "function": {"name": "generate_image"}}
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "Water the plants", "cron_job": "j1", "label": "Plants"},
        {"role": "user", "content": "", "heartbeat": True},
        {"role": "assistant", "content": "Stopped here", "stopped": True, "tool_calls": [image]},
        {"role": "tool", "tool_call_id": "c8", "content": '{"artifacts": [{"path": "/a.png"}]}'},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "user", "content": "hello there"},
    ]
    return items_from_messages(messages)


def _own_rows() -> list[ChatItem]:
    """Every other state a row can be in."""
    media = ["data:image/png;base64,AAAA", "/tmp/report.pdf", "/tmp/pic.png"]
    code = "An answer\n\n```\nprint(1)\n```\n\n```python\nprint(2)\n```"
    reasoning = ChatItem("reasoning", "pondering", expanded=True)
    session = {"session_id": "abc", "input": "", "wait_for": "ready", "close_stdin": True}
    return [
        ChatItem("user", "hello there", media=media, fork=(0, 2, 3)),
        ChatItem("user", "/status", echo=True),
        ChatItem("assistant", streaming=True),
        ChatItem("assistant", code),
        ChatItem("reasoning", "pondering", streaming=True),
        reasoning,
        ChatItem("tool", tool="exec", arguments={"command": "ls"}, awaiting_approval=True),
        ChatItem("tool", tool="exec_session", arguments=session),
        ChatItem("tool", tool="exec_session", arguments={"terminate": True}, expanded=True),
        ChatItem("tool", tool="exec_session", arguments={"until_exit": True}, ok=True),
        ChatItem("tool", tool="exec_session", arguments={}, ok=True, duration_s=75),
        ChatItem(
            "tool",
            tool="write_file",
            arguments={"path": "src/app.py"},
            ok=True,
            duration_s=0.5,
            diff=DIFF,
        ),
        ChatItem("tool", tool="read_file", ok=False, result="Denied by the user"),
        ChatItem("tool", tool="exec", ok=False, result="boom", duration_s=4.2, expanded=True),
        ChatItem("tool", tool="exec", ok=True, result="", expanded=True),
        ChatItem("subagent", "The report"),
        ChatItem("outbound", "The report"),
        ChatItem("command", "An answer"),
    ]


def _all_rows() -> list[ChatItem]:
    return [*_state_rows(), *_saved_rows(), *_own_rows()]


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The texts the view draws directly with its painter (not through a document)."""
    texts: list[str] = []

    class Recording(QPainter):
        def drawText(self, *args: Any) -> None:  # type: ignore[override]  # records every overload
            texts.append(next(a for a in args if isinstance(a, str)))
            super().drawText(*args)

    monkeypatch.setattr(message_view, "QPainter", Recording)
    yield texts


def _view(qtbot: QtBot, items: list[ChatItem]) -> tuple[MessageView, MessageModel]:
    model = MessageModel(KEY)
    model.set_items(items)
    view = MessageView()
    view.open_links = False
    qtbot.addWidget(view)
    view.setModel(model)
    view.resize(900, 700)
    with qtbot.waitExposed(view):
        view.show()
    qtbot.waitUntil(lambda: not view.reader.tasks.tasks)  # the synthesiser was looked up
    return view, model


# Wording each state paints (so the check above reached every state).
PAINTED = (
    "⟦Rate limited. Waiting for the model… (retrying 1/3)⟧",
    "⟦1,200 in · 30 out · $0.0012⟧",
    "⟦(stopped before it finished)⟧",
    "⟦Working…⟧",
    "⟦(no answer)⟧",
    "⟦Reminder⟧",
    "⟦Generated image⟧",
    "⟦Sent by the agent⟧",
    "⟦Stopped⟧",
    "⟦(no result: the turn was interrupted)⟧",
    "⟦Reminder · Plants⟧",
    "⟦Heartbeat⟧",
    "⟦Periodic check⟧",
    "⟦pasted image⟧",
    "⟦[file: report.pdf]⟧",
    "⟦[image: pic.png]⟧",
    "⟦Thinking…⟧",
    "⟦code⟧",
    "⟦Copy⟧",
    "⟦Reasoning⟧",
    "⟦waiting for your approval…⟧",
    "⟦running…⟧",
    "⟦ · session abc⟧",
    "⟦⟦wait for 'ready'⟧ · close input⟧",
    "⟦terminate⟧",
    "⟦wait for the end⟧",
    "⟦read output⟧",
    "⟦1 m 15 s⟧",
    "⟦0.50 s⟧",
    "⟦src/app.py (new file)⟧",
    "⟦… 6 more lines — open the card to see them⟧",
    "⟦denied⟧",
    "⟦error ⟦4.2 s⟧⟧",
    "⟦Arguments⟧",
    "⟦Result⟧",
    "⟦(empty)⟧",
    "⟦(running…)⟧",
    "⟦Background task report⟧",
    "⟦Command⟧",
)


def test_every_row_is_painted_translated(qtbot: QtBot) -> None:
    with pseudo_locale():
        view, _model = _view(qtbot, [])
        found: list[str] = []
        painted: list[str] = []
        for mode in ("inline", "summary"):
            view.set_diff_mode(mode)
            for item in _all_rows():
                parts = view.builder().build(item, 900.0).parts
                if item.kind in ("tool", "reasoning"):  # open and closed
                    item.expanded = not item.expanded
                    parts += view.builder().build(item, 900.0).parts
                for part in parts:
                    text = part.doc.toPlainText()
                    painted.append(text)
                    if _leftover(text):
                        found.append(f"{item.kind} row: {text!r} ({_leftover(text)})")
        assert untranslated(view, skip=[view.chip]) == []
    assert not found, "\n".join(found)
    everything = "\n".join(painted)
    missing = [text for text in PAINTED if text not in everything]
    assert not missing, "\n".join(missing)


# What screen readers hear and menus offer in each state (so the check reached every state).
HEARD = (
    "⟦Queued — it will be answered after the current reply.⟧",
    "⟦You⟧",
    "⟦Command⟧",
    "⟦Assistant⟧",
    "⟦Assistant (answering)⟧",
    "⟦Thinking…⟧",
    "⟦Tool exec, ⟦waiting for your approval⟧⟧",
    "⟦Tool exec_session, ⟦running⟧⟧",
    "⟦Tool read_file, ⟦denied⟧⟧",
    "⟦Tool exec, ⟦failed⟧⟧",
    "⟦Tool exec, ⟦succeeded⟧⟧",
    "⟦changed src/app.py: 45 lines added, 0 removed⟧",
    "⟦Background task report⟧",
    "⟦Sent by the agent⟧",
    "⟦Reply to /status⟧",
    "⟦Reminder · Plants⟧",
    "(version 2 of 3; Left and Right arrows switch)⟧",
    "⟦Copy message⟧",
    "⟦Copy code block 2⟧",
    "⟦Show details⟧",
    "⟦Hide details⟧",
    "⟦Show reasoning⟧",
    "⟦Hide reasoning⟧",
    "⟦Edit and resend…⟧",
    "⟦Show version 1 of 3⟧",
    "⟦Show version 3 of 3⟧",
    "⟦Regenerate answer⟧",
    "⟦Preview src/app.py⟧",
)


def test_screen_readers_and_menus_hear_every_row_translated(qtbot: QtBot) -> None:
    with pseudo_locale():
        items = _all_rows()
        view, model = _view(qtbot, items)
        found: list[str] = []
        heard: list[str] = []
        reader = QAccessible.queryAccessibleInterface(view)
        assert reader is not None
        for row, item in enumerate(items):
            spoken = row_text(item)
            described = reader.child(row).text(QAccessible.Text.Description)
            heard += [spoken, described]
            if _leftover(spoken) or _leftover(described):
                found.append(f"spoken {item.kind}: {spoken!r}, {described!r}")
            text = model.data(model.index(row), 0)
            if item.kind != "tool" and _leftover(str(text)):
                found.append(f"display role {item.kind}: {text!r}")
            view.reveal(row)
            view.visible_rows()
            read_aloud = {label for label, _ in view.reader.entries(item, streaming=False)}
            read_aloud |= {label for label, _ in view.reader.entries(item, streaming=True)}
            for label, _slot in view.row_actions(row):
                heard.append(label)
                if label not in read_aloud and _leftover(label):
                    found.append(f"menu of {item.kind}: {label!r}")
    assert not found, "\n".join(found)
    everything = "\n".join(heard)
    missing = [text for text in HEARD if text not in everything]
    assert not missing, "\n".join(missing)


def test_the_painted_hint_and_copy_button_are_translated(qtbot: QtBot, drawn: list[str]) -> None:
    with pseudo_locale():
        view, model = _view(qtbot, [])
        qtbot.waitUntil(lambda: bool(drawn))
        model.set_items([ChatItem("assistant", "An answer")])
        rows = view.visible_rows()
        copy = view.layout_of(rows[0]).copy
        assert copy is not None
        view._hover = 0
        drawn.clear()
        view.viewport().repaint()
        assert drawn
    assert [t for t in drawn if _leftover(t)] == []
    assert "⟦Copy⟧" in drawn


def test_the_empty_hint_is_drawn_translated(qtbot: QtBot, drawn: list[str]) -> None:
    with pseudo_locale():
        _view(qtbot, [])
        qtbot.waitUntil(lambda: bool(drawn))
    assert drawn[-1] == "⟦Start the conversation below.⟧"
