"""Nothing lost, nothing answered twice, bad settings said clearly: a dropped connection, an app
restart with a message not yet saved, a repeated callback, a wrong secret, another program
taking the bot over — against the local WeCom server and a real agent runtime."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

import pytest

from desktop.core.runtime import Runtime
from tests.channels.wecom.conftest import echo, start_runtime, state_file, until, user_text
from tests.channels.wecom.server import SECRET, WecomServer
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


def _asked(model: ScriptedOpenAIServer) -> list[str]:
    return [user_text(r.body) for r in model.chat_requests()]


def _dispatches(runtime: Runtime) -> int:
    return sum(1 for t in runtime.agent.background if "dispatch:wecom:alice" in t.get_name())


async def test_a_dropped_connection_is_reconnected_and_the_next_message_answered(
    wecom: WecomServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, wecom, scripted_server)
    try:
        await wecom.say("before")
        await until(lambda: wecom.texts() == ["echo: before"], what="first answer")
        await runtime.agent.idle()
        await wecom.drop()
        await until(lambda: runtime.channels.status("wecom").state == "error", what="lost")
        await until(lambda: runtime.channels.status("wecom").ok, what="reconnected")
        await until(lambda: wecom.connected)
        await wecom.say("after")
        await until(lambda: len(wecom.texts()) == 2, what="the next message")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert wecom.texts() == ["echo: before", "echo: after"]
    assert _asked(scripted_server) == ["before", "after"]
    assert len(wecom.subscribes) == 2, "subscribed again on the new connection"


async def test_a_repeated_callback_is_answered_once(
    wecom: WecomServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, wecom, scripted_server)
    body = {"msgid": "m-twice", "chattype": "single", "from": {"userid": "alice"},
            "msgtype": "text", "text": {"content": "once"}}  # fmt: skip
    try:
        await wecom.send_body(dict(body))
        await until(lambda: wecom.texts() == ["echo: once"], what="the answer")
        await runtime.agent.idle()
        await wecom.send_body(dict(body))
        await wecom.say("barrier")  # a duplicate would come before it
        await until(lambda: "echo: barrier" in wecom.texts(), what="the barrier")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert _asked(scripted_server) == ["once", "barrier"]


async def test_a_message_received_but_not_saved_is_answered_once_after_a_restart(
    wecom: WecomServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """WeCom never sends a message again: the app ends before the agent saved "queued", the
    journal hands it over after the restart, once, and the answer replies to it."""
    gate = threading.Event()

    def route(body: dict[str, Any]) -> Reply:
        text = user_text(body)
        if text == "busy":
            gate.wait(30)
        return Reply(f"echo: {text}")

    scripted_server.route = route
    first = await start_runtime(tmp_path, wecom, scripted_server)
    try:
        await wecom.say("busy")
        await until(lambda: scripted_server.chat_requests(), what="the first turn at the model")
        queued = await wecom.say("queued")
        await until(lambda: _dispatches(first) == 2, what="the queued message waits its turn")
        pending = state_file(tmp_path).get("pending", [])
        assert [e["content"] for e in pending] == ["queued"], "kept until the agent saves it"
    finally:
        await first.stop()
        gate.set()
    second = await start_runtime(tmp_path, wecom, scripted_server)
    try:
        await until(lambda: "echo: queued" in wecom.texts(), what="queued answered")
        await until(lambda: state_file(tmp_path).get("pending") == [], what="journal emptied")
        await wecom.say("last")
        await until(lambda: "echo: last" in wecom.texts(), what="the barrier")
        await second.agent.idle()
    finally:
        await second.stop()
    asked = _asked(scripted_server)
    assert asked.count("queued") == 1 and asked.count("busy") == 1, asked
    assert wecom.texts().count("echo: queued") == 1
    answer = next(s for s in wecom.replies() if s.text == "echo: queued")
    assert answer.req_id == queued, "the answer after the restart replies to its message"


async def test_malformed_callbacks_are_skipped_and_the_channel_goes_on(
    wecom: WecomServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, wecom, scripted_server)
    try:
        await wecom.send_body({"msgtype": "text", "text": {"content": "no sender"}})
        await wecom.send_body({"msgtype": "text", "from": "alice", "text": 5})
        await wecom.send_body({"msgid": "m-img", "from": {"userid": "alice"}, "msgtype": "image",
                               "image": {"url": "not a url"}})  # fmt: skip
        await until(lambda: wecom.texts(), what="the image without an address")
        await wecom.say("still there?")
        await until(lambda: len(wecom.texts()) == 2, what="the good message answered")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert _asked(scripted_server) == ["[image: no download address]", "still there?"]
    assert len(wecom.subscribes) == 1, "the connection was never dropped"


async def test_a_wrong_secret_is_a_clear_status_and_never_logged(
    wecom: WecomServer,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="desktop.core.channels.wecom")
    wrong = "wrong-secret-987654"
    runtime = await start_runtime(tmp_path, wecom, scripted_server, connected=False, secret=wrong)
    try:
        await until(lambda: runtime.channels.status("wecom").state == "unavailable")
        status = runtime.channels.status("wecom")
    finally:
        await runtime.stop()
    assert status.reason.startswith("WeCom did not accept the bot id and secret")
    assert "Secret" in status.hint
    assert wecom.subscribes[0]["secret"] == wrong, "the SDK really sent it"
    assert any("Sending auth frame" in r.getMessage() for r in caplog.records), "SDK debug seen"
    assert wrong not in caplog.text and wrong not in f"{status}"


async def test_missing_settings_are_reported(
    wecom: WecomServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = await start_runtime(tmp_path, wecom, scripted_server, connected=False, botId="")
    try:
        await until(lambda: runtime.channels.status("wecom").state == "unavailable")
        assert runtime.channels.status("wecom").reason == "The bot id or secret is not set."
    finally:
        await runtime.stop()
    assert wecom.subscribes == []


async def test_another_program_taking_the_bot_over_stops_the_channel(
    wecom: WecomServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = await start_runtime(tmp_path, wecom, scripted_server)
    try:
        await wecom.kick()
        await until(lambda: runtime.channels.status("wecom").state == "unavailable")
        status = runtime.channels.status("wecom")
    finally:
        await runtime.stop()
    assert "another program connected" in status.reason
    assert len(wecom.subscribes) == 1, "it did not take the connection back"
    assert SECRET not in f"{status}"
