"""Login state, approvals, files, reminders, bad settings and the Settings test — against the
local bridge and a real agent runtime."""

from __future__ import annotations

import json
import logging
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from desktop.core.agent.approval import ApprovalPolicy
from desktop.core.bus.events import OutboundMessage
from desktop.core.channels.whatsapp.channel import NOT_LINKED, WhatsAppChannel
from tests.channels.whatsapp.bridge_server import ALICE, TOKEN, BridgeServer
from tests.channels.whatsapp.conftest import (
    FULL_AUTH_GRACE,
    echo,
    start_runtime,
    until,
    user_text,
)
from tests.core.cron.test_cron import FakeClock
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


def _png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


async def test_the_login_state_is_the_channel_status_and_answers_wait_for_the_link(
    bridge: BridgeServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, bridge, scripted_server)
    channel = runtime.channels.channel("whatsapp")
    assert isinstance(channel, WhatsAppChannel)
    try:
        await bridge.push({"type": "qr", "qr": "2@AbCdEf==,xyz=,123=,abc="})
        await until(lambda: runtime.channels.status("whatsapp").state == "error", what="qr")
        status = runtime.channels.status("whatsapp")
        assert status.reason == NOT_LINKED and "Linked devices" in status.hint
        assert channel.qr == "2@AbCdEf==,xyz=,123=,abc="
        await bridge.say("are you there?")  # the bridge relays it although not linked (a race)
        await until(lambda: scripted_server.chat_requests(), what="the turn ran")
        await runtime.agent.idle()
        assert bridge.texts() == [], "no answer while WhatsApp is not linked"
        await bridge.push({"type": "status", "status": "connected"})
        await until(lambda: bridge.texts() == ["echo: are you there?"], what="sent once linked")
        assert runtime.channels.status("whatsapp").ok and channel.qr is None
        await bridge.push({"type": "status", "status": "disconnected"})
        await until(lambda: runtime.channels.status("whatsapp").state == "error", what="lost")
        assert "lost its connection to WhatsApp" in runtime.channels.status("whatsapp").reason
        await bridge.push({"type": "status", "status": "logged_out"})
        await until(lambda: "logged" in runtime.channels.status("whatsapp").reason, what="out")
        assert "QR" in runtime.channels.status("whatsapp").hint
    finally:
        await runtime.stop()


