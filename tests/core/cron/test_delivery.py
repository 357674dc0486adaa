"""Jobs firing real agent turns (scripted server, real LiteLLM path), the cron tool, system jobs."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, cast

import pytest

from desktop.core.assembly import build_runtime
from desktop.core.bus.events import OutboundMessage, ReminderDue, RunEvent
from desktop.core.config.schema import Config
from desktop.core.cron.system_jobs import sync_system_jobs
from desktop.core.cron.types import CronPayload, CronSchedule
from desktop.core.runtime import Runtime
from desktop.core.tools.base import ToolContext
from tests.core.agent.conftest import make_provider
from tests.core.cron.test_cron import FakeClock, ms
from tests.fakes.openai_server import Fail, Reply, ScriptedOpenAIServer
from tests.typed import present

NOW = "2026-05-01T10:00:00+00:00"


def _agent(
    server: ScriptedOpenAIServer, tmp_path: Path, clock: FakeClock, **defaults: Any
) -> Runtime:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    config = Config.model_validate(
        {"agents": {"defaults": {"workspace": str(workspace), "timezone": "UTC", **defaults}}}
    )
    return build_runtime(config, make_provider(server.url), clock=clock)


def _reminders(agent: Runtime) -> list[ReminderDue]:
    seen: list[ReminderDue] = []

    def listen(event: RunEvent) -> None:
        if isinstance(event, ReminderDue):
            seen.append(event)

    agent.bus.subscribe(listen)
    return seen


def _session_lines(agent: Runtime, key: str) -> list[dict[str, Any]]:
    path = agent.sessions.path_for(key)
    return [json.loads(line) for line in path.read_text().splitlines()][1:]


async def test_reminder_asked_in_chat_fires_a_turn_in_that_chat(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """The model schedules via the cron tool; at the time a real turn runs in the origin session."""
    clock = FakeClock(NOW)
    agent = _agent(scripted_server, tmp_path, clock)
    seen = _reminders(agent)
    scripted_server.push(
        Reply(
            tool_calls=[
                (
                    "cron",
                    json.dumps(
                        {
                            "action": "add",
                            "message": "Stretch your legs",
                            "at": "2026-05-01T10:30:00",
                        }
                    ),
                )
            ]
        ),
        Reply("Scheduled for 10:30."),
    )
    try:
        answer = await agent.agent.process_direct(
            "remind me at 10:30 to stretch",
            session_key="desktop:c1",
            channel="desktop",
            chat_id="c1",
        )
        assert answer == "Scheduled for 10:30."
        stored = json.loads(agent.cron.store_path.read_text())
        job = next(j for j in stored["jobs"] if j["payload"]["kind"] == "agent_turn")
        assert job["payload"]["sessionKey"] == "desktop:c1"
        assert (job["payload"]["originChannel"], job["payload"]["originChatId"]) == (
            "desktop",
            "c1",
        )
        assert job["schedule"]["atMs"] == ms("2026-05-01T10:30:00+00:00") and job["deleteAfterRun"]

        scripted_server.push(Reply("Time to stretch your legs!"))
        clock.set("2026-05-01T10:29:59+00:00")
        await agent.cron.tick()
        assert len(scripted_server.chat_requests()) == 2 and seen == [], "not due yet"
        clock.set("2026-05-01T10:30:00+00:00")
        await agent.cron.tick()
    finally:
        await agent.stop()
    last = scripted_server.chat_requests()[-1].body["messages"][-1]["content"]
    assert "scheduled time has arrived" in json.dumps(last) and "Stretch your legs" in json.dumps(
        last
    )
    assert [(r.session_key, r.text, r.channel, r.chat_id, r.source) for r in seen] == [
        ("desktop:c1", "Time to stretch your legs!", "desktop", "c1", "cron")
    ]
    lines = _session_lines(agent, "desktop:c1")
    assert [m["role"] for m in lines][-2:] == ["user", "assistant"]
    assert lines[-1]["content"] == "Time to stretch your legs!"
    assert agent.cron.get_job(job["id"]) is None, "an 'at' job is removed after it ran"


async def test_a_busy_session_makes_the_reminder_wait(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """While the session's turn lock is held (a turn is running) the reminder turn does not start."""
    clock = FakeClock(NOW)
    agent = _agent(scripted_server, tmp_path, clock)
    seen = _reminders(agent)
    payload = CronPayload(
        message="tea", session_key="desktop:busy", origin_channel="desktop", origin_chat_id="busy"
    )
    agent.cron.add_job("tea", CronSchedule("every", every_ms=60_000), payload)
    scripted_server.push(Reply("Tea time."))
    try:
        async with agent.agent.session_lock("desktop:busy"):
            clock.advance(60)
            tick = asyncio.ensure_future(agent.cron.tick())
            await asyncio.sleep(0.5)  # the test: the busy session holds the job back
            assert not tick.done() and scripted_server.chat_requests() == []
        await asyncio.wait_for(tick, 30)
    finally:
        await agent.stop()
    assert [r.text for r in seen] == ["Tea time."]
    assert len(scripted_server.chat_requests()) == 1


