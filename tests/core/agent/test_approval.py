"""Tool approval: the policy, the gate, and the runner asking before risky calls.

The runner scenarios use the real agent (``build_agent``) on the scripted server, so the
model really receives the denial as the tool result.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from desktop.core.agent.approval import (
    DENIED_RESULT,
    NO_APPROVER_RESULT,
    ApprovalGate,
    ApprovalPolicy,
    ApprovalRequest,
    Decision,
    approval_reason,
    install_gate,
    origin_session,
)
from desktop.core.agent.factory import build_agent
from desktop.core.agent.loop import AgentLoop
from desktop.core.config.schema import Config
from desktop.core.tools.base import ToolContext
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


class ScriptedApprover:
    """Answers every request with the next scripted decision and records the requests."""

    def __init__(self, *decisions: Decision) -> None:
        self.decisions = list(decisions)
        self.requests: list[ApprovalRequest] = []

    async def request_approval(self, request: ApprovalRequest) -> Decision:
        self.requests.append(request)
        return self.decisions.pop(0)


def _agent(server: ScriptedOpenAIServer, tmp_path: Path) -> AgentLoop:
    config = Config.model_validate({"agents": {"defaults": {"workspace": str(tmp_path / "ws")}}})
    (tmp_path / "ws").mkdir(exist_ok=True)
    return build_agent(config, make_provider(server.url))


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
    agent = _agent(scripted_server, tmp_path)
    approver = ScriptedApprover(Decision.DENY)
    install_gate(agent, ApprovalGate(ApprovalPolicy(), approver))
    answer = await agent.process_direct(
        "touch it", session_key="desktop:t", channel="desktop", chat_id="t"
    )
    assert answer == "Understood, I won't."
    assert not marker.exists()
    [request] = approver.requests
    assert request.tool == "exec" and request.arguments == {"command": f"touch {marker}"}
    assert request.session_key == "desktop:t" and request.reason == "runs a shell command"
    assert _tool_results(scripted_server, 1) == [DENIED_RESULT.format(tool="exec")]
    await agent.stop()


async def test_allow_for_chat_runs_and_is_not_asked_again(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Allow for this chat: the command runs; a second exec in the same chat is not asked."""
    scripted_server.push(
        Reply(tool_calls=[("exec", '{"command": "echo first-run"}')]),
        Reply(tool_calls=[("exec", '{"command": "echo second-run"}')]),
        Reply("Both ran."),
    )
    agent = _agent(scripted_server, tmp_path)
    approver = ScriptedApprover(Decision.ALLOW_SESSION)
    install_gate(agent, ApprovalGate(ApprovalPolicy(), approver))
    answer = await agent.process_direct(
        "run", session_key="desktop:t", channel="desktop", chat_id="t"
    )
    assert answer == "Both ran."
    assert len(approver.requests) == 1
    results = _tool_results(scripted_server, 2)
    assert "first-run" in results[0] and "second-run" in results[1]
    await agent.stop()


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

    agent = _agent(scripted_server, tmp_path)
    install_gate(agent, ApprovalGate(ApprovalPolicy(), Waiting()))
    turn = asyncio.ensure_future(
        agent.process_direct("run", session_key="desktop:t", channel="desktop", chat_id="t")
    )
    await asyncio.wait_for(asked.wait(), 10)
    assert await agent.stop_session("desktop:t") == "Stopped."
    assert await turn == "Stopped."
    assert cancelled.is_set()
    session = agent.sessions.get_or_create("desktop:t")
    assert not session.has_pending_turn
    await agent.stop()


def test_install_gate_reaches_subagent_tools(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Subagent registries carry the gate too; installing twice does not nest wrappers."""
    agent = _agent(scripted_server, tmp_path)
    gate = ApprovalGate(ApprovalPolicy())
    install_gate(agent, gate)
    install_gate(agent, gate)
    assert agent.tools.approval is gate
    registry: Any = agent.subagents.tools_factory()
    assert registry.approval is gate and "exec" in registry
    install_gate(agent, None)
    assert agent.subagents.tools_factory().approval is None
