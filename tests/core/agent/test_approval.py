"""Tool approval: the policy, the gate, and the runner asking before risky calls.

The runner scenarios use the real runtime (``build_runtime``) on the scripted server, so the
model really receives the denial as the tool result.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from desktop.core.agent.approval import (
    DEFAULT_TIMEOUT_S,
    DENIED_RESULT,
    NO_APPROVER_RESULT,
    TIMED_OUT_RESULT,
    ApprovalGate,
    ApprovalPolicy,
    ApprovalRequest,
    Decision,
    approval_reason,
    describe_wait,
    origin_session,
)
from desktop.core.agent.approval_prefs import policy_from_prefs
from desktop.core.assembly import build_runtime
from desktop.core.config.prefs import PrefsStore
from desktop.core.config.schema import Config
from desktop.core.runtime import Runtime
from desktop.core.tools.base import ToolContext
from desktop.core.utils.tasks import TaskOwner
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

SUBAGENT_PROMPT = "You are a background worker for nanobot"


class ScriptedApprover:
    """Answers every request with the next scripted decision and records the requests."""

    def __init__(self, *decisions: Decision) -> None:
        self.decisions = list(decisions)
        self.requests: list[ApprovalRequest] = []

    async def request_approval(self, request: ApprovalRequest) -> Decision:
        self.requests.append(request)
        return self.decisions.pop(0)


def _runtime(server: ScriptedOpenAIServer, tmp_path: Path, approver: Any) -> Runtime:
    """The real runtime with an "ask" policy and ``approver`` answering for every channel."""
    config = Config.model_validate({"agents": {"defaults": {"workspace": str(tmp_path / "ws")}}})
    (tmp_path / "ws").mkdir(exist_ok=True)
    runtime = build_runtime(config, make_provider(server.url), approval=ApprovalPolicy())
    assert runtime.approval is not None
    runtime.approval.add_approver(approver)
    return runtime


def _tool_results(server: ScriptedOpenAIServer, request_index: int) -> list[str]:
    body = server.chat_requests()[request_index].body
    return [str(m["content"]) for m in body["messages"] if m["role"] == "tool"]


def test_reasons(tmp_path: Path) -> None:
    """exec, writes outside the workspace and MCP tools need approval; the rest does not."""
    ws = tmp_path / "ws"
    ws.mkdir()
    assert approval_reason("exec", {"command": "ls"}, ws) == "runs a shell command"
    outside = approval_reason("write_file", {"path": str(tmp_path / "x.txt")}, ws)
    assert outside is not None and str(tmp_path / "x.txt") in outside
    assert approval_reason("edit_file", {"path": "../escape.txt"}, ws) is not None
    assert approval_reason("write_file", {"path": "notes/a.md"}, ws) is None
    assert approval_reason("notebook_edit", {"path": str(ws / "n.ipynb")}, ws) is None
    assert approval_reason("mcp_time_get_current_time", {}, ws) == "calls a tool of an MCP server"
    assert approval_reason("read_file", {"path": "/etc/passwd"}, ws) is None
    assert origin_session("desktop:a#sub-2") == "desktop:a"


def test_policy_remembers_and_reports_changes() -> None:
    """Always-allowed tools persist through on_change; chat allowances stay in the chat."""
    changes: list[set[str]] = []
    policy = ApprovalPolicy(on_change=lambda p: changes.append(set(p.always_allowed)))
    request = ApprovalRequest("desktop:a", "c1", "exec", {"command": "ls"}, "runs a shell command")
    policy.record(request, Decision.ALLOW_SESSION)
    assert policy.is_allowed("desktop:a", "exec") and policy.is_allowed("desktop:a#sub-1", "exec")
    assert not policy.is_allowed("desktop:b", "exec")
    assert changes == []
    policy.record(request, Decision.ALWAYS)
    assert policy.is_allowed("desktop:b", "exec") and changes == [{"exec"}]
    policy.revoke("exec")
    policy.forget_session("desktop:a")
    assert not policy.is_allowed("desktop:a", "exec")
    policy.set_mode("autonomous")
    assert policy.is_allowed("desktop:a", "exec")
    with pytest.raises(ValueError):
        policy.set_mode("sometimes")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        ApprovalPolicy(mode="never")  # type: ignore[arg-type]


async def test_gate_without_approver_refuses(tmp_path: Path) -> None:
    """Nobody to ask: the call is refused with a clear text, unless the policy allows it."""
    ctx = ToolContext(workspace=tmp_path, session_key="desktop:a")
    gate = ApprovalGate(ApprovalPolicy())
    assert await gate.check("c", "exec", {"command": "ls"}, ctx) == NO_APPROVER_RESULT.format(
        tool="exec"
    )
    assert await gate.check("c", "read_file", {"path": "x"}, ctx) is None
    gate.policy.set_mode("autonomous")
    assert await gate.check("c", "exec", {"command": "ls"}, ctx) is None


async def test_denied_exec_is_not_run_and_the_model_reads_the_denial(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Deny: the command never runs and the next request carries the denial text."""
    marker = tmp_path / "ws" / "ran.txt"
    scripted_server.push(
        Reply(tool_calls=[("exec", json.dumps({"command": f"touch {marker}"}))]),
        Reply("Understood, I won't."),
    )
    approver = ScriptedApprover(Decision.DENY)
    runtime = _runtime(scripted_server, tmp_path, approver)
    agent = runtime.agent
    answer = await agent.process_direct(
        "touch it", session_key="desktop:t", channel="desktop", chat_id="t"
    )
    assert answer == "Understood, I won't."
    assert not marker.exists()
    [request] = approver.requests
    assert request.tool == "exec" and request.arguments == {"command": f"touch {marker}"}
    assert request.session_key == "desktop:t" and request.reason == "runs a shell command"
    assert _tool_results(scripted_server, 1) == [DENIED_RESULT.format(tool="exec")]
    await runtime.stop()


