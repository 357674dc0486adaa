"""Nothing lost, nothing answered twice: a bridge that drops the connection, a message
WhatsApp delivers again, an app restart with a message not yet saved, malformed frames and a
failing send — against the local bridge and a real agent runtime."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

import pytest

from desktop.core.runtime import Runtime
from tests.channels.whatsapp.bridge_server import ALICE, BridgeServer
from tests.channels.whatsapp.conftest import echo, journal, start_runtime, until, user_text
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

KEY = f"whatsapp:{ALICE}"


def _asked(model: ScriptedOpenAIServer) -> list[str]:
    return [user_text(r.body) for r in model.chat_requests()]


def _dispatches(runtime: Runtime) -> int:
    return sum(1 for t in runtime.agent.background if f"dispatch:{KEY}" in t.get_name())


async def test_a_dropped_connection_is_resumed_and_a_redelivered_message_is_not_answered_twice(
    bridge: BridgeServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, bridge, scripted_server)
    statuses: list[str] = []
    runtime.bus.subscribe(lambda e: statuses.append(getattr(e, "state", "")))
    try:
        first = await bridge.say("one")
        await until(lambda: bridge.texts() == ["echo: one"], what="the first answer")
        await until(lambda: journal(tmp_path) == [], what="saved")
        await bridge.drop()
        await until(lambda: "error" in statuses, what="the drop seen")
        await until(lambda: len(bridge.auths) == 2 and bridge.clients, what="reconnected")
        await until(lambda: runtime.channels.status("whatsapp").ok, what="connected again")
        await bridge.push(first)  # WhatsApp delivers the same message again
        await bridge.say("two")
        await until(lambda: bridge.texts() == ["echo: one", "echo: two"], what="the new one")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert _asked(scripted_server) == ["one", "two"]


async def test_an_answer_lost_with_the_connection_is_sent_once_after_the_reconnect(
    bridge: BridgeServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    bridge.drop_when = lambda command: command["type"] == "send"
    runtime = await start_runtime(tmp_path, bridge, scripted_server)
    try:
        await bridge.say("hello")
        await until(lambda: bridge.texts() == ["echo: hello"], what="delivered after reconnect")
        await runtime.agent.idle()
        assert runtime.bus.outbound.empty()
    finally:
        await runtime.stop()
    sends = [c for c in bridge.commands if c["type"] == "send"]
    assert len(sends) == 2 and len(bridge.auths) == 2, "first try lost with the connection"
    assert bridge.texts() == ["echo: hello"]


async def test_a_bridge_error_is_retried(
    bridge: BridgeServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    bridge.errors = ["Error: Connection Closed"]
    runtime = await start_runtime(tmp_path, bridge, scripted_server)
    try:
        await bridge.say("again")
        await until(lambda: bridge.texts() == ["echo: again"], what="the retry delivered")
    finally:
        await runtime.stop()
    assert [c["text"] for c in bridge.commands if c["type"] == "send"] == ["echo: again"] * 2


async def test_a_received_but_unsaved_message_is_answered_once_after_a_restart(
    bridge: BridgeServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    gate = threading.Event()

    def route(body: dict[str, Any]) -> Reply:
        text = user_text(body)
        if text == "busy":
            gate.wait(30)
        return Reply(f"echo: {text}")

    scripted_server.route = route
    first = await start_runtime(tmp_path, bridge, scripted_server)
    try:
        await bridge.say("busy")
        await until(lambda: scripted_server.chat_requests(), what="the first turn at the model")
        await bridge.say("queued")
        await until(lambda: _dispatches(first) == 2, what="the queued message waits its turn")
        assert [e["content"] for e in journal(tmp_path)] == ["queued"]
    finally:
        await first.stop()  # the app ends (or dies) before the queued message's turn
        gate.set()
    second = await start_runtime(tmp_path, bridge, scripted_server)
    try:
        await until(lambda: "echo: queued" in bridge.texts(), what="the queued message answered")
        await until(lambda: journal(tmp_path) == [], what="the journal emptied")
        await second.agent.idle()
        assert second.bus.inbound.empty() and second.bus.outbound.empty()
    finally:
        await second.stop()
    assert _asked(scripted_server).count("queued") == 1
    assert bridge.texts().count("echo: queued") == 1


async def test_malformed_frames_are_skipped_and_the_channel_goes_on(
    bridge: BridgeServer,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, bridge, scripted_server)
    try:
        with caplog.at_level(logging.WARNING, logger="desktop.core.channels.whatsapp"):
            for frame in ("not json", "[1, 2]", '{"no": "type"}',
                          '{"type": "message", "content": "no sender"}',
                          '{"type": "message", "sender": "x@s.whatsapp.net", "media": "a.png"}',
                          '{"type": "message", "sender": 42, "content": "number"}',
                          '{"type": "something-new", "value": 1}'):  # fmt: skip
                await bridge.push(frame)
            await bridge.say("still there?")
            await until(lambda: bridge.texts() == ["echo: still there?"], what="the good one")
        assert runtime.channels.status("whatsapp").ok
        assert len(bridge.auths) == 1, "the connection was never lost"
    finally:
        await runtime.stop()
    skipped = [r for r in caplog.records if "malformed" in r.getMessage()]
    assert len(skipped) == 6
    assert _asked(scripted_server) == ["still there?"]
