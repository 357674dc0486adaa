"""Exec sessions both ways against the real ``nanobot`` CLI (nanobot-ai 0.3.5).

The scripted model drives an interactive Python through ``exec`` (``yield_time_ms``),
``exec_session`` and ``list_exec_sessions`` in one program, reading the session id from the
tool result it was sent as a model would; the other program then continues the same
conversation: the model receives the first program's calls (same names, same arguments) and
results as history, and the same-shaped calls work there too.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

from tests.fakes.openai_server import Reply
from tests.interop.conftest import Shared, jsonl

# nanobot says ``session_id: <id>``; we say ``[session_id=<id>: …]``.
_SESSION_ID = re.compile(r"session_id[:=] ?([0-9a-f]{12})")
PYTHON = "python3 -u -q -i"
_ids = itertools.count(1)


def _call(name: str, **arguments: Any) -> Reply:
    """One tool call with an id of its own (nanobot keeps one message per call id)."""
    return Reply(tool_calls=[(name, json.dumps(arguments))], call_ids=[f"call_{next(_ids)}"])


def _this_turn(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages after the last user message (the turn the model is in)."""
    last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
    return messages[last_user + 1 :]


def _drive(shared: Shared, answer: str) -> None:
    """Script one turn: start Python, compute, list, terminate, answer."""

    def route(body: dict[str, Any]) -> Reply:
        results = [str(m["content"]) for m in _this_turn(body["messages"]) if m["role"] == "tool"]
        ids = [found.group(1) for r in results if (found := _SESSION_ID.search(r))]
        sid = ids[-1] if ids else ""
        steps = [
            lambda: _call("exec", command=PYTHON, yield_time_ms=1000),
            lambda: _call("exec_session", session_id=sid, input="print(6 * 7)\n", wait_for="42"),
            lambda: _call("list_exec_sessions"),
            lambda: _call("exec_session", session_id=sid, terminate=True),
            lambda: Reply(answer),
        ]
        return steps[min(len(results), len(steps) - 1)]()

    shared.server.route = route


def _calls_and_results(messages: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any], str]]:
    """``(tool name, arguments, result)`` of every call in ``messages``."""
    results = {
        m.get("tool_call_id"): str(m.get("content")) for m in messages if m["role"] == "tool"
    }
    return [
        (
            call["function"]["name"],
            json.loads(call["function"]["arguments"]),
            results.get(call["id"], "<no result>"),
        )
        for m in messages
        if m["role"] == "assistant"
        for call in m.get("tool_calls") or []
    ]


def _check_turn(calls: list[tuple[str, dict[str, Any], str]]) -> None:
    """The four calls of a :func:`_drive` turn, with results that show they worked."""
    assert [name for name, _args, _result in calls] == [
        "exec",
        "exec_session",
        "list_exec_sessions",
        "exec_session",
    ], calls
    (_, start, started), (_, sent, answered), (_, _, listed), (_, ended, closed) = calls
    sid = _SESSION_ID.search(started)
    assert sid is not None, started
    assert start == {"command": PYTHON, "yield_time_ms": 1000}
    assert sent == {"session_id": sid.group(1), "input": "print(6 * 7)\n", "wait_for": "42"}
    assert "42" in answered, answered
    assert listed.startswith(f"{sid.group(1)} | running | ") and PYTHON in listed, listed
    assert ended == {"session_id": sid.group(1), "terminate": True}
    assert "erminated" in closed, closed


def _tools_offered(shared: Shared) -> dict[str, dict[str, Any]]:
    body = shared.server.chat_requests()[-1].body
    return {t["function"]["name"]: t["function"]["parameters"] for t in body["tools"]}


def test_a_session_nanobot_drove_replays_in_ours(shared: Shared) -> None:
    """nanobot → us: nanobot's exec-session calls reach our model as they were, and the same
    calls run here."""
    _drive(shared, "nanobot got 42.")
    assert "nanobot got 42." in shared.ok("nanobot", "agent", "-m", "Compute 6*7 in Python.")
    _drive(shared, "We got 42 too.")
    out = shared.ok("nanobot-desktop", "agent", "-m", "Once more, please.")
    assert "We got 42 too." in out

    messages = shared.last_messages()
    last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
    _check_turn(_calls_and_results(messages[:last_user]))  # nanobot's turn, replayed to us
    _check_turn(_calls_and_results(_this_turn(messages)))  # ours, with the same calls
    offered = _tools_offered(shared)
    assert {"session_id", "input", "close_stdin", "terminate", "wait_for", "until_exit"} <= set(
        offered["exec_session"]["properties"]
    )
    assert offered["exec_session"]["required"] == ["session_id"]
    assert {"yield_time_ms", "max_output_chars"} <= set(offered["exec"]["properties"])
    assert offered["list_exec_sessions"]["properties"] == {}


def test_a_session_we_drove_replays_in_nanobot(shared: Shared) -> None:
    """us → nanobot: our calls reach nanobot's model as they were (nanobot's own migration of
    older names leaves them alone), and nanobot runs the same calls."""
    _drive(shared, "We got 42.")
    assert "We got 42." in shared.ok("nanobot-desktop", "agent", "-m", "Compute 6*7 in Python.")
    _drive(shared, "nanobot got 42 too.")
    out = shared.ok("nanobot", "agent", "-m", "Once more, please.")
    assert "nanobot got 42 too." in out

    messages = shared.last_messages()
    last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
    _check_turn(_calls_and_results(messages[:last_user]))  # ours, replayed to nanobot's model
    _check_turn(_calls_and_results(_this_turn(messages)))  # nanobot's, with the same calls

    workspace_id = (shared.workspace / ".nanobot" / "workspace-id").read_text().strip()
    folder = shared.home / ".nanobot" / "sessions" / workspace_id
    [path] = list(folder.glob("*.jsonl"))
    names = [
        call["function"]["name"] for line in jsonl(path) for call in line.get("tool_calls") or []
    ]
    assert names == ["exec", "exec_session", "list_exec_sessions", "exec_session"] * 2, names
