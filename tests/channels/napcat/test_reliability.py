"""Nothing lost, nothing answered twice: NapCat closing the connection, a message it repeats,
an answer lost with the connection, an app restart with a message not yet saved, malformed
frames, a wrong token and a new group member — against the local OneBot v11 server and a real
agent runtime."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from desktop.core.channels.base import ChannelStatus
from desktop.core.runtime import Runtime
from tests.channels.napcat.conftest import (
    PRIVATE,
    echo,
    journal,
    section,
    start_runtime,
    until,
    user_text,
)
from tests.channels.napcat.onebot_server import BOT, GROUP, OneBotServer
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

KEY = f"napcat:{PRIVATE}"


def _asked(model: ScriptedOpenAIServer) -> list[str]:
    return [user_text(r.body) for r in model.chat_requests()]


def _dispatches(runtime: Runtime) -> int:
    return sum(1 for t in runtime.agent.background if f"dispatch:{KEY}" in t.get_name())


async def test_a_dropped_connection_is_resumed_and_a_repeated_message_is_not_answered_twice(
    napcat: OneBotServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, napcat, scripted_server)
    states: list[str] = []
    runtime.bus.subscribe(lambda e: states.append(getattr(e, "state", "")))
    try:
        first = await napcat.say("one")
        await until(lambda: napcat.texts() == ["echo: one"], what="the first answer")
        await until(lambda: journal(tmp_path) == [], what="saved")
        await napcat.drop()
        await until(lambda: "error" in states, what="the drop seen")
        await until(lambda: napcat.connections == 2 and napcat.clients, what="reconnected")
        await until(lambda: runtime.channels.status("napcat").ok, what="connected again")
        await napcat.push(first)  # NapCat hands the same message over again
        await napcat.say("two")
        await until(lambda: napcat.texts() == ["echo: one", "echo: two"], what="the new one")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert _asked(scripted_server) == ["one", "two"]


async def test_an_answer_lost_with_the_connection_is_sent_once_after_the_reconnect(
    napcat: OneBotServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    napcat.drop_when = lambda frame: frame["action"] == "send_private_msg"
    runtime = await start_runtime(tmp_path, napcat, scripted_server)
    try:
        await napcat.say("hello")
        await until(lambda: napcat.texts() == ["echo: hello"], what="delivered after reconnect")
        await runtime.agent.idle()
        assert runtime.bus.outbound.empty()
    finally:
        await runtime.stop()
    sends = [a for a in napcat.actions if a["action"] == "send_private_msg"]
    assert len(sends) == 2 and napcat.connections == 2, "first try lost with the connection"


async def test_a_received_but_unsaved_message_is_answered_once_after_a_restart(
    napcat: OneBotServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    gate = threading.Event()

    def route(body: dict[str, Any]) -> Reply:
        text = user_text(body)
        if text == "busy":
            gate.wait(30)
        return Reply(f"echo: {text}")

    scripted_server.route = route
    first = await start_runtime(tmp_path, napcat, scripted_server)
    try:
        await napcat.say("busy")
        await until(lambda: scripted_server.chat_requests(), what="the first turn at the model")
        await napcat.say("queued")
        await until(lambda: _dispatches(first) == 2, what="the queued message waits its turn")
        assert [e["content"] for e in journal(tmp_path)] == ["queued"]
    finally:
        await first.stop()  # the app ends (or dies) before the queued message's turn
        gate.set()
    second = await start_runtime(tmp_path, napcat, scripted_server)
    try:
        await until(lambda: "echo: queued" in napcat.texts(), what="the queued one answered")
        await until(lambda: journal(tmp_path) == [], what="the journal emptied")
        await second.agent.idle()
        assert second.bus.inbound.empty() and second.bus.outbound.empty()
    finally:
        await second.stop()
    assert _asked(scripted_server).count("queued") == 1
    assert napcat.texts().count("echo: queued") == 1


async def test_malformed_frames_are_skipped_and_the_channel_goes_on(
    napcat: OneBotServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, napcat, scripted_server)
    try:
        for frame in ("not json", "[1, 2]", '{"echo": "nobody-asked"}',
                      '{"post_type": "message", "message_type": "private"}',
                      '{"post_type": "message", "message_type": "private", "user_id": 1,'
                      ' "message": 7}',
                      '{"post_type": "message", "message_type": "group", "user_id": 1}',
                      '{"post_type": "notice", "notice_type": "group_increase"}'):  # fmt: skip
            await napcat.push(frame)
        await napcat.say("still there?")
        await until(lambda: napcat.texts() == ["echo: still there?"], what="the good one")
        assert runtime.channels.status("napcat").ok and napcat.connections == 1
    finally:
        await runtime.stop()


async def test_a_wrong_token_is_a_clear_status_not_a_retry_loop(
    napcat: OneBotServer, tmp_path: Path
) -> None:
    raw = section(napcat, accessToken="not-the-token")
    runtime = await start_runtime(tmp_path, napcat, None, raw=raw, connected=False)
    try:
        status: Callable[[], ChannelStatus] = lambda: runtime.channels.status("napcat")  # noqa: E731
        await until(lambda: status().state == "unavailable", what="unavailable")
        assert status().reason == "NapCat refused the access token."
        assert "Access token" in status().hint and napcat.refused == 1
    finally:
        await runtime.stop()


async def test_a_new_group_member_is_announced_to_the_agent(
    napcat: OneBotServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.push(Reply("Welcome, Newbie!"))
    runtime = await start_runtime(tmp_path, napcat, scripted_server, allowFrom=["*"])
    try:
        await napcat.push({"time": 1, "self_id": BOT, "post_type": "notice",
                           "notice_type": "group_increase", "sub_type": "approve",
                           "group_id": GROUP, "user_id": 424242, "operator_id": 0})  # fmt: skip
        await until(lambda: napcat.texts() == ["Welcome, Newbie!"], what="the welcome")
    finally:
        await runtime.stop()
    (asked,) = _asked(scripted_server)
    assert asked == f"[group event] new member Newbie joined group {GROUP}"
    assert [a["action"] for a in napcat.actions][1:3] == ["get_group_member_info",
                                                          "send_group_msg"]  # fmt: skip
