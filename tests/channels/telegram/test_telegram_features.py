"""The Telegram channel's features end to end: approvals with buttons, reminders, photos,
voice and documents, commands and groups, the proxy, the token check, and sending that
survives refusals and failures halfway."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from desktop.core.agent.approval import (
    DENIED_RESULT,
    ApprovalGate,
    ApprovalPolicy,
)
from desktop.core.bus.queue import MessageBus
from desktop.core.channels.approvals import CLOSED
from desktop.core.channels.base import ChannelUnavailable
from desktop.core.channels.manager import ChannelManager
from desktop.core.channels.registry import CHANNELS
from desktop.core.channels.state import ChannelStateStore
from desktop.core.channels.telegram.channel import TelegramChannel
from desktop.core.channels.telegram.transcribe import NO_KEY_NOTE
from desktop.core.config.channels.telegram import TelegramConfig
from desktop.core.config.secrets import SecretStore
from desktop.core.tools.base import ToolContext
from desktop.core.utils.tasks import TaskOwner
from tests.channels.telegram.bot_api_server import (
    BOT_ID,
    TOKEN,
    BotApiServer,
    telegram_text,
)
from tests.channels.telegram.conftest import CHAT, echo, start_runtime, until, user_text
from tests.channels.telegram.forward_proxy import ForwardProxy
from tests.core.cron.test_cron import FakeClock
from tests.fakes.memory_keyring import MemoryKeyring
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


def _question(api: BotApiServer) -> dict[str, Any]:
    """The bot's message that carries buttons."""
    return next(m for m in api.messages.values() if m.get("reply_markup"))


