"""Exec sessions in the window's tool cards: the card of the ``exec`` that started one and
the cards of ``exec_session`` calls name the session and its state in their header, and show
its output when opened; live, and reopened from disk."""

from __future__ import annotations

import json
import re
from typing import Any

from desktop.core.agent.approval import ApprovalPolicy
from desktop.core.tools.exec_session import session_in
from desktop.ui.chat.items import ChatItem, items_from_messages
from desktop.ui.chat.row_layout import argument_summary
from tests.core.tools.sandbox_support import PY
from tests.fakes.openai_server import Reply
from tests.typed import present
from tests.ui.chat.conftest import ChatHarness, MakeChat

SID = re.compile(r"session ([0-9a-f]{12}) \((running|ended)\)")


def _call(name: str, **arguments: Any) -> Reply:
    return Reply(tool_calls=[(name, json.dumps(arguments))])


def _route(body: dict[str, Any]) -> Reply:
    messages = body["messages"]
    last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
    results = [str(m["content"]) for m in messages[last_user:] if m["role"] == "tool"]
    ids = [found[0] for r in results if (found := session_in(r))]
    steps = [
        lambda: _call("exec", command=f"{PY} -u -q -i", yield_time_ms=300),
        lambda: _call("exec_session", session_id=ids[-1], input="print(6 * 7)\n"),
        lambda: _call("exec_session", session_id=ids[-1], input="exit()\n", until_exit=True),
        lambda: Reply("Python says 42."),
    ]
    return steps[min(len(results), len(steps) - 1)]()


def _header(chat: ChatHarness, card: ChatItem) -> str:
    return chat.tab.pane.view.layout_of(chat.items().index(card)).parts[0].doc.toPlainText()


def test_live_cards_name_the_session_and_show_its_output(make_chat: MakeChat) -> None:
    chat: ChatHarness = make_chat(policy=ApprovalPolicy(mode="autonomous"))
    chat.server.route = _route
    chat.send("Use Python to compute 6*7.")
    chat.idle()
    start, ask, leave = [i for i in chat.items() if i.kind == "tool"]
    headers = [_header(chat, card) for card in (start, ask, leave)]
    found = [SID.search(h) for h in headers]
    assert all(found), headers
    sid = present(found[0]).group(1)
    assert [present(f).group(1) for f in found] == [sid] * 3
    assert [present(f).group(2) for f in found] == ["running", "running", "ended"]
    assert "-u -q -i" in headers[0] and "print(6 * 7)" in headers[1]
    assert "exit() · session" in headers[2]
    chat.tab.pane.view.toggle(chat.items().index(ask))
    assert ask.expanded
    opened = _header(chat, ask)
    assert "42" in opened and "<<<untrusted" not in opened, opened


def test_reopened_cards_name_the_session_too() -> None:
    calls = [
        ("exec", {"command": "bash", "yield_time_ms": 500}, "[session_id=0123456789ab: still running; …]\n$"),
        ("exec_session", {"session_id": "0123456789ab", "terminate": True}, "[session_id=0123456789ab: terminated]\n(no new output)\n[exit code: -15]"),
    ]  # fmt: skip
    messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for index, (name, arguments, result) in enumerate(calls):
        function = {"name": name, "arguments": json.dumps(arguments)}
        messages.append(
            {"role": "assistant", "content": "", "tool_calls": [{"id": f"c{index}", "function": function}]}
        )  # fmt: skip
        messages.append({"role": "tool", "tool_call_id": f"c{index}", "content": result})
    start, end = [i for i in items_from_messages(messages) if i.kind == "tool"]
    assert argument_summary(start.arguments, tool=start.tool, result=start.result) == (
        "bash · session 0123456789ab (running)"
    )
    assert argument_summary(end.arguments, tool=end.tool, result=end.result) == (
        "terminate · session 0123456789ab (ended)"
    )


def test_a_long_command_is_cut_before_the_session_is() -> None:
    summary = argument_summary(
        {"command": "x" * 300}, tool="exec", result="[session_id=0123456789ab: still running]"
    )
    assert len(summary) <= 90 and summary.endswith("· session 0123456789ab (running)")
    assert argument_summary({"session_id": "abc", "wait_for": "ready"}, tool="exec_session") == (
        "wait for 'ready' · session abc"
    )
    assert argument_summary({"command": "ls"}, tool="exec", result="a\n[exit code: 0]") == "ls"