async def test_an_approval_is_answered_in_the_chat(
    bridge: BridgeServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """In "ask" mode the question goes to the chat; the reply "allow" answers it (and starts
    no turn of its own); the command runs."""
    runtime = await start_runtime(tmp_path, bridge, scripted_server, approval=ApprovalPolicy())
    command = {"command": "echo approved-by-alice"}
    scripted_server.push(Reply(tool_calls=[("exec", json.dumps(command))]), Reply("Done."))
    try:
        await bridge.say("run the echo")
        await until(lambda: any("exec" in t for t in bridge.texts()), what="the question")
        assert 'Reply "allow"' in bridge.texts()[-1]
        await bridge.say("allow")
        await until(lambda: bridge.texts()[-1:] == ["Done."], what="the final answer")
    finally:
        await runtime.stop()
    requests = scripted_server.chat_requests()
    assert len(requests) == 2, "the keyword reply did not start another turn"
    tools = [m for m in requests[1].body["messages"] if m["role"] == "tool"]
    assert "approved-by-alice" in json.dumps(tools)


async def test_files_in_reach_the_model_and_files_out_go_as_send_media(
    bridge: BridgeServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    downloads = tmp_path / "bridge-media"  # where the bridge saved what it downloaded
    downloads.mkdir()
    (image := downloads / "wa_1_ab.png").write_bytes(_png())
    (doc := downloads / "wa_2_cd_notes.txt").write_text("ping-file")
    scripted_server.push(Reply("nice"))
    runtime = await start_runtime(tmp_path, bridge, scripted_server)
    try:
        await bridge.say("look", media=[str(image), str(doc)])
        await until(lambda: bridge.texts() == ["nice"], what="answered")
        outgoing = tmp_path / "chart.png"
        outgoing.write_bytes(_png())
        await runtime.bus.publish_outbound(
            OutboundMessage("whatsapp", ALICE, "here **it** is", media=[str(outgoing)])
        )
        long_text = "word " * 300
        await runtime.bus.publish_outbound(
            OutboundMessage("whatsapp", ALICE, long_text, media=[str(outgoing)])
        )
        await until(lambda: len(bridge.sent()) == 4, what="both deliveries")
    finally:
        await runtime.stop()
    last = json.dumps(scripted_server.chat_requests()[0].body["messages"][-1])
    assert "data:image/png;base64," in last, "the image reaches the model"
    assert f"[file: {doc}]" in last and "look" in last
    _, captioned, text, bare = bridge.sent()
    assert captioned == {"type": "send_media", "to": ALICE, "filePath": str(outgoing.resolve()),
                         "mimetype": "image/png", "fileName": "chart.png",
                         "caption": "here *it* is", "msg_id": captioned["msg_id"]}  # fmt: skip
    assert text["type"] == "send" and text["text"] == long_text.strip()
    assert bare["type"] == "send_media" and "caption" not in bare, "too long for a caption"
    assert bridge.files[str(outgoing.resolve())] == _png()


async def test_a_reminder_made_in_a_chat_is_delivered_there(
    bridge: BridgeServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    clock = FakeClock("2026-05-01T10:00:00+00:00")
    runtime = await start_runtime(tmp_path, bridge, scripted_server, clock=clock)
    call = {"action": "add", "message": "Stretch your legs", "at": "2026-05-01T10:30:00"}
    scripted_server.push(Reply(tool_calls=[("cron", json.dumps(call))]), Reply("Scheduled."))
    try:
        await bridge.say("remind me at 10:30 to stretch")
        await until(lambda: bridge.texts() == ["Scheduled."], what="the confirmation")
        scripted_server.push(Reply("Time to stretch your legs!"))
        clock.set("2026-05-01T10:30:00+00:00")
        await runtime.cron.tick()
        await until(lambda: bridge.texts()[-1:] == ["Time to stretch your legs!"], what="due")
    finally:
        await runtime.stop()


@pytest.mark.parametrize(
    ("settings", "reason"),
    [
        ({"bridgeToken": "not-the-token"}, "The WhatsApp bridge refused the token."),
        ({"bridgeToken": ""}, "The WhatsApp bridge wants a token."),
        ({"bridgeUrl": "http://localhost:3001"}, "is not a ws:// address"),
    ],
)
async def test_bad_settings_make_the_channel_unavailable_with_a_clear_reason(
    bridge: BridgeServer,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    settings: dict[str, Any],
    reason: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(WhatsAppChannel, "auth_grace", FULL_AUTH_GRACE)  # a refusal to wait for
    bridge.auth_timeout = 0.3
    runtime = await start_runtime(tmp_path, bridge, scripted_server, connected=False, **settings)
    try:
        await until(
            lambda: runtime.channels.status("whatsapp").state == "unavailable", what="unavailable"
        )
        status = runtime.channels.status("whatsapp")
        assert reason in status.reason and status.hint
        assert not bridge.auths
    finally:
        await runtime.stop()


async def test_a_token_saved_by_nanobot_is_used_when_none_is_set(
    bridge: BridgeServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    saved = tmp_path / "nanobot" / "whatsapp-auth" / "bridge-token"
    saved.parent.mkdir(parents=True)
    saved.write_text(TOKEN + "\n")
    runtime = await start_runtime(tmp_path, bridge, scripted_server, bridgeToken="")
    await runtime.stop()
    assert bridge.auths == [{"type": "auth", "token": TOKEN}]


async def test_the_settings_test_and_secrets_kept_out_of_logs(
    bridge: BridgeServer,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(WhatsAppChannel, "auth_grace", FULL_AUTH_GRACE)  # a refusal to wait for
    runtime = await start_runtime(tmp_path, bridge, scripted_server)
    try:
        section = runtime.config.channels.whatsapp
        assert await runtime.channels.check("whatsapp", section) == (
            "Connected to the WhatsApp bridge"
        )
        wrong = section.model_copy(update={"bridge_token": "wrong-token-123"})
        with pytest.raises(ValueError, match="refused the token"):
            await runtime.channels.check("whatsapp", wrong)
        with caplog.at_level(logging.DEBUG, logger="desktop.core.channels.whatsapp"):
            await bridge.push({"type": "error", "error": f"auth failed for {TOKEN}"})
            await bridge.say("barrier")
            await until(lambda: bridge.texts(), what="the barrier answered")
    finally:
        await runtime.stop()
    logged = [r.getMessage() for r in caplog.records if r.name.startswith("desktop")]
    assert any("auth failed for [REDACTED]" in m for m in logged)
    assert not any(TOKEN in m for m in logged)


async def test_one_message_is_not_handed_over_while_the_same_is_with_the_agent(
    bridge: BridgeServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """A bridge that echoes ``msg_id`` (newer ones) works the same; a message delivered twice
    in quick succession (before the first is saved) starts one turn."""
    bridge.echo_msg_id = True
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, bridge, scripted_server)
    try:
        first = await bridge.say("twice")
        await bridge.push(first)
        await bridge.say("after")
        await until(lambda: bridge.texts()[-1:] == ["echo: after"], what="both handled")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert [user_text(r.body) for r in scripted_server.chat_requests()] == ["twice", "after"]
    assert all("msg_id" in c for c in bridge.commands)


async def test_inbound_media_types_are_looked_up_off_the_loop(
    bridge: BridgeServer,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first media-type lookup of a process reads the system's type tables: with them not
    read yet (as when this folder's tests run alone), a message with files is labelled
    without blocking the loop (the blocking guard fails the test otherwise)."""
    import mimetypes

    from desktop.core.utils import mime

    monkeypatch.setattr(mimetypes, "inited", False)
    monkeypatch.setattr(mimetypes, "_db", None)
    monkeypatch.setattr(mime, "_loaded", False, raising=False)
    downloads = tmp_path / "bridge-media"
    downloads.mkdir()
    (image := downloads / "wa_3_ef.png").write_bytes(_png())
    (doc := downloads / "wa_4_gh.pdf").write_bytes(b"%PDF-1.4")
    scripted_server.push(Reply("seen"))
    runtime = await start_runtime(tmp_path, bridge, scripted_server)
    try:
        await bridge.say("two files", media=[str(image), str(doc)])
        await until(lambda: bridge.texts() == ["seen"], what="answered")
    finally:
        await runtime.stop()
    last = json.dumps(scripted_server.chat_requests()[0].body["messages"][-1])
    assert f"[image: {image}]" in last and f"[file: {doc}]" in last
    assert mimetypes.inited