async def test_allow_for_chat_runs_and_is_not_asked_again(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Allow for this chat: the command runs; a second exec in the same chat is not asked."""
    scripted_server.push(
        Reply(tool_calls=[("exec", '{"command": "echo first-run"}')]),
        Reply(tool_calls=[("exec", '{"command": "echo second-run"}')]),
        Reply("Both ran."),
    )
    approver = ScriptedApprover(Decision.ALLOW_SESSION)
    runtime = _runtime(scripted_server, tmp_path, approver)
    agent = runtime.agent
    answer = await agent.process_direct(
        "run", session_key="desktop:t", channel="desktop", chat_id="t"
    )
    assert answer == "Both ran."
    assert len(approver.requests) == 1
    results = _tool_results(scripted_server, 2)
    assert "first-run" in results[0] and "second-run" in results[1]
    await runtime.stop()


async def test_cancelling_the_turn_cancels_the_wait(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """/stop while the prompt is open: the wait is cancelled, the session stays consistent."""
    scripted_server.push(Reply(tool_calls=[("exec", '{"command": "echo never"}')]))
    asked = asyncio.Event()
    cancelled = asyncio.Event()

    class Waiting:
        async def request_approval(self, request: ApprovalRequest) -> Decision:
            asked.set()
            try:
                await asyncio.Future()
            except asyncio.CancelledError:
                cancelled.set()
                raise
            return Decision.DENY

    runtime = _runtime(scripted_server, tmp_path, Waiting())
    agent = runtime.agent
    turn = asyncio.ensure_future(
        agent.process_direct("run", session_key="desktop:t", channel="desktop", chat_id="t")
    )
    await asyncio.wait_for(asked.wait(), 10)
    assert await agent.stop_session("desktop:t") == "Stopped."
    assert await turn == "Stopped."
    assert cancelled.is_set()
    session = agent.sessions.get_or_create("desktop:t")
    assert not session.has_pending_turn
    await runtime.stop()


async def test_a_subagent_asks_the_same_gate(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """A subagent's exec goes through the runtime's gate: the approver is asked and its denial
    is what the subagent's model reads."""
    marker = tmp_path / "ws" / "sub-ran.txt"
    main = [
        Reply(tool_calls=[("spawn", json.dumps({"task": "touch the marker", "label": "t"}))]),
        Reply("Started it."),
        Reply("The background task reported back."),
    ]
    sub = [
        Reply(tool_calls=[("exec", json.dumps({"command": f"touch {marker}"}))]),
        Reply("I was not allowed."),
    ]

    def route(body: dict[str, Any]) -> Reply:
        system = str(body["messages"][0].get("content", ""))
        return (sub if SUBAGENT_PROMPT in system else main).pop(0)

    scripted_server.route = route
    approver = ScriptedApprover(Decision.DENY)
    runtime = _runtime(scripted_server, tmp_path, approver)
    runtime.agent.start()
    try:
        assert (
            await runtime.agent.process_direct(
                "do it in the background", session_key="desktop:t", channel="desktop", chat_id="t"
            )
            == "Started it."
        )
        await asyncio.wait_for(runtime.subagents.idle(), 20)
        await asyncio.wait_for(runtime.agent.idle(), 20)
    finally:
        await runtime.stop()
    [request] = approver.requests
    assert request.tool == "exec" and request.session_key == "desktop:t"
    assert not marker.exists()
    sub_requests = [
        r.body
        for r in scripted_server.chat_requests()
        if SUBAGENT_PROMPT in str(r.body["messages"][0].get("content", ""))
    ]
    assert DENIED_RESULT.format(tool="exec") in [
        m["content"] for m in sub_requests[-1]["messages"] if m["role"] == "tool"
    ]


async def test_unanswered_approval_times_out_as_a_denial(tmp_path: Path) -> None:
    """Nobody answers within the timeout: the call is refused and the model is told why."""
    asked = asyncio.Event()

    class Silent:
        async def request_approval(self, request: ApprovalRequest) -> Decision:
            asked.set()
            await asyncio.Future()
            return Decision.ALLOW_ONCE

    gate = ApprovalGate(ApprovalPolicy(), timeout_s=0.2)
    gate.add_approver(Silent())
    ctx = ToolContext(workspace=tmp_path, session_key="telegram:1", channel="telegram")
    result = await gate.check("c", "exec", {"command": "ls"}, ctx)
    assert asked.is_set()
    assert result == TIMED_OUT_RESULT.format(tool="exec", waited="0.2 seconds")
    assert "timed out" in result and "within 0.2 seconds" in result and "denied" in result


def test_the_timeout_is_described_for_the_model() -> None:
    """The model reads how long the gate waited, in the unit the person chose."""
    assert describe_wait(600) == "10 minutes"
    assert describe_wait(60) == "1 minute"
    assert describe_wait(90) == "90 seconds"
    assert describe_wait(1) == "1 second"
    assert describe_wait(0.2) == "0.2 seconds"


async def test_the_timeout_follows_the_preferences_while_running(tmp_path: Path) -> None:
    """desktop.json's approvalTimeoutMinutes is the running gate's timeout; a change in the
    preferences applies to the next request, no restart; ``null`` waits for ever."""
    prefs = tmp_path / "desktop.json"
    prefs.write_text(json.dumps({"approvalTimeoutMinutes": 3}))
    store = PrefsStore(prefs)
    owner = TaskOwner("prefs")
    gate = ApprovalGate(policy_from_prefs(store, owner))
    assert gate.timeout_s == 180
    store.update(approval_timeout_minutes=None)
    assert gate.timeout_s is None
    store.update(approval_timeout_minutes=15)
    assert gate.timeout_s == 900
    assert ApprovalGate(ApprovalPolicy()).timeout_s == DEFAULT_TIMEOUT_S == 600
    with pytest.raises(ValueError):
        ApprovalPolicy(timeout_s=0)
    await owner.aclose()


async def test_first_answer_wins_and_other_prompts_are_withdrawn(tmp_path: Path) -> None:
    """The desktop and the chat's own channel both ask; the first answer decides, the other
    prompt is cancelled; an approver for another channel is not asked at all."""
    withdrawn = asyncio.Event()

    class Slow:
        def __init__(self) -> None:
            self.asked = 0

        async def request_approval(self, request: ApprovalRequest) -> Decision:
            self.asked += 1
            try:
                await asyncio.Future()
            except asyncio.CancelledError:
                withdrawn.set()
                raise
            return Decision.ALLOW_ONCE

    slow, other = Slow(), ScriptedApprover(Decision.ALLOW_ONCE)
    fast = ScriptedApprover(Decision.DENY)
    gate = ApprovalGate(ApprovalPolicy())
    gate.add_approver(slow)
    gate.add_approver(fast, channels=["telegram"])
    remove = gate.add_approver(other, channels=["matrix"])
    ctx = ToolContext(workspace=tmp_path, session_key="telegram:1", channel="telegram")
    assert await gate.check("c", "exec", {"command": "ls"}, ctx) == DENIED_RESULT.format(
        tool="exec"
    )
    assert slow.asked == 1 and withdrawn.is_set() and len(fast.requests) == 1
    assert other.requests == []
    remove()
    assert gate.approvers_for("matrix") == [slow]
