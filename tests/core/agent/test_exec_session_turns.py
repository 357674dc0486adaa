"""Exec sessions in real turns: the runtime on the scripted server through the real LiteLLM
path, the approval gate, ``/stop`` and the runtime's stop.

The scripted model reads the ``session_id`` from the tool result it was sent (as a model
would) and uses it in its next calls.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from desktop.core.agent.approval import (
    DENIED_RESULT,
    ApprovalPolicy,
    ApprovalRequest,
    Decision,
    allowance_name,
    approval_reason,
)
from desktop.core.assembly import build_runtime
from desktop.core.config.schema import Config
from desktop.core.runtime import Runtime
from desktop.core.tools.exec_session import session_in
from tests.core.agent.conftest import make_provider
from tests.core.tools.sandbox_support import PY, kill_all, pids_with, sleeper
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.waiting import until

Step = Callable[[str], Reply]
SUBAGENT_PROMPT = "You are a background worker for nanobot"


class Approver:
    """Answers with the scripted decisions; records the requests."""

    def __init__(self, *decisions: Decision) -> None:
        self.decisions = list(decisions)
        self.requests: list[ApprovalRequest] = []

    async def request_approval(self, request: ApprovalRequest) -> Decision:
        self.requests.append(request)
        return self.decisions.pop(0)


def _runtime(
    server: ScriptedOpenAIServer, tmp_path: Path, policy: ApprovalPolicy | None = None
) -> Runtime:
    config = Config.model_validate({"agents": {"defaults": {"workspace": str(tmp_path / "ws")}}})
    (tmp_path / "ws").mkdir(exist_ok=True)
    return build_runtime(config, make_provider(server.url), approval=policy)


def _tool_messages(body: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in body["messages"] if m["role"] == "tool"]


def _call(name: str, **arguments: Any) -> Reply:
    return Reply(tool_calls=[(name, json.dumps(arguments))])


def script(server: ScriptedOpenAIServer, steps: list[Step | Reply]) -> None:
    """Answer the n-th request of the turn with ``steps[n]`` (a step gets the latest session
    id seen in a tool result)."""

    def route(body: dict[str, Any]) -> Reply | None:
        results = _tool_messages(body)
        index = len(results)
        if index >= len(steps):
            return None
        step = steps[index]
        if isinstance(step, Reply):
            return step
        ids = [found[0] for r in results if (found := session_in(r))]
        return step(ids[-1] if ids else "")

    server.route = route


async def test_a_turn_drives_a_python_session(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """exec (yield_time_ms) → exec_session (input) → list_exec_sessions → exec_session
    (until_exit) → answer, through LiteLLM; the session file keeps nanobot's names."""
    script(
        scripted_server,
        [
            _call("exec", command=f"{PY} -u -q -i", yield_time_ms=500),
            lambda sid: _call("exec_session", session_id=sid, input="print(6 * 7)\n"),
            _call("list_exec_sessions"),
            lambda sid: _call("exec_session", session_id=sid, input="exit()\n", until_exit=True),
            Reply("The answer is 42."),
        ],
    )
    runtime = _runtime(scripted_server, tmp_path)
    try:
        answer = await runtime.agent.process_direct("compute", session_key="cli:py")
        assert answer == "The answer is 42."
        last = scripted_server.chat_requests()[-1].body
        started, answered, listed, ended = _tool_messages(last)
        found = session_in(started)
        assert found is not None and found[1], started
        sid = found[0]
        assert "42" in answered and f"[session_id={sid}: still running" in answered
        assert listed.startswith(f"{sid} | running | ") and "-u -q -i" in listed
        assert f"[session_id={sid}: ended]" in ended and "[exit code: 0]" in ended
        offered = [
            {t["function"]["name"] for t in r.body["tools"]}
            for r in scripted_server.chat_requests()
        ]
        session_tools = {"exec_session", "list_exec_sessions"}
        assert "exec" in offered[0] and not session_tools & offered[0], "deferred until needed"
        assert all(session_tools <= names for names in offered[1:]), "loaded by the session"
        saved = [
            (call["function"]["name"], json.loads(call["function"]["arguments"]))
            for message in runtime.sessions.get_or_create("cli:py").messages
            for call in message.get("tool_calls") or []
        ]
        assert saved[1] == ("exec_session", {"session_id": sid, "input": "print(6 * 7)\n"})
        assert saved[2] == ("list_exec_sessions", {})
        scripted_server.route = None
        scripted_server.push(Reply("Still here."))
        assert await runtime.agent.process_direct("again", session_key="cli:py") == "Still here."
        again = scripted_server.chat_requests()[-1].body
        assert session_tools <= {t["function"]["name"] for t in again["tools"]}, "from history"
    finally:
        await runtime.stop()


@pytest.mark.parametrize("how", ["/stop", "runtime stop"])
async def test_a_session_ends_with_stop_and_with_the_runtime(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, how: str
) -> None:
    """The session outlives its turn (the next turn may use it) until ``/stop`` in its chat
    or the runtime's stop: then no process of it is left."""
    token = "TURNSESS" + secrets.token_hex(4)
    scripted_server.push(_call("exec", command=sleeper(token), yield_time_ms=0), Reply("Started."))
    runtime = _runtime(scripted_server, tmp_path)
    stopped = False
    try:
        assert await runtime.agent.process_direct("go", session_key="cli:s") == "Started."
        assert pids_with(token), "the session should outlive its turn"
        if how == "/stop":
            assert await runtime.agent.stop_session("cli:s") == "Stopped."
        else:
            await runtime.stop()
            stopped = True
        await until(lambda: not pids_with(token), timeout=10, what="the session's end")
    finally:
        kill_all(token)
        if not stopped:
            await runtime.stop()


