"""Panels (nanobot's mention rules and reply delay), reminders, progress notes and
attachments — against the local Mochat server and a real agent runtime."""

from __future__ import annotations

import json
from pathlib import Path

from desktop.core.bus.events import OutboundMessage
from tests.channels.mochat.conftest import (
    PANEL,
    SESSION,
    echo,
    start_runtime,
    state_file,
    until,
    user_text,
)
from tests.channels.mochat.server import AGENT, MochatServer
from tests.core.cron.test_cron import FakeClock
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


async def test_panel_messages_without_a_mention_wait_for_one(
    mochat: MochatServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """``replyDelayMode: non-mention``: two messages without a mention are collected (kept in
    the state); a mention hands all three over as one message, one line per author."""
    scripted_server.route = echo()
    runtime = await start_runtime(
        tmp_path, mochat, scripted_server, replyDelayMode="non-mention", replyDelayMs=600_000
    )
    try:
        await mochat.say_in_panel(PANEL, "anyone here?", author="bob")
        await mochat.say_in_panel(PANEL, "I think so", author="carol")
        await until(lambda: len(state_file(tmp_path).get("delayed", {}).get(PANEL, [])) == 2)
        assert mochat.sent == [] and scripted_server.chat_requests() == []
        asked = await mochat.say_in_panel(PANEL, f"@{AGENT} what is 2+2?", mention=True)
        await until(lambda: mochat.texts(PANEL), what="the answer")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert [user_text(r.body) for r in scripted_server.chat_requests()] == [
        f"bob: anyone here?\ncarol: I think so\nalice: @{AGENT} what is 2+2?"
    ]
    assert mochat.sent[0].body["replyTo"] == asked
    assert state_file(tmp_path)["delayed"] == {}


async def test_collected_panel_messages_are_handed_over_after_the_delay(
    mochat: MochatServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(
        tmp_path, mochat, scripted_server, replyDelayMode="non-mention", replyDelayMs=300
    )
    try:
        await mochat.say_in_panel(PANEL, "first", author="bob")
        await mochat.say_in_panel(PANEL, "second", author="bob")
        await until(lambda: mochat.texts(PANEL), what="the answer after the delay")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert mochat.texts(PANEL) == ["echo: bob: first\nbob: second"]


async def test_a_required_mention_is_respected_with_the_delay_off(
    mochat: MochatServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(
        tmp_path, mochat, scripted_server, mention={"requireInGroups": True}
    )
    try:
        await mochat.say_in_panel(PANEL, "chatter", author="bob")
        await mochat.say_in_panel(PANEL, "hey bot", author="bob", mention=True)
        await until(lambda: mochat.texts(PANEL), what="the mention answered")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert mochat.texts(PANEL) == ["echo: hey bot"]
    assert [user_text(r.body) for r in scripted_server.chat_requests()] == ["hey bot"]


async def test_a_reminder_made_in_a_session_is_delivered_there(
    mochat: MochatServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    clock = FakeClock("2026-05-01T10:00:00+00:00")
    runtime = await start_runtime(tmp_path, mochat, scripted_server, clock=clock)
    try:
        call = {"action": "add", "message": "Stretch your legs", "at": "2026-05-01T10:30:00"}
        scripted_server.push(Reply(tool_calls=[("cron", json.dumps(call))]), Reply("Scheduled."))
        await mochat.say(SESSION, "remind me at 10:30 to stretch")
        await until(lambda: mochat.texts(SESSION) == ["Scheduled."], what="the confirmation")
        scripted_server.push(Reply("Time to stretch your legs!"))
        clock.set("2026-05-01T10:30:00+00:00")
        await runtime.cron.tick()
        await until(lambda: mochat.texts(SESSION)[-1:] == ["Time to stretch your legs!"])
    finally:
        await runtime.stop()
    assert mochat.sent[-1].body == {"sessionId": SESSION, "content": "Time to stretch your legs!"}


async def test_progress_notes_and_tool_hints_are_posted(
    mochat: MochatServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """With ``sendToolHints`` the tool call is announced in the session before the answer."""
    call = {"command": "echo hi"}
    scripted_server.push(Reply(tool_calls=[("exec", json.dumps(call))]), Reply("All done."))
    config_extra = {"sendToolHints": True, "sendProgress": True}
    runtime = await start_runtime(tmp_path, mochat, scripted_server, channels=config_extra)
    try:
        await mochat.say(SESSION, "say hi in a shell")
        await until(lambda: mochat.texts(SESSION)[-1:] == ["All done."], what="the answer")
    finally:
        await runtime.stop()
    texts = mochat.texts(SESSION)
    assert len(texts) >= 2 and any("echo hi" in t for t in texts[:-1]), texts


async def test_attachments_are_listed_by_name_and_links_kept(
    mochat: MochatServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Mochat's API has no upload: a local file is named (its path stays private), a link is
    posted as it is."""
    runtime = await start_runtime(tmp_path, mochat, scripted_server)
    try:
        report = tmp_path / "ws" / "out" / "report.pdf"
        message = OutboundMessage(
            "mochat",
            PANEL,
            "Here it is.",
            media=[str(report), "https://example.org/chart.png"],
        )
        await runtime.bus.publish_outbound(message)
        await until(lambda: mochat.texts(PANEL), what="the message")
    finally:
        await runtime.stop()
    assert mochat.sent[0].body["content"] == (
        "Here it is.\n[file: report.pdf]\nhttps://example.org/chart.png"
    )
    assert "replyTo" not in mochat.sent[0].body
