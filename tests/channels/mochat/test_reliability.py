"""Nothing lost, nothing answered twice: a dropped connection, an app restart with a message
not yet saved, malformed events and bad settings — against the local Mochat server and a real
agent runtime."""

from __future__ import annotations

import asyncio
import logging
import threading
from pathlib import Path
from typing import Any

import pytest

from desktop.core.runtime import Runtime
from tests.channels.mochat.conftest import (
    SESSION,
    echo,
    start_runtime,
    state_file,
    until,
    user_text,
)
from tests.channels.mochat.server import TOKEN, MochatServer
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

KEY = f"mochat:{SESSION}"


def _dispatches(runtime: Runtime) -> int:
    return sum(1 for t in runtime.agent.background if f"dispatch:{KEY}" in t.get_name())


def _asked(model: ScriptedOpenAIServer) -> list[str]:
    return [user_text(r.body) for r in model.chat_requests()]


async def test_a_dropped_connection_is_resumed_without_duplicates(
    mochat: MochatServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """The server drops the connection; what is written meanwhile arrives with the new
    subscription (after the saved cursor) and is answered once; nothing before it again."""
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, mochat, scripted_server)
    try:
        await mochat.say(SESSION, "before")
        await until(lambda: mochat.texts(SESSION) == ["echo: before"], what="first answer")
        await runtime.agent.idle()
        cursor = mochat.sessions[SESSION].cursor
        await until(lambda: state_file(tmp_path).get("cursors") == {SESSION: cursor})
        await mochat.drop()
        await until(lambda: runtime.channels.status("mochat").state == "error", what="lost")
        await mochat.say(SESSION, "while away")  # stored; nobody is subscribed
        await until(lambda: runtime.channels.status("mochat").ok, what="reconnected")
        await until(lambda: len(mochat.texts(SESSION)) == 2, what="the missed message")
        await mochat.say(SESSION, "after")
        await until(lambda: len(mochat.texts(SESSION)) == 3, what="the next message")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert mochat.texts(SESSION) == ["echo: before", "echo: while away", "echo: after"]
    assert _asked(scripted_server) == ["before", "while away", "after"]
    second = mochat.calls_of("com.claw.im.subscribeSessions")[1]
    assert second["cursors"] == {SESSION: cursor}, "resumed after the saved cursor"
    assert len(mochat.connects) == 2


