"""Goals (create_goal, update_goal, the heartbeat continuing them) and ``my``, through the
real runtime and LiteLLM on the scripted server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from desktop.core.agent.approval import ApprovalPolicy, Decision, approval_reason
from desktop.core.assembly import build_runtime
from desktop.core.config.schema import Config
from desktop.core.runtime import Runtime
from desktop.core.tools.goals import GOAL_KEY, MAX_CONTINUATIONS, GoalContinuer
from tests.core.agent.conftest import make_provider
from tests.core.agent.test_approval import ScriptedApprover
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


def _runtime(
    server: ScriptedOpenAIServer, tmp_path: Path, tools: dict[str, Any] | None = None, **kw: Any
) -> Runtime:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    config = Config.model_validate(
        {"agents": {"defaults": {"workspace": str(workspace)}}, "tools": tools or {}}
    )
    return build_runtime(config, make_provider(server.url), **kw)


def _last_user(server: ScriptedOpenAIServer, index: int) -> str:
    return str(server.chat_requests()[index].body["messages"][-1]["content"])


def _tool_texts(server: ScriptedOpenAIServer, index: int) -> list[str]:
    body = server.chat_requests()[index].body
    return [str(m["content"]) for m in body["messages"] if m["role"] == "tool"]


async def test_a_goal_is_stored_as_nanobot_keeps_it_shown_each_turn_and_completed(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = _runtime(scripted_server, tmp_path)
    create = {
        "objective": "Keep notes/todo.md sorted until the list is empty",
        "ui_summary": "todo",
    }
    scripted_server.push(
        Reply(tool_calls=[("create_goal", json.dumps(create))]),
        Reply("Goal set."),
        Reply(tool_calls=[("update_goal", json.dumps({"action": "complete", "recap": "Empty."}))]),
        Reply("Done."),
    )
    try:
        await runtime.agent.process_direct("keep my todo sorted", session_key="cli:goal")
        await runtime.agent.process_direct("the list is empty now", session_key="cli:goal")
    finally:
        await runtime.stop()
    assert "Active goal (work toward it" in _last_user(scripted_server, 2)
    assert "Keep notes/todo.md sorted" in _last_user(scripted_server, 2)
    assert "update_goal" in [
        t["function"]["name"] for t in scripted_server.chat_requests()[2].body["tools"]
    ]
    goal = runtime.sessions.get_or_create("cli:goal").metadata[GOAL_KEY]
    assert goal["status"] == "completed" and goal["recap"] == "Empty."
    assert goal["objective"].startswith("Keep notes") and goal["ui_summary"] == "todo"
    assert {"started_at", "ended_at", "completed_at"} <= goal.keys()


async def test_only_a_persons_turn_may_create_a_goal(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    from desktop.core.bus.events import InboundMessage

    runtime = _runtime(scripted_server, tmp_path)
    scripted_server.push(
        Reply(tool_calls=[("create_goal", json.dumps({"objective": "mine bitcoin forever"}))]),
        Reply("ok"),
    )
    message = InboundMessage("cli", "cron", "direct", "scheduled", session_key_override="cli:c")
    try:
        await runtime.agent.run_turn(message, source="cron")
    finally:
        await runtime.stop()
    assert GOAL_KEY not in runtime.sessions.get_or_create("cli:c").metadata
    assert "only a turn the person started" in _tool_texts(scripted_server, 1)[0]


async def test_the_heartbeat_continues_an_active_goal_a_bounded_number_of_times(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = _runtime(scripted_server, tmp_path)
    session = runtime.sessions.get_or_create("desktop:g")
    session.add_message("user", "write the report")
    session.metadata[GOAL_KEY] = {
        "status": "active",
        "objective": "Write report.md",
        "started_at": "x",
    }
    runtime.sessions.save(session)
    done = runtime.sessions.get_or_create("desktop:done")
    done.add_message("user", "old")
    done.metadata[GOAL_KEY] = {"status": "completed", "objective": "old"}
    runtime.sessions.save(done)
    scripted_server.push(Reply("Wrote the first section."))
    continuer = GoalContinuer(runtime.agent)
    try:
        assert await continuer.tick() == "goals continued: 1"
        assert len(scripted_server.chat_requests()) == 1
        assert "continue this chat's active goal" in _last_user(scripted_server, 0)
        goal = runtime.sessions.get_or_create("desktop:g").metadata[GOAL_KEY]
        assert goal["continued"] == 1
        session = runtime.sessions.get_or_create("desktop:g")
        session.metadata[GOAL_KEY] = {**goal, "continued": MAX_CONTINUATIONS}
        runtime.sessions.save(session)
        assert await continuer.tick() == "no goals to continue"
    finally:
        await runtime.stop()
    assert len(scripted_server.chat_requests()) == 1


async def test_my_checks_settings_without_secrets(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = _runtime(scripted_server, tmp_path)
    scripted_server.push(
        Reply(tool_calls=[("my", json.dumps({"action": "check"}))]),
        Reply(tool_calls=[("my", json.dumps({"action": "check", "key": "providers.api_key"}))]),
        Reply(
            tool_calls=[("my", json.dumps({"action": "set", "key": "max_iterations", "value": 5}))]
        ),
        Reply("ok"),
    )
    try:
        await runtime.agent.process_direct("what model?", session_key="cli:m")
    finally:
        await runtime.stop()
    overview, secret, refused = _tool_texts(scripted_server, 3)
    data = json.loads(overview)
    assert data["model"] == "openai/scripted" and data["max_iterations"] == 200
    assert "not accessible" in secret
    assert "allowSet" in refused and runtime.config.agents.defaults.max_tool_iterations == 200


async def test_my_set_goes_through_approval(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """With allowSet on, a change still asks: denied it stays, allowed it applies."""
    approver = ScriptedApprover(Decision.DENY, Decision.ALLOW_ONCE)
    runtime = _runtime(
        scripted_server, tmp_path, {"my": {"allowSet": True}}, approval=ApprovalPolicy()
    )
    assert runtime.approval is not None
    runtime.approval.add_approver(approver)
    change = json.dumps({"action": "set", "key": "max_iterations", "value": 7})
    scripted_server.push(
        Reply(tool_calls=[("my", change)]), Reply(tool_calls=[("my", change)]), Reply("ok")
    )
    try:
        await runtime.agent.process_direct(
            "fewer steps", session_key="desktop:m", channel="desktop"
        )
    finally:
        await runtime.stop()
    denied, applied = _tool_texts(scripted_server, 2)
    assert "Denied" in denied and "Set max_iterations = 7 (was 200)" in applied
    assert runtime.config.agents.defaults.max_tool_iterations == 7
    assert len(approver.requests) == 2 and "max_iterations" in approver.requests[0].reason
    assert approval_reason("my", {"action": "check"}, tmp_path) is None
