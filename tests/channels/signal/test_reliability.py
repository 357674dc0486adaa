"""Nothing lost, nothing answered twice: a daemon that ends the event stream, a message it
repeats, an app restart with a message not yet saved, malformed events, a failing send and
settings that cannot work — against the local signal-cli daemon and a real agent runtime."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

from desktop.core.assembly import build_runtime
from desktop.core.config.loader import load_config
from desktop.core.runtime import Runtime
from tests.channels.signal.conftest import echo, journal, section, start_runtime, until, user_text
from tests.channels.signal.daemon import ALICE, SignalDaemon
from tests.conftest import write_config
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

KEY = f"signal:{ALICE}"


def _asked(model: ScriptedOpenAIServer) -> list[str]:
    return [user_text(r.body) for r in model.chat_requests()]


def _dispatches(runtime: Runtime) -> int:
    return sum(1 for t in runtime.agent.background if f"dispatch:{KEY}" in t.get_name())


async def test_an_ended_stream_is_resumed_and_a_repeated_message_is_not_answered_twice(
    daemon: SignalDaemon, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, daemon, scripted_server)
    states: list[str] = []
    runtime.bus.subscribe(lambda e: states.append(getattr(e, "state", "")))
    try:
        first = daemon.say("one")
        await until(lambda: daemon.texts() == ["echo: one"], what="the first answer")
        await until(lambda: journal(tmp_path) == [], what="saved")
        daemon.drop()
        await until(lambda: "error" in states, what="the drop seen")
        await until(lambda: daemon.subscriptions == 2 and daemon.listening, what="resubscribed")
        await until(lambda: runtime.channels.status("signal").ok, what="connected again")
        daemon.push(first)  # the daemon hands the same message over again
        daemon.say("two")
        await until(lambda: daemon.texts() == ["echo: one", "echo: two"], what="the new one")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert _asked(scripted_server) == ["one", "two"]


async def test_a_failed_send_is_retried_and_delivered_once(
    daemon: SignalDaemon, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    daemon.errors = ["Failed to send message: network"]
    daemon.drop_when = lambda request: request["method"] == "send" and not daemon.errors
    runtime = await start_runtime(tmp_path, daemon, scripted_server)
    try:
        daemon.say("again")
        await until(lambda: daemon.texts() == ["echo: again"], what="delivered in the end")
        await runtime.agent.idle()
        assert runtime.bus.outbound.empty()
    finally:
        await runtime.stop()
    assert [p["message"] for p in daemon.calls("send")] == ["echo: again"] * 3
    assert daemon.subscriptions == 2, "the dropped request ended the stream too"


async def test_a_received_but_unsaved_message_is_answered_once_after_a_restart(
    daemon: SignalDaemon, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    gate = threading.Event()

    def route(body: dict[str, Any]) -> Reply:
        text = user_text(body)
        if text == "busy":
            gate.wait(30)
        return Reply(f"echo: {text}")

    scripted_server.route = route
    first = await start_runtime(tmp_path, daemon, scripted_server)
    try:
        daemon.say("busy")
        await until(lambda: scripted_server.chat_requests(), what="the first turn at the model")
        daemon.say("queued")
        await until(lambda: _dispatches(first) == 2, what="the queued message waits its turn")
        assert [e["content"] for e in journal(tmp_path)] == ["queued"]
    finally:
        await first.stop()  # the app ends (or dies) before the queued message's turn
        gate.set()
    second = await start_runtime(tmp_path, daemon, scripted_server)
    try:
        await until(lambda: "echo: queued" in daemon.texts(), what="the queued one answered")
        await until(lambda: journal(tmp_path) == [], what="the journal emptied")
        await second.agent.idle()
        assert second.bus.inbound.empty() and second.bus.outbound.empty()
    finally:
        await second.stop()
    assert _asked(scripted_server).count("queued") == 1
    assert daemon.texts().count("echo: queued") == 1


async def test_malformed_events_are_skipped_and_the_channel_goes_on(
    daemon: SignalDaemon, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, daemon, scripted_server)
    try:
        for event in ("not json", "[1, 2]", '{"envelope": "text"}',
                      '{"envelope": {"dataMessage": {"message": "no sender"}}}',
                      '{"envelope": {"source": 42, "dataMessage": {"message": "x"}}}',
                      '{"envelope": {"source": "+1", "dataMessage": {"attachments": "a"}}}',
                      '{"envelope": {"source": "+1", "receiptMessage": {"when": 1}}}'):  # fmt: skip
            daemon.push(event)
        daemon.say("still there?")
        await until(lambda: daemon.texts() == ["echo: still there?"], what="the good one")
        assert runtime.channels.status("signal").ok and daemon.subscriptions == 1
    finally:
        await runtime.stop()


async def test_no_phone_number_or_no_daemon_is_a_clear_status(
    daemon: SignalDaemon, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = await start_runtime_any(tmp_path, section(daemon, phoneNumber=""))
    try:
        await until(
            lambda: runtime.channels.status("signal").state == "unavailable", what="unavailable"
        )
        assert "Phone number" in runtime.channels.status("signal").hint
    finally:
        await runtime.stop()
    await daemon.stop()
    runtime = await start_runtime_any(tmp_path / "b", section(daemon))
    try:
        await until(lambda: runtime.channels.status("signal").state == "error", what="down")
        assert "refused the connection" in runtime.channels.status("signal").reason
    finally:
        await runtime.stop()


async def start_runtime_any(tmp_path: Path, signal: dict[str, Any]) -> Runtime:
    """A runtime with this Signal section, not waiting for it to connect."""
    data = {
        "agents": {"defaults": {"workspace": str(tmp_path / "ws"), "timezone": "UTC"}},
        "channels": {"signal": signal},
    }
    config = load_config(write_config(tmp_path / "nanobot" / "config.json", data))
    runtime = await asyncio.to_thread(build_runtime, config, make_provider("http://127.0.0.1:9"))
    await runtime.start()
    return runtime