async def test_an_approval_is_answered_with_a_button(
    api: BotApiServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    policy = ApprovalPolicy()
    scripted_server.push(
        Reply(tool_calls=[("exec", json.dumps({"command": "echo approved-run"}))]),
        Reply("Done."),
    )
    runtime = await start_runtime(tmp_path, api, scripted_server, approval=policy)
    try:
        api.put_message(CHAT, "run it")
        await until(lambda: any(m.get("reply_markup") for m in api.messages.values()))
        question = _question(api)
        assert (
            "Allow the tool exec?" in question["text"] and "echo approved-run" in question["text"]
        )
        rows = question["reply_markup"]["inline_keyboard"]
        assert [[b["text"] for b in row] for row in rows] == [
            ["Allow once", "This chat"],
            ["Always", "Deny"],
        ]
        data = rows[0][1]["callback_data"]
        assert data.startswith("ap:2:") and len(data.encode()) <= 64
        api.put_callback(question, data, user_id=CHAT, username="ada")
        await until(lambda: "Done." in api.texts(CHAT), what="the final answer")
        await until(lambda: api.calls_of("editMessageText"), what="the question updated")
    finally:
        await runtime.stop()
    (ack,) = api.calls_of("answerCallbackQuery")
    (edit,) = api.calls_of("editMessageText")
    assert ack.params["text"] == "Allowed in this chat" and ack.at < edit.at
    assert telegram_text(edit.params["text"]).endswith("Allowed in this chat by @ada")
    assert "reply_markup" not in api.messages[(CHAT, question["message_id"])], "buttons gone"
    assert policy.is_allowed(f"telegram:{CHAT}", "exec")
    tool_result = scripted_server.chat_requests()[1].body["messages"][-1]
    assert tool_result["role"] == "tool" and "approved-run" in str(tool_result["content"])


async def test_a_tap_that_overtakes_the_posts_answer_waits_for_it_and_counts(
    api: BotApiServer,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A quick tap on a slow link: Telegram shows the question (and delivers the tap) before
    the bot has the answer to its ``sendMessage``. The tap waits for it, then answers."""
    caplog.set_level(logging.INFO, logger="desktop.core.channels.buttons")
    scripted_server.push(
        Reply(tool_calls=[("exec", json.dumps({"command": "echo never-run"}))]),
        Reply("Done."),
    )
    posted = api.hold("sendMessage", when=lambda params: "reply_markup" in params)
    runtime = await start_runtime(tmp_path, api, scripted_server, approval=ApprovalPolicy())
    try:
        api.put_message(CHAT, "run it")
        await until(lambda: any(m.get("reply_markup") for m in api.messages.values()))
        question = _question(api)
        deny = question["reply_markup"]["inline_keyboard"][1][1]
        assert deny["text"] == "Deny"
        api.put_callback(question, deny["callback_data"], user_id=CHAT, username="ada")
        await until(
            lambda: "waiting for the post" in caplog.text or api.calls_of("answerCallbackQuery"),
            what="the tap taken while the question's answer is held back",
        )
        posted.set()  # the answer to sendMessage arrives
        await until(lambda: api.calls_of("answerCallbackQuery"), what="the tap answered")
        (ack,) = api.calls_of("answerCallbackQuery")
        assert ack.params["text"] == "Denied", "the tap counted (not 'This question is closed.')"
        await until(lambda: "Done." in api.texts(CHAT), what="the turn went on at once")
        await until(lambda: api.calls_of("editMessageText"), what="the question updated")
    finally:
        posted.set()
        await runtime.stop()
    (edit,) = api.calls_of("editMessageText")
    assert telegram_text(edit.params["text"]).endswith("Denied by @ada")
    assert "reply_markup" not in api.messages[(CHAT, question["message_id"])], "buttons gone"
    assert not api.calls_of("editMessageReplyMarkup")
    tool_result = scripted_server.chat_requests()[1].body["messages"][-1]
    assert tool_result["content"] == DENIED_RESULT.format(tool="exec")


def _manager(
    api: BotApiServer, bus: MessageBus, tmp_path: Path, gate: ApprovalGate | None = None
) -> tuple[ChannelManager, TaskOwner]:
    """A channel manager running only the Telegram channel (no agent)."""
    owner = TaskOwner("test")
    section = TelegramConfig(
        enabled=True, token=TOKEN, base_url=api.base_url, allow_from=["*"], react_emoji=""
    )
    manager = ChannelManager(
        bus,
        owner,
        config=SimpleNamespace(channels=SimpleNamespace(telegram=section)),  # type: ignore[arg-type]
        state_dir=tmp_path / "state",
        media_dir=tmp_path / "media",
        approval=gate,
        send_delays=(0.05,),
        registry={"telegram": CHANNELS["telegram"]},
    )
    return manager, owner


async def test_attachments_go_out_as_photo_and_document(api: BotApiServer, tmp_path: Path) -> None:
    from desktop.core.bus.events import OutboundMessage

    picture, notes = tmp_path / "chart.png", tmp_path / "notes.txt"
    picture.write_bytes(b"\x89PNG-chart")
    notes.write_bytes(b"the notes")
    manager, owner = _manager(api, MessageBus(), tmp_path)
    await manager.start()
    try:
        await until(lambda: manager.status("telegram").ok)
        message = OutboundMessage(
            "telegram", str(CHAT), "Here you are.", media=[str(picture), str(notes)]
        )
        assert await manager.deliver(message)
    finally:
        await manager.stop()
        await owner.aclose()
    photo, document = api.calls_of("sendPhoto", "sendDocument")
    assert photo.method == "sendPhoto" and photo.files["photo"] == b"\x89PNG-chart"
    assert document.method == "sendDocument" and document.files["document"] == b"the notes"
    assert api.texts(CHAT) == ["Here you are."] and document.at < api.sent(CHAT)[0].at


async def test_approvals_answered_by_keyword_or_left_unanswered(
    api: BotApiServer, tmp_path: Path
) -> None:
    """A keyword reply answers and the question shows it; an unanswered one times out, shows
    that, and a late tap is refused."""
    bus = MessageBus()
    gate = ApprovalGate(ApprovalPolicy(), timeout_s=0.5)
    manager, owner = _manager(api, bus, tmp_path, gate)
    await manager.start()
    ctx = ToolContext(
        workspace=tmp_path, session_key=f"telegram:{CHAT}", channel="telegram", chat_id=str(CHAT)
    )
    try:
        await until(lambda: manager.status("telegram").ok)
        gate.timeout_s = 30
        check = asyncio.ensure_future(gate.check("c1", "exec", {"command": "ls"}, ctx))
        await until(lambda: api.messages, what="the question")
        api.put_message(CHAT, "Deny")
        assert await asyncio.wait_for(check, 30) == DENIED_RESULT.format(tool="exec")
        await until(lambda: api.calls_of("editMessageText"), what="the question updated")
        assert telegram_text(api.calls_of("editMessageText")[0].params["text"]).endswith("Denied")
        assert bus.inbound.empty(), "the keyword was an answer, not a message"

        gate.timeout_s = 0.5
        result = await gate.check("c2", "exec", {"command": "rm -rf /tmp/x"}, ctx)
        assert result is not None and "nobody answered" in result
        await until(lambda: len(api.calls_of("editMessageText")) == 2, what="closed")
        closed = api.calls_of("editMessageText")[1]
        assert telegram_text(closed.params["text"]).endswith(CLOSED)
        late = next(m for m in api.messages.values() if "rm -rf" in m["text"])
        assert "reply_markup" not in late
        api.put_callback(late, "ap:1:c2", user_id=CHAT)
        await until(lambda: len(api.calls_of("answerCallbackQuery")) == 1, what="late tap")
        assert api.calls_of("answerCallbackQuery")[0].params["text"] == "This question is closed."
    finally:
        await manager.stop()
        await owner.aclose()


async def test_a_reminder_made_in_a_chat_is_delivered_to_it(
    api: BotApiServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    clock = FakeClock("2026-05-01T10:00:00+00:00")
    add = {"action": "add", "message": "Stretch your legs", "at": "2026-05-01T10:30:00"}
    scripted_server.push(Reply(tool_calls=[("cron", json.dumps(add))]), Reply("Scheduled."))
    runtime = await start_runtime(tmp_path, api, scripted_server, clock=clock)
    try:
        api.put_message(CHAT, "remind me at 10:30 to stretch")
        await until(lambda: api.texts(CHAT) == ["Scheduled."], what="the confirmation")
        scripted_server.push(Reply("Time to **stretch** your legs!"))
        clock.set("2026-05-01T10:30:00+00:00")
        await runtime.cron.tick()
        await until(lambda: len(api.sent(CHAT)) == 2, what="the reminder")
    finally:
        await runtime.stop()
    reminder = api.sent(CHAT)[1]
    assert reminder.params["text"] == "Time to <b>stretch</b> your legs!"
    assert "Stretch your legs" in json.dumps(scripted_server.chat_requests()[-1].body["messages"])


async def test_photos_voice_and_documents_reach_the_model(
    api: BotApiServer,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    memory_keyring: MemoryKeyring,
) -> None:
    scripted_server.route = echo()
    photo = api.add_file(b"\xff\xd8\xff-a-jpeg", "photos/file_1.jpg")
    voice = api.add_file(b"OggS-voice", "voice/file_2.oga")
    document = api.add_file(b"meeting at noon\n", "documents/file_3.txt")
    runtime = await start_runtime(
        tmp_path,
        api,
        scripted_server,
        providers={"groq": {"apiBase": f"{api.base_url}/openai/v1"}},
    )
    workspace = tmp_path / "ws"
    try:
        api.put_message(CHAT, None, photo=[{**photo, "width": 9, "height": 9}], caption="what?")
        api.put_message(CHAT, None, voice={**voice, "duration": 2, "mime_type": "audio/ogg"})
        api.put_message(
            CHAT,
            None,
            document={**document, "file_name": "notes.txt", "mime_type": "text/plain"},
        )
        await until(lambda: len(api.sent(CHAT)) == 3, what="three answers")
        # With a Groq key in the keyring the voice message is transcribed.
        await asyncio.to_thread(SecretStore().set, "groq", "gsk_test_key_0123456789")
        api.groq_key = "gsk_test_key_0123456789"
        api.transcript = "water the plants"
        api.put_message(CHAT, None, voice={**voice, "duration": 2, "mime_type": "audio/ogg"})
        await until(lambda: len(api.sent(CHAT)) == 4, what="the transcribed one")
        # A (self-hosted) server's ids never name a path outside the media folder.
        hostile = {**document, "file_unique_id": "../../evil", "file_name": "x./../y"}
        api.put_message(CHAT, None, document=hostile)
        await until(lambda: len(api.sent(CHAT)) == 5, what="the hostile one")
    finally:
        await runtime.stop()
    requests = [r.body for r in scripted_server.chat_requests()]
    saved = workspace / "media" / "telegram"
    assert (saved / f"{photo['file_unique_id']}.jpg").read_bytes() == b"\xff\xd8\xff-a-jpeg"
    first = requests[0]["messages"][-1]["content"]
    assert isinstance(first, list) and first[1]["image_url"]["url"].startswith(
        "data:image/jpeg;base64,"
    )
    assert user_text(requests[0]) == f"what?\n[image: {saved / (photo['file_unique_id'] + '.jpg')}]"
    assert user_text(requests[1]) == NO_KEY_NOTE
    assert user_text(requests[2]) == f"[file: {saved / (document['file_unique_id'] + '.txt')}]"
    assert user_text(requests[3]) == "[transcription: water the plants]"
    assert user_text(requests[4]) == f"[file: {saved / '______evil'}]"
    assert sorted(p.name for p in (workspace / "media").rglob("*") if p.is_file()) == sorted(
        ["______evil", "U1.jpg", "U2.ogg", "U3.txt"]
    )
    (transcription,) = api.transcriptions
    assert transcription["model"] == "whisper-large-v3" and transcription["bytes"] == b"OggS-voice"
    assert transcription["auth"] == "Bearer gsk_test_key_0123456789"


async def test_commands_and_groups(
    api: BotApiServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    group = -100123
    runtime = await start_runtime(tmp_path, api, scripted_server)
    try:
        api.put_message(CHAT, "/start")
        await until(lambda: api.sent(CHAT), what="the greeting")
        api.put_message(CHAT, "/new@test_bot")
        await until(lambda: len(api.sent(CHAT)) == 2, what="/new answered")
        api.put_message(group, "/help@other_bot", chat_type="group")
        api.put_message(group, "chatting among ourselves", chat_type="group")
        api.put_message(
            group,
            "@test_bot what is up?",
            chat_type="group",
            entities=[{"type": "mention", "offset": 0, "length": 9}],
        )
        await until(lambda: api.sent(group), what="the mention answered")
        reply_to = next(m for (chat, _), m in api.messages.items() if chat == group)
        api.put_message(group, "and this?", chat_type="group", reply_to_message=reply_to)
        await until(lambda: len(api.sent(group)) == 2, what="the reply answered")
    finally:
        await runtime.stop()
    greeting, new = api.texts(CHAT)
    assert greeting.startswith("Commands:") and "/new" in greeting
    assert "new" in new.lower() and len(scripted_server.chat_requests()) == 2
    asked = [user_text(r.body) for r in scripted_server.chat_requests()]
    assert asked[0] == "@test_bot what is up?"
    assert asked[1] == "[Reply to bot: echo: @test_bot what is up?]\nand this?"
    (commands,) = api.calls_of("setMyCommands")
    names = [c["command"] for c in commands.params["commands"]]
    assert {"new", "stop", "help", "dream_log", "compact"} <= set(names)
    assert reply_to["from"]["id"] == BOT_ID


async def test_the_proxy_carries_every_call(
    api: BotApiServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    proxy = await ForwardProxy().start()
    try:
        runtime = await start_runtime(tmp_path, api, scripted_server, telegram={"proxy": proxy.url})
        try:
            api.put_message(CHAT, "via the proxy")
            await until(lambda: api.sent(CHAT), what="the answer")
        finally:
            await runtime.stop()
    finally:
        await proxy.stop()
    methods = {url.rsplit("/", 1)[-1] for url in proxy.seen}
    assert {"getMe", "getUpdates", "sendMessage"} <= methods
    assert all(url.startswith(api.base_url) for url in proxy.seen)


async def test_a_bad_token_is_reported_not_retried_and_test_button_works(
    api: BotApiServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    from desktop.core.config.loader import load_config
    from tests.channels.telegram.conftest import config_file

    config = load_config(config_file(tmp_path, api, telegram={"token": "999:not-the-token"}))
    from desktop.core.assembly import build_runtime
    from tests.core.agent.conftest import make_provider

    runtime = await asyncio.to_thread(build_runtime, config, make_provider(scripted_server.url))
    await runtime.start()
    try:
        await until(lambda: runtime.channels.status("telegram").state == "unavailable")
        status = runtime.channels.status("telegram")
        assert status.reason == "Telegram did not accept the bot token."
        assert "Bot API server" in status.hint and "not-the-token" not in status.reason
        good = TelegramConfig(token=TOKEN, base_url=api.base_url)
        assert await runtime.channels.check("telegram", good) == "Connected as @test_bot"
        bad = TelegramConfig(token="999:wrong-one", base_url=api.base_url)
        try:
            await runtime.channels.check("telegram", bad)
        except ValueError as exc:
            assert "wrong-one" not in str(exc) and "did not accept" in str(exc)
        else:
            raise AssertionError("a wrong token passed the check")
    finally:
        await runtime.stop()
    assert len(api.calls_of("getMe")) == 3, "one start (not retried) and two checks"


async def test_refused_html_falls_back_to_plain_text_and_half_sent_answers_resume(
    api: BotApiServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    api.fail(
        "sendMessage",
        400,
        "Bad Request: can't parse entities: unsupported start tag",
        when=lambda params: params.get("parse_mode") == "HTML",
    )
    long = "\n\n".join(f"Block {i} " + "text " * 150 for i in range(7))
    scripted_server.push(Reply("**plain** please"), Reply(long, chunk=400))
    runtime = await start_runtime(tmp_path, api, scripted_server)
    try:
        api.put_message(CHAT, "first")
        await until(lambda: api.sent(CHAT), what="the plain answer")
        plain = api.sent(CHAT)[0]
        assert plain.params["text"] == "**plain** please" and "parse_mode" not in plain.params
        # The second piece of the next answer fails once; the retry sends only what is missing.
        api.fail("sendMessage", 502, "Bad Gateway", when=lambda p: "Block 6" in p.get("text", ""))
        api.put_message(CHAT, "second")
        await until(lambda: len(api.sent(CHAT)) == 3, what="both pieces")
    finally:
        await runtime.stop()
    pieces = [c.params["text"] for c in api.sent(CHAT)[1:]]
    assert pieces[0].startswith("Block 0") and pieces[1].startswith("Block")
    assert "Block 6" in pieces[1] and sum(p.count("Block 0") for p in pieces) == 1
    assert len([c for c in api.calls_of("sendMessage") if c.status != 200]) == 2


async def test_settings_a_retry_cannot_fix_make_the_channel_unavailable(tmp_path: Path) -> None:
    state = ChannelStateStore(tmp_path / "telegram.json")
    for section, reason in (
        (TelegramConfig(token=""), "No bot token is set."),
        (TelegramConfig(token=TOKEN, mode="webhook"), "Webhook mode needs a public HTTPS"),
    ):
        channel = TelegramChannel(section, MessageBus(), state, tmp_path)
        with pytest.raises(ChannelUnavailable) as caught:
            await channel.run()
        assert caught.value.reason.startswith(reason) and caught.value.hint
        await channel.stop()
