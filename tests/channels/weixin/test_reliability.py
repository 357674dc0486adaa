"""Nothing lost, nothing answered twice, an expired login said clearly — against the local
iLink server and a real agent runtime."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from desktop.core.runtime import Runtime
from tests.channels.weixin.conftest import (
    ALICE,
    account_file,
    echo,
    logged_in,
    start_runtime,
    until,
    user_text,
)
from tests.channels.weixin.server import IlinkServer
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


def _asked(model: ScriptedOpenAIServer) -> list[str]:
    return [user_text(r.body) for r in model.chat_requests()]


def _dispatches(runtime: Runtime) -> int:
    return sum(1 for t in runtime.agent.background if f"dispatch:weixin:{ALICE}" in t.get_name())


async def test_a_failing_api_is_retried_and_the_next_message_answered(
    ilink: IlinkServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    logged_in(tmp_path, ilink)
    runtime = await start_runtime(tmp_path, ilink, scripted_server)
    try:
        ilink.say("before")
        await until(lambda: ilink.texts(ALICE) == ["echo: before"], what="first answer")
        await runtime.agent.idle()
        ilink.failing = 1
        await until(lambda: runtime.channels.status("weixin").state == "error", what="failed")
        await until(lambda: runtime.channels.status("weixin").ok, what="back")
        ilink.say("after")
        await until(lambda: len(ilink.texts(ALICE)) == 2, what="the next message")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert ilink.texts(ALICE) == ["echo: before", "echo: after"]
    assert _asked(scripted_server) == ["before", "after"]


async def test_a_message_received_but_not_saved_is_answered_once_after_a_restart(
    ilink: IlinkServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """The cursor moved past "queued" (getupdates will not give it again) but the app ends
    before the agent saved it: the journal hands it over after the restart, once."""
    gate = threading.Event()

    def route(body: dict[str, Any]) -> Reply:
        text = user_text(body)
        if text == "busy":
            gate.wait(30)
        return Reply(f"echo: {text}")

    scripted_server.route = route
    logged_in(tmp_path, ilink)
    first = await start_runtime(tmp_path, ilink, scripted_server)
    try:
        ilink.say("busy")
        await until(lambda: scripted_server.chat_requests(), what="the first turn at the model")
        ilink.say("queued")
        await until(lambda: _dispatches(first) == 2, what="the queued message waits its turn")

        def cursor() -> object:
            return json.loads(account_file(tmp_path).read_text())["get_updates_buf"]

        await until(lambda: cursor() == "buf-2", what="the cursor saved past it")
    finally:
        await first.stop()
        gate.set()
    second = await start_runtime(tmp_path, ilink, scripted_server)
    try:
        await until(lambda: "echo: queued" in ilink.texts(ALICE), what="queued answered")
        ilink.say("last")
        await until(lambda: "echo: last" in ilink.texts(ALICE), what="the barrier")
        await second.agent.idle()
    finally:
        await second.stop()
    asked = _asked(scripted_server)
    assert asked.count("queued") == 1 and asked.count("busy") == 1, asked
    assert ilink.texts(ALICE).count("echo: queued") == 1
    polls = [c.body["get_updates_buf"] for c in ilink.calls_to("getupdates")]
    assert "buf-2" in polls, "the second run went on from the saved cursor"


async def test_a_message_given_twice_is_answered_once_and_media_are_named(
    ilink: IlinkServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    logged_in(tmp_path, ilink)
    runtime = await start_runtime(tmp_path, ilink, scripted_server)
    try:
        ilink.push(ALICE, [{"type": 3, "voice_item": {"text": "语音转文字"}},
                           {"type": 4, "file_item": {"file_name": "a.pdf"}}, {"type": 2}])  # fmt: skip
        await until(lambda: ilink.texts(ALICE), what="the answer")
        await runtime.agent.idle()
        ilink.log.append(dict(ilink.log[0]))  # the server gives the same message again
        ilink.push("bot@im.bot", [{"type": 1, "text_item": {"text": "mine"}}], message_type=2)
        ilink.say("barrier")
        await until(lambda: "echo: barrier" in ilink.texts(ALICE), what="the barrier")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert _asked(scripted_server) == ["[voice] 语音转文字\n[file: a.pdf]\n[image]", "barrier"]


async def test_an_expired_login_stops_the_channel_with_what_to_do(
    ilink: IlinkServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    logged_in(tmp_path, ilink, token="an-old-token-123456")
    runtime = await start_runtime(tmp_path, ilink, scripted_server, connected=False)
    try:
        await until(lambda: runtime.channels.status("weixin").state == "unavailable")
        status = runtime.channels.status("weixin")
    finally:
        await runtime.stop()
    assert status.reason == "The WeChat login has expired."
    assert "channels login weixin" in status.hint
    assert "an-old-token-123456" not in f"{status}"


async def test_settings_test_says_whether_the_login_works(
    ilink: IlinkServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = await start_runtime(tmp_path, ilink, scripted_server, connected=False, enabled=False)
    try:
        section = runtime.config.channels.weixin
        with pytest.raises(ValueError, match="Not logged in yet"):
            await runtime.channels.check("weixin", section)
        logged_in(tmp_path, ilink, token="an-old-token-654321")
        with pytest.raises(ValueError, match="login has expired") as info:
            await runtime.channels.check("weixin", section)
        assert "an-old-token-654321" not in str(info.value)
        logged_in(tmp_path, ilink)
        assert (await runtime.channels.check("weixin", section)).startswith("Logged in")
    finally:
        await runtime.stop()