def test_session_input_is_asked_about_like_exec(tmp_path: Path) -> None:
    """Input is a command; reading output, closing the input and terminating are not."""
    ws = tmp_path
    reason = approval_reason("exec_session", {"session_id": "a", "input": "ls\n"}, ws)
    assert reason is not None and "running program" in reason
    for quiet in ({"session_id": "a"}, {"session_id": "a", "input": ""}, {"terminate": True}):
        assert approval_reason("exec_session", quiet, ws) is None
    assert approval_reason("list_exec_sessions", {}, ws) is None
    assert allowance_name("exec_session") == allowance_name("exec") == "exec"
    policy = ApprovalPolicy()
    policy.allow_for_session("desktop:a", "exec_session")
    assert policy.is_allowed("desktop:a#sub-1", "exec") and not policy.is_allowed(
        "desktop:b", "exec"
    )
    policy.revoke_for_session("desktop:a", "exec_session")
    assert not policy.is_allowed("desktop:a", "exec")
    policy.allow_always("exec")
    assert policy.always_allowed == {"exec"} and policy.is_allowed("desktop:b", "exec_session")


async def test_an_exec_allowance_covers_the_sessions_input(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Allowed for this chat at the exec that starts the session: its input is not asked
    again (one allowance for both), and polling never is."""
    script(
        scripted_server,
        [
            _call("exec", command="cat", yield_time_ms=100),
            lambda sid: _call("exec_session", session_id=sid, input="echo-me\n"),
            lambda sid: _call("exec_session", session_id=sid, close_stdin=True, until_exit=True),
            Reply("Done."),
        ],
    )
    approver = Approver(Decision.ALLOW_SESSION)
    runtime = _runtime(scripted_server, tmp_path, ApprovalPolicy())
    assert runtime.approval is not None
    runtime.approval.add_approver(approver)
    try:
        assert await runtime.agent.process_direct("go", session_key="desktop:c") == "Done."
        assert [r.tool for r in approver.requests] == ["exec"]
        results = _tool_messages(scripted_server.chat_requests()[-1].body)
        assert "echo-me" in results[1] and "[exit code: 0]" in results[2]
    finally:
        await runtime.stop()


async def test_denied_input_never_reaches_the_program(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Allowed once for the start, then input denied: the model reads the denial, and the
    program never got the text (its output shows nothing of it)."""
    script(
        scripted_server,
        [
            _call("exec", command="cat", yield_time_ms=100),
            lambda sid: _call("exec_session", session_id=sid, input="secret-line\n"),
            lambda sid: _call("exec_session", session_id=sid, close_stdin=True, until_exit=True),
            Reply("Ok."),
        ],
    )
    approver = Approver(Decision.ALLOW_ONCE, Decision.DENY)
    runtime = _runtime(scripted_server, tmp_path, ApprovalPolicy())
    assert runtime.approval is not None
    runtime.approval.add_approver(approver)
    try:
        assert await runtime.agent.process_direct("go", session_key="desktop:d") == "Ok."
        asked = approver.requests[1]
        assert asked.tool == "exec_session" and "running program" in asked.reason
        results = _tool_messages(scripted_server.chat_requests()[-1].body)
        assert results[1].startswith(DENIED_RESULT.format(tool="exec_session"))
        assert "secret-line" not in results[2] and "[exit code: 0]" in results[2]
    finally:
        await runtime.stop()


async def test_a_subagents_sessions_end_with_it(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """A subagent's session (still running when its exec returned) ends when the subagent
    does, not at its time limit."""
    token = "SUBSESS" + secrets.token_hex(4)

    def route(body: dict[str, Any]) -> Reply:
        results = _tool_messages(body)
        if SUBAGENT_PROMPT in str(body["messages"][0]["content"]):
            if not results:
                return _call("exec", command=sleeper(token), yield_time_ms=0)
            return Reply("Subagent done.")
        return Reply("Finished.") if results else _call("spawn", task="sleep", label="sleeper")

    scripted_server.route = route
    runtime = _runtime(scripted_server, tmp_path)
    try:
        await runtime.agent.process_direct("spawn it", session_key="cli:sub")
        await runtime.subagents.idle()
        seen = [
            r
            for request in scripted_server.chat_requests()
            if SUBAGENT_PROMPT in str(request.body["messages"][0]["content"])
            for r in _tool_messages(request.body)
        ]
        assert any("still running" in r for r in seen), seen
        await until(lambda: not pids_with(token), timeout=10, what="the subagent's session end")
    finally:
        kill_all(token)
        await runtime.stop()


def test_the_result_names_the_session_for_the_card() -> None:
    assert session_in("x\n[session_id=0123456789ab: still running; …]") == ("0123456789ab", True)
    assert session_in("[session_id=0123456789ab: ended]\n[exit code: 0]") == (
        "0123456789ab",
        False,
    )
    assert session_in("[exit code: 0]") is None
    assert re.fullmatch(r"[0-9a-f]{12}", "0123456789ab")