async def test_a_server_that_replays_everything_gets_no_second_answer(
    mochat: MochatServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Even when the server sends the whole log again after a reconnect (a cursor it lost),
    messages already answered are recognised by their ids."""
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, mochat, scripted_server)
    try:
        await mochat.say(SESSION, "one")
        await until(lambda: mochat.texts(SESSION) == ["echo: one"], what="first answer")
        await runtime.agent.idle()
        mochat.ignore_cursors = True
        await mochat.drop()
        await until(lambda: len(mochat.connects) == 2 and runtime.channels.status("mochat").ok)
        await mochat.say(SESSION, "two")
        await until(lambda: len(mochat.texts(SESSION)) >= 2, what="the second answer")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert mochat.texts(SESSION) == ["echo: one", "echo: two"]
    assert _asked(scripted_server) == ["one", "two"]


async def test_a_message_received_but_not_saved_is_answered_once_after_a_restart(
    mochat: MochatServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """The cursor has moved past "queued" (the server will not send it again) but the app ends
    before the agent saved it: the journal hands it over after the restart, once."""
    gate = threading.Event()

    def route(body: dict[str, Any]) -> Reply:
        text = user_text(body)
        if text == "busy":
            gate.wait(30)
        return Reply(f"echo: {text}")

    scripted_server.route = route
    first = await start_runtime(tmp_path, mochat, scripted_server)
    try:
        await mochat.say(SESSION, "busy")
        await until(lambda: scripted_server.chat_requests(), what="the first turn at the model")
        await mochat.say(SESSION, "queued")
        await until(lambda: _dispatches(first) == 2, what="the queued message waits its turn")
        await until(lambda: state_file(tmp_path).get("cursors") == {SESSION: 2}, what="cursor")
        pending = state_file(tmp_path).get("pending", [])
        assert [e["content"] for e in pending] == ["queued"], "kept until the agent saves it"
    finally:
        await first.stop()  # the app ends (or dies) before the queued message's turn
        gate.set()
    second = await start_runtime(tmp_path, mochat, scripted_server)
    try:
        await until(lambda: "echo: queued" in mochat.texts(SESSION), what="queued answered")
        await until(lambda: state_file(tmp_path).get("pending") == [], what="journal emptied")
        await mochat.say(SESSION, "last")  # a barrier: a duplicate would come before it
        await until(lambda: "echo: last" in mochat.texts(SESSION), what="the barrier")
        await second.agent.idle()
    finally:
        await second.stop()
    asked = _asked(scripted_server)
    assert asked.count("queued") == 1 and asked.count("busy") == 1, asked
    assert mochat.texts(SESSION).count("echo: queued") == 1
    assert second_subscribe_cursor(mochat) == {SESSION: 2}


def second_subscribe_cursor(mochat: MochatServer) -> dict[str, int]:
    return dict(mochat.calls_of("com.claw.im.subscribeSessions")[1]["cursors"])


async def test_malformed_events_are_skipped_and_the_channel_goes_on(
    mochat: MochatServer,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, mochat, scripted_server)
    caplog.set_level(logging.WARNING, logger="desktop.core.channels.mochat")
    try:
        await mochat.emit_raw("claw.session.events", "not an object")
        await mochat.emit_raw("claw.session.events", {"sessionId": SESSION, "events": 7})
        await mochat.push_session(
            SESSION,
            [
                "junk",
                {"seq": 1, "type": "message.add", "payload": "no payload"},
                {"seq": 2, "type": "message.add", "payload": {"content": "no author"}},
            ],
        )
        await mochat.emit_raw("notify:chat.message.add", [1, 2, 3])
        await mochat.emit_raw("notify:chat.inbox.append", {"type": "message", "payload": 5})
        await mochat.say(SESSION, "still there?")
        await until(lambda: mochat.texts(SESSION), what="the good message answered")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert mochat.texts(SESSION) == ["echo: still there?"]
    assert _asked(scripted_server) == ["still there?"]
    skipped = [r.getMessage() for r in caplog.records if "malformed" in r.getMessage()]
    assert len(skipped) == 2, skipped  # the unusable payload, the batch with three bad events
    assert "skipped 3 malformed" in skipped[1]
    assert len(mochat.connects) == 1, "the connection was never dropped"


async def test_a_wrong_token_is_a_clear_status_not_a_crash(
    mochat: MochatServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = await start_runtime(
        tmp_path, mochat, scripted_server, connected=False, clawToken="claw_wrong_token_999"
    )
    try:
        await until(lambda: runtime.channels.status("mochat").state == "unavailable")
        status = runtime.channels.status("mochat")
    finally:
        await runtime.stop()
    assert status.reason == "Mochat did not accept the claw token."
    assert "claw token" in status.hint
    assert "claw_wrong_token_999" not in f"{status}"


async def test_a_missing_token_or_target_list_is_reported(
    mochat: MochatServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = await start_runtime(
        tmp_path, mochat, scripted_server, connected=False, clawToken="", sessions=[], panels=[]
    )
    try:
        await until(lambda: runtime.channels.status("mochat").state == "unavailable")
        status = runtime.channels.status("mochat")
        assert status.reason == "No claw token is set."
        runtime.config.channels.mochat.claw_token = TOKEN
        await runtime.channels.start_channel("mochat")
        await until(lambda: runtime.channels.status("mochat").state == "unavailable")
        assert runtime.channels.status("mochat").reason == "No sessions or panels to answer in."
    finally:
        await runtime.stop()
    assert mochat.connects == []


async def test_a_server_that_is_down_is_retried_with_backoff(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """The server is not there at first: the status says so and the channel connects once
    it is."""
    server = MochatServer()
    server.add_session(SESSION)
    await server.start()
    port = server.port
    await server.stop()  # the port is free again: nobody listens
    runtime = await start_runtime(tmp_path, server, scripted_server, connected=False)
    again = MochatServer()
    again.add_session(SESSION)
    try:
        await until(lambda: runtime.channels.status("mochat").state == "error", what="error")
        assert "Reconnecting" in runtime.channels.status("mochat").hint
        await _start_on(again, port)
        await until(lambda: runtime.channels.status("mochat").ok, 60, "connected")
        scripted_server.route = echo()
        await again.say(SESSION, "hello")
        await until(lambda: again.texts(SESSION) == ["echo: hello"], what="answered")
    finally:
        await runtime.stop()
        await again.stop()


async def _start_on(server: MochatServer, port: int) -> None:
    from aiohttp import web

    server.runner = web.AppRunner(server.app)
    await server.runner.setup()
    for _ in range(50):
        try:
            await web.TCPSite(server.runner, "127.0.0.1", port).start()
            return
        except OSError:
            await asyncio.sleep(0.1)  # polling: the port may still be closing
    raise AssertionError(f"port {port} stayed busy")