async def test_reminder_for_a_chat_channel_is_sent_there(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """A job from telegram:42 (nanobot 0.3.5's session-bound payload) answers on telegram."""
    clock = FakeClock(NOW)
    agent = _agent(scripted_server, tmp_path, clock)
    seen = _reminders(agent)
    payload = CronPayload(
        message="standup", session_key="telegram:42", origin_channel="telegram", origin_chat_id="42"
    )
    job = agent.cron.add_job("standup", CronSchedule("every", every_ms=60_000), payload)
    scripted_server.push(Reply("Standup starts now."))
    sent: list[OutboundMessage] = []

    class Telegram:
        name = "telegram"

        async def send(self, message: OutboundMessage) -> None:
            sent.append(message)

    agent.channels.register(Telegram())
    try:
        assert await agent.cron.run_now(job.id) == "Standup starts now."
    finally:
        await agent.stop()
    (out,) = sent
    assert (out.channel, out.chat_id, out.content) == ("telegram", "42", "Standup starts now.")
    assert out.metadata["reminder"] is True and out.metadata["cron_job"] == job.id
    assert seen[0].session_key == "telegram:42"


async def test_model_down_still_delivers_the_reminder_text(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """No model: the person still gets the reminder's own text; the run is recorded as failed."""
    clock = FakeClock(NOW)
    agent = _agent(scripted_server, tmp_path, clock)
    seen = _reminders(agent)
    job = agent.cron.add_job(
        "pills", CronSchedule("every", every_ms=60_000), CronPayload(message="Take the pills")
    )
    scripted_server.push(Fail(401, "bad key"))
    clock.advance(60)
    try:
        await agent.cron.tick()
    finally:
        await agent.stop()
    assert [(r.text, r.session_key) for r in seen] == [
        ("Reminder: Take the pills", "desktop:reminders")
    ]
    state = present(agent.cron.get_job(job.id)).state
    assert state.last_status == "error" and "could not be reached" in (state.last_error or "")


async def test_cron_tool_list_remove_and_protection(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """The tool lists system jobs as protected, refuses to remove them, validates its input."""
    clock = FakeClock(NOW)
    agent = _agent(scripted_server, tmp_path, clock)
    sync_system_jobs(agent.cron, agent.config)
    tool = present(agent.tools.get("cron"))
    ctx = ToolContext(workspace=agent.config.workspace_path, session_key="cli:direct")
    try:
        listed = (await tool.execute(ctx, action="list")).text
        assert (
            "dream (id: dream, every 2h)" in listed
            and "heartbeat (id: heartbeat, every 30m)" in listed
        )
        assert listed.count("Protected system job") == 2
        refused = await tool.execute(ctx, action="remove", job_id="dream")
        assert refused.is_error and "system job" in refused.text
        for bad, expected in [
            ({"message": "x"}, "exactly one"),
            ({"message": "x", "every_seconds": 60, "cron_expr": "* * * * *"}, "exactly one"),
            ({"message": "x", "cron_expr": "0 9 * * *", "tz": "Mars/Olympus"}, "unknown timezone"),
            ({"message": "x", "cron_expr": "61 * * * *"}, "cron"),
            ({"message": "x", "at": "tomorrow"}, "ISO time"),
            ({"every_seconds": 60}, "message is required"),
        ]:
            result = await tool.execute(ctx, action="add", **cast(dict[str, Any], bad))
            assert result.is_error and expected in result.text, (bad, result.text)
        added = await tool.execute(
            ctx, action="add", message="water", every_seconds=3600, name="plants"
        )
        job_id = added.text.split("id: ")[1].split(",")[0]
        assert (
            await tool.execute(ctx, action="remove", job_id=job_id)
        ).text == f"Removed job {job_id}."
        assert (await tool.execute(ctx, action="remove", job_id=job_id)).is_error
    finally:
        await agent.stop()
    assert {j.id for j in agent.cron.list_jobs()} == {"dream", "heartbeat"}


async def test_a_scheduled_turn_cannot_schedule_more_jobs(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """A reminder turn that tries to add a job gets an error result (no self-replicating jobs)."""
    clock = FakeClock(NOW)
    agent = _agent(scripted_server, tmp_path, clock)
    job = agent.cron.add_job(
        "loop", CronSchedule("every", every_ms=60_000), CronPayload(message="again")
    )
    scripted_server.push(
        Reply(
            tool_calls=[
                ("cron", json.dumps({"action": "add", "message": "again", "every_seconds": 5}))
            ]
        ),
        Reply("Could not schedule."),
    )
    try:
        await agent.cron.run_now(job.id)
    finally:
        await agent.stop()
    tool_result = next(
        m for m in scripted_server.chat_requests()[-1].body["messages"] if m["role"] == "tool"
    )
    assert "cannot schedule new jobs" in tool_result["content"]
    assert [j.id for j in agent.cron.list_jobs()] == [job.id]


async def test_system_jobs_follow_the_config(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """dream/heartbeat are registered as nanobot system_event jobs, updated, and dropped when disabled."""
    clock = FakeClock(NOW)
    agent = _agent(scripted_server, tmp_path, clock)
    try:
        sync_system_jobs(agent.cron, agent.config)
        dream = present(agent.cron.get_job("dream"))
        assert dream.payload.kind == "system_event" and dream.schedule.every_ms == 2 * 3_600_000
        assert dream.state.next_run_at_ms == ms("2026-05-01T12:00:00+00:00")
        clock.advance(600)
        sync_system_jobs(agent.cron, agent.config)  # a restart keeps the schedule's next run
        assert present(agent.cron.get_job("dream")).state.next_run_at_ms == ms(
            "2026-05-01T12:00:00+00:00"
        )
        agent.config.agents.defaults.dream.interval_h = 6
        agent.config.gateway.heartbeat.enabled = False
        sync_system_jobs(agent.cron, agent.config)
        assert present(agent.cron.get_job("dream")).schedule.every_ms == 6 * 3_600_000
        assert agent.cron.get_job("heartbeat") is None
        # the dream job runs Dream (no new history: no model call, a clear result)
        result = await agent.cron.run_now("dream")
    finally:
        await agent.stop()
    assert "nothing" in (result or "").lower() or "no new" in (result or "").lower()
    assert scripted_server.chat_requests() == []
    assert present(agent.cron.get_job("dream")).state.last_status == "ok"


def test_legacy_dream_cron_expression_is_honoured(tmp_path: Path) -> None:
    """nanobot's legacy ``dream.cron`` override becomes a cron schedule in the configured zone."""
    from desktop.core.cron.system_jobs import dream_schedule

    config = Config.model_validate(
        {"agents": {"defaults": {"timezone": "Europe/Berlin", "dream": {"cron": "0 3 * * *"}}}}
    )
    schedule = dream_schedule(config)
    assert (schedule.kind, schedule.expr, schedule.tz) == ("cron", "0 3 * * *", "Europe/Berlin")


@pytest.mark.parametrize(
    "payload,expected",
    [
        (
            CronPayload(session_key="telegram:42", origin_channel="telegram", origin_chat_id="42"),
            ("telegram", "42", "telegram:42"),
        ),
        (CronPayload(channel="slack", to="C1"), ("slack", "C1", "slack:C1")),
        (CronPayload(session_key="cli:direct"), ("cli", "direct", "cli:direct")),
        (CronPayload(), ("desktop", "reminders", "desktop:reminders")),
    ],
)
def test_job_target(payload: CronPayload, expected: tuple[str, str, str]) -> None:
    from desktop.core.cron.delivery import job_target

    assert job_target(payload) == expected
