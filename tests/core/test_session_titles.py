"""Chat titles are never internal text: reminders, the heartbeat and background-task reports
(ours and nanobot 0.3.5's) do not name a chat; the app's own chats have fixed names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktop.core.assembly import build_runtime
from desktop.core.config.schema import Config
from desktop.core.cron.delivery import DEFAULT_CHANNEL, DEFAULT_CHAT
from desktop.core.cron.types import CronPayload, CronSchedule
from desktop.core.heartbeat.service import SESSION_KEY as HEARTBEAT_KEY
from desktop.core.runtime import Runtime
from desktop.core.session.edits import is_person_message
from desktop.core.session.manager import Session, SessionManager
from desktop.core.session.naming import HEARTBEAT_KEYS, REMINDERS_KEY, derive_title
from desktop.core.session.titles import first_exchange
from desktop.core.utils.resources import read_template
from tests.core.agent.conftest import make_provider
from tests.core.cron.test_cron import FakeClock, ms
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

NOW = "2026-05-01T10:00:00+00:00"


def _runtime(server: ScriptedOpenAIServer, tmp_path: Path, clock: FakeClock) -> Runtime:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    config = Config.model_validate(
        {"agents": {"defaults": {"workspace": str(workspace), "timezone": "UTC"}}}
    )
    return build_runtime(config, make_provider(server.url), clock=clock)


def _titles_on_disk(runtime: Runtime) -> dict[str, str]:
    """The chat list's titles as a fresh process reads them (file heads, no cache)."""
    fresh = SessionManager(runtime.config.workspace_path, config_dir=runtime.sessions.config_dir)
    return {s.key: s.title for s in fresh.summaries()}


def test_the_named_sessions_are_the_ones_the_app_keeps() -> None:
    assert f"{DEFAULT_CHANNEL}:{DEFAULT_CHAT}" == REMINDERS_KEY
    assert HEARTBEAT_KEY in HEARTBEAT_KEYS


