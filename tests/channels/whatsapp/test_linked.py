"""The linked-device WhatsApp channel (neonize, nanobot 0.3.5's way) end to end: a real agent
runtime (``build_runtime``) with the scripted model server through LiteLLM, the channel's real
neonize module (event protobufs, JIDs), and a fake only at neonize's client boundary
(:mod:`tests.channels.whatsapp.neonize_fake`: no WhatsApp servers here)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop.core.agent.approval import ApprovalPolicy
from desktop.core.assembly import build_runtime
from desktop.core.bus.events import OutboundMessage
from desktop.core.channels.whatsapp.channel import WhatsAppChannel
from desktop.core.channels.whatsapp.linked import LinkedChannel
from desktop.core.config.loader import load_config
from desktop.core.runtime import Runtime
from tests.channels.whatsapp.conftest import echo, session_lines, until, user_text
from tests.channels.whatsapp.neonize_fake import ME_LID, ME_PHONE, FakeWhatsApp, install, message
from tests.channels.whatsapp.test_features import _png
from tests.conftest import write_config
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.typed import running_channel

ALICE = "4915112345678"
ALICE_JID = f"{ALICE}@s.whatsapp.net"
ALICE_LID = "123456789012345"
GROUP = "120363000000000001@g.us"


@pytest.fixture
def whatsapp(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeWhatsApp]:
    world = FakeWhatsApp()
    install(monkeypatch, world)
    yield world


def config_path(tmp_path: Path, **section: Any) -> Path:
    data = {
        "agents": {"defaults": {"workspace": str(tmp_path / "ws"), "timezone": "UTC"}},
        "channels": {"whatsapp": {"enabled": True, "allowFrom": ["*"], **section}},
    }
    return write_config(tmp_path / "nanobot" / "config.json", data)


async def start(
    tmp_path: Path,
    model: ScriptedOpenAIServer,
    *,
    connected: bool = True,
    approval: ApprovalPolicy | None = None,
    **section: Any,
) -> Runtime:
    config = load_config(config_path(tmp_path, **section))
    runtime = await asyncio.to_thread(
        build_runtime, config, make_provider(model.url), approval=approval
    )
    await runtime.start()
    if connected:
        await until(lambda: runtime.channels.status("whatsapp").ok, what="connected")
    return runtime


async def test_a_message_reaches_the_agent_under_0_3_5s_session_key_and_is_answered(
    whatsapp: FakeWhatsApp, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.push(Reply("**Hi** there"))
    runtime = await start(tmp_path, scripted_server)
    try:
        channel = runtime.channels.channel("whatsapp")
        assert isinstance(channel, LinkedChannel), "no bridgeUrl: the linked device"
        assert channel.database_path() == tmp_path / "nanobot" / "whatsapp-auth" / "neonize.db"
        assert whatsapp.client.name == str(channel.database_path()), "neonize opens that file"
        await whatsapp.client.fire(channel_api().message, message("hello", sender_alt=""))
        await until(lambda: whatsapp.texts(), what="the answer")
    finally:
        await runtime.stop()
    (answer,) = whatsapp.sent
    assert (answer.kind, answer.to, answer.body) == ("text", ALICE_JID, "*Hi* there")
    assert user_text(scripted_server.chat_requests()[0].body) == "hello"
    lines = session_lines(runtime, f"whatsapp:{ALICE_JID}")
    assert [m["role"] for m in lines] == ["user", "assistant"]
    assert whatsapp.client.task is not None and whatsapp.client.task.done(), "neonize stopped"


def channel_api() -> Any:
    from desktop.core.channels.whatsapp import linked

    return linked._API


async def test_allow_from_takes_phone_numbers_and_lids_mapped_to_them(
    whatsapp: FakeWhatsApp, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start(
        tmp_path, scripted_server, allowFrom=[ALICE], lidMappings={ALICE_LID: ALICE}
    )
    kind = channel_api().message
    try:
        stranger = "4930999999@s.whatsapp.net"
        await whatsapp.client.fire(kind, message("let me in", chat=stranger, msg_id="s1"))
        lid_only = f"{ALICE_LID}@lid"
        await whatsapp.client.fire(kind, message("via lid", chat=lid_only, msg_id="a1"))
        await until(lambda: "echo: via lid" in whatsapp.texts(), what="the LID sender")
        await until(lambda: len(whatsapp.sent) == 2, what="the stranger's pairing code")
    finally:
        await runtime.stop()
    to = {s.to: s.body for s in whatsapp.sent}
    assert to[lid_only] == "echo: via lid", "answered in the chat it came from"
    assert "Your pairing code: " in to[stranger]  # a stranger's DM: a code, as in 0.3.5
    assert len(scripted_server.chat_requests()) == 1, "the stranger never reached the model"
    assert not runtime.sessions.path_for(f"whatsapp:{stranger}").exists()


async def test_groups_with_the_mention_policy_answer_only_mentions_of_the_linked_account(
    whatsapp: FakeWhatsApp, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start(tmp_path, scripted_server, groupPolicy="mention")
    kind = channel_api().message
    try:
        plain = message("chatter", chat=GROUP, sender=ALICE_JID, group=True, msg_id="g1")
        await whatsapp.client.fire(kind, plain)
        mention = message(
            "@bot hi", chat=GROUP, sender=f"{ALICE_LID}@lid", sender_alt=ALICE_JID, group=True,
            msg_id="g2", mentions=(f"{ME_PHONE}@s.whatsapp.net",),
        )  # fmt: skip
        await whatsapp.client.fire(kind, mention)
        await until(lambda: whatsapp.texts(), what="the answer to the mention")
    finally:
        await runtime.stop()
    assert [(s.to, s.body) for s in whatsapp.sent] == [(GROUP, "echo: @bot hi")]
    assert len(scripted_server.chat_requests()) == 1, "the unaddressed message was skipped"
    assert runtime.sessions.path_for(f"whatsapp:{GROUP}").exists(), "0.3.5: one session a group"
    assert ME_LID  # the fake's account has both ids; a mention by phone JID suffices


async def test_an_image_in_is_saved_under_media_and_files_out_go_as_their_kind(
    whatsapp: FakeWhatsApp, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    whatsapp.media = _png()
    scripted_server.push(Reply("nice"))
    runtime = await start(tmp_path, scripted_server)
    try:
        await whatsapp.client.fire(channel_api().message, message("look", image=True))
        await until(lambda: whatsapp.texts() == ["nice"], what="answered")
        (chart := tmp_path / "chart.png").write_bytes(_png())
        (notes := tmp_path / "notes.txt").write_text("n")
        await runtime.bus.publish_outbound(
            OutboundMessage("whatsapp", ALICE_JID, "here", media=[str(chart), str(notes)])
        )
        await until(lambda: len(whatsapp.sent) == 4, what="the text and both files")
    finally:
        await runtime.stop()
    last = json.dumps(scripted_server.chat_requests()[0].body["messages"][-1])
    assert "data:image/png;base64," in last and "look" in last, "the image reaches the model"
    (saved,) = (tmp_path / "ws" / "media" / "whatsapp").iterdir()
    assert saved.read_bytes() == _png() and f"[image: {saved}]" in last
    _, text, image, doc = whatsapp.sent
    assert (text.kind, text.body) == ("text", "here")
    assert (image.kind, image.body) == ("image", str(chart.resolve()))
    assert (doc.kind, doc.extra) == (
        "document",
        {"filename": "notes.txt", "mimetype": "text/plain"},
    )


async def test_a_qr_code_is_the_login_code_until_scanned_then_connected(
    whatsapp: FakeWhatsApp, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    whatsapp.linked = False
    runtime = await start(tmp_path, scripted_server, connected=False)
    try:
        await until(lambda: runtime.channels.status("whatsapp").login_code, what="the QR code")
        status = runtime.channels.status("whatsapp")
        assert status.login_code == "2@first-code,abc,def" and "not linked" in status.reason
        await whatsapp.client.offer_qr("2@second-code")
        assert runtime.channels.status("whatsapp").login_code == "2@second-code", "replaced"
        await whatsapp.client.scan()
        await until(lambda: runtime.channels.status("whatsapp").ok, what="linked")
        assert runtime.channels.status("whatsapp").login_code == ""
        assert "saved" in await running_channel(runtime, "whatsapp").check()
    finally:
        await runtime.stop()


async def test_a_lost_connection_waits_and_a_ended_one_is_started_again(
    whatsapp: FakeWhatsApp, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start(tmp_path, scripted_server)
    kind = channel_api().message
    try:
        first = whatsapp.client
        await first.drop()
        assert "lost" in runtime.channels.status("whatsapp").reason
        await first.connected()  # whatsmeow's own reconnect
        assert runtime.channels.status("whatsapp").ok
        first.end("websocket closed")  # neonize's connection ends: the manager restarts
        await until(lambda: len(whatsapp.clients) == 2, timeout=60, what="a new client")
        await until(lambda: runtime.channels.status("whatsapp").ok, what="connected again")
        await whatsapp.client.fire(kind, message("still there?", msg_id="r1"))
        await until(lambda: whatsapp.texts() == ["echo: still there?"], what="answered")
    finally:
        await runtime.stop()
    assert first.task is not None and first.task.done()


async def test_a_duplicate_and_an_old_message_are_not_answered(
    whatsapp: FakeWhatsApp, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start(tmp_path, scripted_server)
    kind = channel_api().message
    try:
        await whatsapp.client.fire(kind, message("history", msg_id="h1", timestamp=1_000))
        await whatsapp.client.fire(kind, message("once", msg_id="d1"))
        await until(lambda: whatsapp.texts() == ["echo: once"], what="answered")
        await whatsapp.client.fire(kind, message("once", msg_id="d1"))
        await whatsapp.client.fire(kind, message("next", msg_id="d2"))
        await until(lambda: len(whatsapp.texts()) == 2, what="the next one")
    finally:
        await runtime.stop()
    assert whatsapp.texts() == ["echo: once", "echo: next"]


async def test_a_bridge_url_selects_the_legacy_bridge_client(tmp_path: Path) -> None:
    from desktop.core.bus.queue import MessageBus
    from desktop.core.channels.manager import ChannelManager
    from desktop.core.channels.registry import CHANNELS
    from desktop.core.utils.tasks import TaskOwner

    for section, kind in (
        ({"bridgeUrl": "ws://localhost:3001"}, WhatsAppChannel),
        ({}, LinkedChannel),
    ):
        config = load_config(config_path(tmp_path, **section))
        owner = TaskOwner("t")
        manager = ChannelManager(MessageBus(), owner, config=config, state_dir=tmp_path / "st")
        try:
            assert type(await manager.create(CHANNELS["whatsapp"])) is kind
        finally:
            await owner.aclose()


async def test_a_long_answer_is_split_under_whatsapps_limit_in_order(
    whatsapp: FakeWhatsApp, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    paragraphs = [f"Part {i}. " + "lorem ipsum dolor sit amet " * 30 for i in range(12)]
    reply = "\n\n".join(paragraphs)
    assert len(reply) > 2 * 4096
    scripted_server.push(Reply(reply, chunk=500))
    runtime = await start(tmp_path, scripted_server)
    try:
        await whatsapp.client.fire(channel_api().message, message("tell me a lot"))
        await until(lambda: "Part 11." in " ".join(whatsapp.texts()), what="the last piece")
    finally:
        await runtime.stop()
    texts = whatsapp.texts()
    assert len(texts) >= 3 and all(len(t) <= 4096 for t in texts)
    assert " ".join(" ".join(texts).split()) == " ".join(reply.split()), "in order, nothing lost"
