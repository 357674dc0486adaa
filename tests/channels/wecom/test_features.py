"""Files in and out, replies after WeCom's reply window, the welcome message and Settings'
connection test — the real bot SDK against the local WeCom server."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.bus.events import OutboundMessage
from tests.channels.wecom.conftest import echo, start_runtime, until, user_text
from tests.channels.wecom.server import WecomServer
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


async def test_a_file_in_is_decrypted_into_media_and_a_file_out_uploaded(
    wecom: WecomServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.push(Reply("Read it."))
    runtime = await start_runtime(tmp_path, wecom, scripted_server)
    data = "季度报告 — the numbers\n".encode() * 50
    try:
        asked = await wecom.send_file(data, "../报告 Q3.txt")
        await until(lambda: wecom.texts() == ["Read it."], what="the answer")
        await runtime.agent.idle()
        channel = runtime.channels.channel("wecom")
        assert channel is not None
        out = tmp_path / "chart.png"
        out.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 100)
        await channel.send(OutboundMessage("wecom", "alice", "Here it is", media=[str(out)]))
    finally:
        await runtime.stop()
    saved = tmp_path / "ws" / "media" / "wecom" / "报告_Q3.txt"
    assert saved.read_bytes() == data, "decrypted, no path from the sender"
    assert f"[file: {saved}]" in user_text(scripted_server.chat_requests()[0].body)
    [(media_id, uploaded)] = wecom.uploads.items()
    assert uploaded == out.read_bytes()
    *_, text, image = wecom.replies()
    assert (text.req_id, text.text) == (asked, "Here it is")
    assert image.req_id == asked
    assert image.body == {"msgtype": "image", "image": {"media_id": media_id}}


async def test_after_the_reply_window_an_answer_is_sent_as_markdown(
    wecom: WecomServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.push(Reply("**late** answer"))
    runtime = await start_runtime(tmp_path, wecom, scripted_server)
    try:
        asked = await wecom.say("hello", user="bob", chat="grp-1")
        wecom.expired.add(asked)
        await until(lambda: wecom.texts(), what="the answer")
        await runtime.agent.idle()
        channel = runtime.channels.channel("wecom")
        assert channel is not None
        await channel.send(OutboundMessage("wecom", "carol", "a reminder"))  # never wrote
    finally:
        await runtime.stop()
    assert [(s.cmd, s.body) for s in wecom.sent] == [
        ("aibot_send_msg", {"chatid": "grp-1", "msgtype": "markdown",
                            "markdown": {"content": "**late** answer"}}),
        ("aibot_send_msg", {"chatid": "carol", "msgtype": "markdown",
                            "markdown": {"content": "a reminder"}}),
    ]  # fmt: skip


@pytest.mark.parametrize(("allow", "greeted"), [(["alice"], True), (["bob"], False)])
async def test_the_welcome_message_greets_allowed_people(
    wecom: WecomServer,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    allow: list[str],
    greeted: bool,
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(
        tmp_path, wecom, scripted_server, allowFrom=allow, welcomeMessage="Welcome!"
    )
    try:
        event = await wecom.enter_chat("alice")
        await wecom.say("barrier", user=allow[0])
        await until(lambda: "echo: barrier" in wecom.texts(), what="the barrier")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    welcomes = [s for s in wecom.sent if s.cmd == "aibot_respond_welcome_msg"]
    expected = [(event, {"msgtype": "text", "text": {"content": "Welcome!"}})] if greeted else []
    assert [(s.req_id, s.body) for s in welcomes] == expected


async def test_settings_test_says_a_wrong_secret_plainly(
    wecom: WecomServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = await start_runtime(tmp_path, wecom, scripted_server)
    try:
        section = runtime.config.channels.wecom.model_copy(update={"secret": "not-the-secret-1"})
        with pytest.raises(ValueError, match="did not accept the bot id and secret") as info:
            await runtime.channels.check("wecom", section)
    finally:
        await runtime.stop()
    assert "not-the-secret-1" not in str(info.value)