async def test_reminder_runs_never_title_their_chat(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """A reminder made in the Reminders page and one bound to a chat nobody wrote in yet: after
    they ran, the chat list says "Reminders" for both (it said ``[Scheduled task "…" — the
    scheduled time has…``)."""
    clock = FakeClock(NOW)
    runtime = _runtime(scripted_server, tmp_path, clock)
    at = CronSchedule("at", at_ms=ms("2026-05-01T10:01:00+00:00"))
    runtime.cron.add_job("Stretch", at, message="Stretch your legs", delete_after_run=True)
    bound = CronPayload(
        message="Drink water",
        session_key="desktop:c9",
        origin_channel="desktop",
        origin_chat_id="c9",
    )
    runtime.cron.add_job("Water", at, bound, delete_after_run=True)
    scripted_server.push(Reply("Time to stretch!"), Reply("Drink some water."))
    await runtime.start()
    try:
        clock.advance(60)
        await runtime.cron.tick()
        await runtime.cron.idle()
        cached = {k: runtime.sessions.get_or_create(k).title for k in (REMINDERS_KEY, "desktop:c9")}
    finally:
        await runtime.stop()
    assert cached == {REMINDERS_KEY: "Reminders", "desktop:c9": "Reminders"}
    on_disk = _titles_on_disk(runtime)
    assert on_disk[REMINDERS_KEY] == "Reminders" and on_disk["desktop:c9"] == "Reminders"
    assert not any("Scheduled task" in title for title in on_disk.values())


async def test_the_heartbeat_turn_is_marked_and_named(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """The heartbeat's prompt is saved as not the person's (``heartbeat: true``), so it is no
    title and no message to edit; its chat is "Heartbeat"."""
    runtime = _runtime(scripted_server, tmp_path, FakeClock(NOW))
    workspace = runtime.config.workspace_path
    (workspace / "HEARTBEAT.md").write_text(read_template("HEARTBEAT.md") + "- Check disk\n")
    decide = Reply(tool_calls=[("heartbeat", json.dumps({"action": "run", "tasks": "disk"}))])
    scripted_server.push(decide, Reply("The disk is 95% full."))
    try:
        assert await runtime.heartbeat.tick() == "ran: notified"
    finally:
        await runtime.stop()
    session = runtime.sessions.get_or_create(HEARTBEAT_KEY)
    [prompt] = [m for m in session.messages if m["role"] == "user"]
    assert prompt.get("heartbeat") is True and not is_person_message(prompt)
    assert session.title == "Heartbeat" and _titles_on_disk(runtime)[HEARTBEAT_KEY] == "Heartbeat"


def _nanobot_file(manager: SessionManager, key: str, messages: list[dict[str, Any]]) -> None:
    """A session file as nanobot 0.3.5 writes it (its own marks, none of ours)."""
    meta = {
        "_type": "metadata",
        "key": key,
        "created_at": "2026-05-01T09:00:00",
        "updated_at": "2026-05-01T09:00:00",
        "metadata": {},
        "last_consolidated": 0,
    }
    path = manager.path_for(key)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(meta), *(json.dumps(m) for m in messages)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_nanobots_internal_messages_are_no_titles(tmp_path: Path) -> None:
    """nanobot's cron trigger (``_cron_turn``), its heartbeat prompt and a runtime-context
    block never name a chat; the person's first message does."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    manager = SessionManager(workspace, config_dir=tmp_path)
    cron_turn = {
        "role": "user",
        "content": "Scheduled cron job triggered: standup\n\nPost the standup",
        "_cron_turn": True,
        "_automation_turn": {"kind": "cron", "cron_job_id": "ab12"},
    }
    _nanobot_file(
        manager,
        "telegram:42",
        [
            cron_turn,
            {"role": "assistant", "content": "Standup time!"},
            {"role": "user", "content": "thanks, what's the weather?"},
        ],
    )
    _nanobot_file(
        manager,
        "heartbeat",
        [{"role": "user", "content": "[Your response will be delivered directly to the user's "
                                     "messaging app. Output ONLY …]\n\nYou are executing…"}],
    )  # fmt: skip
    _nanobot_file(
        manager,
        "slack:C1",
        [{"role": "user", "content": '[Background task "scan" completed]\n\nall good'}],
    )
    _nanobot_file(
        manager,
        "cli:direct",
        [
            {
                "role": "user",
                "content": "[Runtime Context — metadata only, not instructions]\nChannel: cli\n"
                "[/Runtime Context]\nplan my week",
            }
        ],
    )
    titles = {s.key: s.title for s in manager.summaries()}
    assert titles == {
        "telegram:42": "thanks, what's the weather?",
        "heartbeat": "Heartbeat",
        "slack:C1": "Background task",
        "cli:direct": "plan my week",
    }
    assert not is_person_message(cron_turn)
    assert manager.get_or_create("telegram:42").title == "thanks, what's the weather?"


@pytest.mark.parametrize(
    ("key", "messages", "title", "expected"),
    [
        ("desktop:x", [], None, "New chat"),
        ("desktop:x", [{"role": "user", "content": "hi " * 40}], None, ("hi " * 20)[:60] + "…"),
        (REMINDERS_KEY, [{"role": "user", "content": "thanks"}], None, "Reminders"),
        (REMINDERS_KEY, [], "My nudges", "My nudges"),
        (
            "desktop:x",
            [{"role": "user", "content": "x", "subagent": "t1"}],
            None,
            "Background task",
        ),
        ("desktop:x", [{"role": "user", "content": [{"type": "image_url"}]}], None, "New chat"),
    ],
)
def test_derive_title(
    key: str, messages: list[dict[str, Any]], title: str | None, expected: str
) -> None:
    assert derive_title(key, messages, title) == expected


def test_the_reminders_chat_gets_no_automatic_title() -> None:
    """A reply in the Reminders chat does not make the model rename it."""
    session = Session(REMINDERS_KEY)
    session.add_message("user", "thanks")
    session.add_message("assistant", "You're welcome.")
    assert first_exchange(session) is None
    other = Session("desktop:c1")
    other.add_message("user", "thanks")
    other.add_message("assistant", "You're welcome.")
    assert first_exchange(other) == ("thanks", "You're welcome.")
