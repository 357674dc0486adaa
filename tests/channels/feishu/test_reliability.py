"""Nothing lost, nothing twice: a dropped long connection, confirmations lost on the way, an
app restart with a message not yet saved, malformed events and bad settings — against the
local platform with the real SDK and a real agent runtime."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from pathlib import Path
from typing import Any

import pytest

from desktop.core.channels.feishu.channel import FeishuChannel
from desktop.core.config.channels.feishu import FeishuConfig
from desktop.core.runtime import Runtime
from tests.channels.feishu.conftest import (
    CHAT,
    USER,
    echo,
    journal,
    start_runtime,
    until,
    user_text,
)
from tests.channels.feishu.feishu_server import APP_ID, APP_SECRET, FeishuServer
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


def _asked(model: ScriptedOpenAIServer) -> list[str]:
    return [user_text(r.body) for r in model.chat_requests()]


async def test_a_dropped_connection_is_resumed_and_nothing_is_answered_twice(
    feishu: FeishuServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, feishu, scripted_server)
    try:
        await feishu.push_text(CHAT, USER, "before")
        await until(lambda: feishu.texts(CHAT) == ["echo: before"], what="the first answer")
        # The next confirmation is lost with the connection: the platform delivers it again.
        feishu.lose_acks = True
        await feishu.push_text(CHAT, USER, "during")
        await until(lambda: "during" in _asked(scripted_server), what="the agent has it")
        await feishu.drop()
        feishu.lose_acks = False
        await feishu.push_text(CHAT, USER, "while away")  # waits at the platform
        await until(lambda: feishu.connections == 2, what="reconnected")
        await until(lambda: runtime.channels.status("feishu").ok, what="connected again")
        await until(lambda: all(d.acked for d in feishu.deliveries), what="delivered again")
        await feishu.push_text(CHAT, USER, "after")
        await until(lambda: len(feishu.texts(CHAT)) == 4, what="the last answer")
        await runtime.agent.idle()
        await asyncio.sleep(0.5)  # nothing more arrives
        sdk_tasks = [
            t
            for t in asyncio.all_tasks()
            if "lark_oapi" in getattr(getattr(t.get_coro(), "cr_code", None), "co_filename", "")
        ]
        assert sdk_tasks == [], "the SDK's tasks live on the connection's own loop"
    finally:
        await runtime.stop()
    assert sorted(feishu.texts(CHAT)) == sorted(
        ["echo: before", "echo: during", "echo: while away", "echo: after"]
    )
    assert sorted(_asked(scripted_server)) == sorted(["before", "during", "while away", "after"])
    during = feishu.deliveries[1]
    assert during.times_sent == 2 and len(during.answers) == 1, "delivered again, confirmed"
    assert feishu.endpoint_calls == 2


async def test_a_confirmed_but_unsaved_message_is_answered_once_after_a_restart(
    feishu: FeishuServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    gate = threading.Event()

    def route(body: dict[str, Any]) -> Reply:
        text = user_text(body)
        if text == "busy":
            gate.wait(30)
        return Reply(f"echo: {text}")

    scripted_server.route = route
    first = await start_runtime(tmp_path, feishu, scripted_server)
    try:
        await feishu.push_text(CHAT, USER, "busy")
        await until(lambda: scripted_server.chat_requests(), what="the first turn at the model")
        await feishu.push_text(CHAT, USER, "queued")
        await until(lambda: feishu.deliveries[1].acked, what="the platform has its confirmation")
        assert [e["content"] for e in journal(tmp_path)] == ["queued"]
    finally:
        await first.stop()  # the app ends (or dies) before the queued message's turn
        gate.set()
    second = await start_runtime(tmp_path, feishu, scripted_server)
    try:
        await until(lambda: "echo: queued" in feishu.texts(CHAT), what="queued answered")
        await until(lambda: journal(tmp_path) == [], what="the journal emptied")
        await second.agent.idle()
        await asyncio.sleep(0.5)  # nothing more arrives
    finally:
        await second.stop()
    assert _asked(scripted_server).count("queued") == 1
    assert feishu.texts(CHAT).count("echo: queued") == 1


async def test_malformed_events_are_skipped_and_the_channel_goes_on(
    feishu: FeishuServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, feishu, scripted_server)
    try:
        garbage = await feishu.push_raw(b"\x00not json at all")
        no_message = await feishu.push_event("im.message.receive_v1", {"sender": {}})
        message = {"message_id": "om_x", "chat_id": CHAT, "content": "{not json"}
        sender = {"sender_id": {"open_id": USER}, "sender_type": "user"}
        bad_content = await feishu.push_event(
            "im.message.receive_v1", {"sender": sender, "message": message}
        )
        odd = {**message, "message_id": "om_y", "content": '{"text": "hi"}', "mentions": 5}
        unexpected = await feishu.push_event(
            "im.message.receive_v1", {"sender": sender, "message": odd}
        )
        unknown = await feishu.push_event("im.chat.disbanded_v1", {"chat_id": CHAT})
        await feishu.push_text(CHAT, USER, "still there?")
        await until(lambda: "echo: still there?" in feishu.texts(CHAT), what="the answer")
    finally:
        await runtime.stop()
    assert feishu.connections == 1, "the connection was never lost"
    assert no_message.acked, "a malformed message event is confirmed (skipped)"
    assert garbage.answers and not garbage.acked and not unknown.acked  # the SDK refuses them
    assert bad_content.acked and unexpected.acked, "skipped, not sent again and again"
    assert _asked(scripted_server) == ["still there?"]


async def test_bad_settings_make_the_channel_unavailable_with_a_clear_reason(
    feishu: FeishuServer,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    runtime = await start_runtime(
        tmp_path,
        feishu,
        scripted_server,
        connected=False,
        appId="cli_unknown_app",
        appSecret="wrong-secret-xyz",
    )
    try:
        await until(
            lambda: runtime.channels.status("feishu").state == "unavailable", what="unavailable"
        )
        status = runtime.channels.status("feishu")
    finally:
        await runtime.stop()
    assert "did not accept the app's credentials" in status.reason
    assert "App Secret" in status.hint
    assert "wrong-secret-xyz" not in caplog.text and "wrong-secret-xyz" not in status.reason
    assert feishu.endpoint_calls == 0  # not retried, no connection attempted


async def test_a_refused_long_connection_makes_the_channel_unavailable(
    feishu: FeishuServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    feishu.refuse_endpoint = True
    runtime = await start_runtime(tmp_path, feishu, scripted_server, connected=False)
    try:
        await until(
            lambda: runtime.channels.status("feishu").state == "unavailable", what="unavailable"
        )
        status = runtime.channels.status("feishu")
    finally:
        await runtime.stop()
    assert "invalid app_id or app_secret" in status.reason
    assert feishu.endpoint_calls == 1 and feishu.connections == 0


async def test_the_settings_test_button_and_missing_settings(
    feishu: FeishuServer, tmp_path: Path
) -> None:
    from desktop.core.bus.queue import MessageBus
    from desktop.core.channels.base import ChannelUnavailable
    from desktop.core.channels.state import ChannelStateStore

    def channel(**fields: Any) -> FeishuChannel:
        config = FeishuConfig(base_url=feishu.base_url, **fields)
        state = ChannelStateStore(tmp_path / "state.json")
        return FeishuChannel(config, MessageBus(), state, tmp_path / "media")

    good = channel(app_id=APP_ID, app_secret=APP_SECRET)
    assert await good.check() == "Connected as nanobot test bot"
    with pytest.raises(ValueError, match="did not accept"):
        await channel(app_id="cli_other", app_secret="nope").check()
    with pytest.raises(ChannelUnavailable, match="No app ID"):
        await channel().run()


async def test_a_session_saved_message_is_not_in_the_journal(
    feishu: FeishuServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime: Runtime = await start_runtime(tmp_path, feishu, scripted_server)
    try:
        message = await feishu.push_text(CHAT, USER, "remember me")
        await until(lambda: feishu.texts(CHAT), what="the answer")
        await until(lambda: journal(tmp_path) == [], what="the journal emptied")
    finally:
        await runtime.stop()
    state = json.loads((tmp_path / "nanobot" / "channel-state" / "feishu.json").read_text())
    assert message in state["seen"]
