"""Nothing lost, nothing answered twice: a dropped gateway connection is resumed, an app
restart hands over what the agent had not saved, a retried send reuses its reply numbers."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from desktop.core.bus.events import OutboundMessage
from desktop.core.channels.qq.channel import QQChannel
from tests.channels.qq.conftest import USER, echo, start_runtime, state, until, user_text
from tests.channels.qq.qq_server import QQServer
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


async def test_a_dropped_connection_is_resumed_without_duplicates(
    qq: QQServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, scripted_server)
    try:
        await qq.c2c(USER, "one")
        await until(lambda: qq.texts(USER) == ["echo: one"], what="the first answer")
        await qq.drop()
        await qq.c2c(USER, "two")  # sent while the bot is away: the resume brings it
        await qq.wait_connections(2)
        await until(lambda: qq.texts(USER) == ["echo: one", "echo: two"], what="after resume")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    resume = [f for f in qq.gateway_frames if f["op"] == 6]
    assert len(resume) == 1 and resume[0]["d"]["session_id"] == "session-1"
    # The resume replays everything after the last *handled* sequence: "one" was handled,
    # so only "two" came again, and each message reached the model once.
    assert [user_text(r.body) for r in scripted_server.chat_requests()] == ["one", "two"]


async def test_an_unsaved_message_is_answered_once_after_an_app_restart(
    qq: QQServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    gate = threading.Event()

    def route(body: dict[str, Any]) -> Reply:
        text = user_text(body)
        if text == "busy":
            gate.wait(30)
        return Reply(f"echo: {text}")

    scripted_server.route = route
    first = await start_runtime(tmp_path, scripted_server)
    try:
        await qq.c2c(USER, "busy")
        await until(lambda: scripted_server.chat_requests(), what="the first turn at the model")
        queued = await qq.c2c(USER, "queued")
        await until(
            lambda: [e["id"] for e in state(tmp_path).get("pending", [])] == [queued],
            what="the queued message in the journal",
        )
        await until(lambda: state(tmp_path)["gateway"]["seq"] >= 3, what="its sequence handled")
    finally:
        await first.stop()  # the app ends before the queued message's turn
        gate.set()
    second = await start_runtime(tmp_path, scripted_server)
    try:
        await until(lambda: "echo: queued" in qq.texts(USER), what="the queued message answered")
        await until(lambda: state(tmp_path).get("pending") == [], what="the journal emptied")
        await second.agent.idle()
    finally:
        await second.stop()
    assert [f["op"] for f in qq.gateway_frames if f["op"] in (2, 6)] == [2, 6]  # resumed
    texts = [user_text(r.body) for r in scripted_server.chat_requests()]
    assert texts.count("queued") == 1 and texts.count("busy") == 1
    assert qq.texts(USER).count("echo: queued") == 1
    [reply] = [c.body for c in qq.calls if c.body.get("content") == "echo: queued"]
    assert reply["msg_id"] == queued


async def test_a_retried_send_reuses_its_reply_number(
    qq: QQServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, scripted_server)
    try:
        msg_id = await qq.c2c(USER, "first")
        await until(lambda: qq.texts(USER) == ["echo: first"], what="the answer")
        channel = runtime.channels.channel("qq")
        qq.fail_next_messages = 1
        message = OutboundMessage("qq", USER, "again", metadata={"request_id": msg_id})
        await runtime.channels.deliver(message)
    finally:
        await runtime.stop()
    assert channel is not None
    bodies = [b for b in qq.sent() if b.get("content") == "again"]
    assert [b["msg_seq"] for b in bodies] == [2]  # the retry after the 500 kept number 2


async def test_a_reminder_and_a_reply_after_the_window_are_active_messages(
    qq: QQServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path, monkeypatch: Any
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, scripted_server)
    try:
        msg_id = await qq.c2c(USER, "hi")
        await until(lambda: qq.texts(USER) == ["echo: hi"], what="the answer")
        reminder = OutboundMessage("qq", USER, "drink water", metadata={"reminder": True})
        assert await runtime.channels.deliver(reminder)
        monkeypatch.setattr(QQChannel, "passive_window_s", {"c2c": 0.0})
        late = OutboundMessage("qq", USER, "late answer", metadata={"request_id": msg_id})
        assert await runtime.channels.deliver(late)
    finally:
        await runtime.stop()
    by_text = {b["content"]: b for b in qq.sent()}
    assert by_text["drink water"]["msg_id"] is None
    assert by_text["late answer"]["msg_id"] is None  # too late for a reply: a new message
