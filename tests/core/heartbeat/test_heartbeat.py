"""Heartbeat: quiet without tasks, skip/run decisions through a tool, a trimmed session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktop.core.agent.loop import AgentLoop
from desktop.core.assembly import build_runtime
from desktop.core.bus.events import ReminderDue, RunEvent
from desktop.core.config.schema import Config
from desktop.core.heartbeat.service import (
    SESSION_KEY,
    HeartbeatService,
    active_tasks,
    parse_decision,
    trim_messages,
    worth_telling,
)
from desktop.core.utils.resources import read_template
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

FIXTURE_HEARTBEAT = (
    Path(__file__).parents[2] / "fixtures" / "nanobot_0_3_5" / "workspace" / "HEARTBEAT.md"
)


def _setup(
    server: ScriptedOpenAIServer, tmp_path: Path, tasks: str | None
) -> tuple[AgentLoop, HeartbeatService, list[ReminderDue]]:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    config = Config.model_validate(
        {"agents": {"defaults": {"workspace": str(workspace), "timezone": "UTC"}}}
    )
    runtime = build_runtime(config, make_provider(server.url))  # syncs the HEARTBEAT.md template
    agent = runtime.agent
    if tasks is not None:
        (workspace / "HEARTBEAT.md").write_text(read_template("HEARTBEAT.md") + tasks)
    seen: list[ReminderDue] = []

    def listen(event: RunEvent) -> None:
        if isinstance(event, ReminderDue):
            seen.append(event)

    agent.bus.subscribe(listen)
    return agent, runtime.heartbeat, seen


def _decide(action: str, **extra: str) -> Reply:
    return Reply(tool_calls=[("heartbeat", json.dumps({"action": action, **extra}))])


def test_templates_have_no_active_tasks() -> None:
    """Ours and nanobot's HEARTBEAT.md templates count as empty; real lines count."""
    assert active_tasks(read_template("HEARTBEAT.md")) == []
    assert active_tasks(FIXTURE_HEARTBEAT.read_text()) == []
    text = (
        read_template("HEARTBEAT.md")
        + "- Check the build status every morning\n<!-- note -->\n- [ ]\n"
    )
    assert active_tasks(text) == ["- Check the build status every morning"]


async def test_no_tasks_no_model_call(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    agent, heartbeat, seen = _setup(scripted_server, tmp_path, None)
    try:
        assert await heartbeat.tick() == "no active tasks"
        (agent.config.workspace_path / "HEARTBEAT.md").unlink()
        assert await heartbeat.tick() == "no active tasks"
    finally:
        await agent.stop()
    assert scripted_server.chat_requests() == [] and seen == []


async def test_skip_decision_makes_one_small_call(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    agent, heartbeat, seen = _setup(scripted_server, tmp_path, "- Water the plants on Sundays\n")
    scripted_server.push(_decide("skip", reason="it is Friday"))
    try:
        assert await heartbeat.tick() == "skipped: it is Friday"
    finally:
        await agent.stop()
    (request,) = scripted_server.chat_requests()
    body = request.body
    assert [t["function"]["name"] for t in body["tools"]] == ["heartbeat"]
    assert body["tool_choice"]["function"]["name"] == "heartbeat"
    assert "Water the plants on Sundays" in body["messages"][0]["content"]
    assert seen == [] and not agent.sessions.path_for(SESSION_KEY).exists()


async def test_run_reports_only_news(scripted_server: ScriptedOpenAIServer, tmp_path: Path) -> None:
    """``HEARTBEAT_OK`` stays quiet; a real finding becomes a heartbeat ReminderDue."""
    agent, heartbeat, seen = _setup(scripted_server, tmp_path, "- Check disk space\n")
    scripted_server.push(
        _decide("run", tasks="Check disk space"),
        Reply("HEARTBEAT_OK"),
        _decide("run", tasks="Check disk space"),
        Reply("The disk is 95% full."),
    )
    try:
        assert await heartbeat.tick() == "ran: nothing to report"
        assert seen == []
        assert await heartbeat.tick() == "ran: notified"
    finally:
        await agent.stop()
    assert [(r.source, r.job_id, r.session_key, r.text) for r in seen] == [
        ("heartbeat", "heartbeat", SESSION_KEY, "The disk is 95% full.")
    ]
    turn = scripted_server.chat_requests()[1].body
    assert "tools" in turn and len(turn["tools"]) > 1, "the run is a full agent turn"
    assert "Check disk space" in json.dumps(turn["messages"][-1]["content"])


async def test_heartbeat_session_is_trimmed(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Twenty heartbeats later the session still holds only the last few messages."""
    agent, heartbeat, _ = _setup(scripted_server, tmp_path, "- Check the weather\n")
    try:
        for i in range(20):
            scripted_server.push(_decide("run"), Reply(f"HEARTBEAT_OK {i}"))
            await heartbeat.tick()
    finally:
        await agent.stop()
    session = agent.sessions.get_or_create(SESSION_KEY)
    assert len(session.messages) <= heartbeat.keep_messages + 2
    assert session.messages[0]["role"] == "user"
    last_turn = scripted_server.chat_requests()[-1].body["messages"]
    assert len([m for m in last_turn if m["role"] != "system"]) <= heartbeat.keep_messages + 2


@pytest.mark.parametrize(
    "arguments,action",
    [
        ({"action": "run", "tasks": "x"}, "run"),
        ({"action": "skip"}, "skip"),
        ({"action": "maybe"}, "skip"),
        (None, "skip"),
        ({}, "skip"),
    ],
)
def test_unclear_decisions_skip(arguments: dict[str, Any] | None, action: str) -> None:
    assert parse_decision(arguments).action == action


def test_trim_starts_at_a_user_message() -> None:
    messages = [
        {"role": r}
        for r in [
            "user",
            "assistant",
            "user",
            "assistant",
            "tool",
            "assistant",
            "user",
            "assistant",
        ]
    ]
    assert trim_messages(messages, 5) == 6
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert trim_messages(messages, 5) == 0


def test_worth_telling() -> None:
    assert not worth_telling("HEARTBEAT_OK") and not worth_telling("  ") and not worth_telling(None)
    assert worth_telling("Your build failed.")
