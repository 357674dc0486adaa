"""The Telegram channel end to end: python-telegram-bot against the local Bot API server, a
real agent runtime (``build_runtime``) and the scripted model server through LiteLLM."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from desktop.core.channels.telegram.markup import split_pieces
from desktop.core.runtime import Runtime
from tests.channels.telegram.bot_api_server import TOKEN, BotApiServer, telegram_text
from tests.channels.telegram.conftest import (
    CHAT,
    echo,
    session_lines,
    start_runtime,
    until,
    user_text,
)
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


async def test_a_message_is_answered_in_html_with_typing_and_reaction(
    api: BotApiServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.push(Reply("**Hi** there, `x<y` works.\n\n- one\n- two"))
    runtime = await start_runtime(
        tmp_path, api, scripted_server, telegram={"reactEmoji": "👀", "replyToMessage": True}
    )
    try:
        assert runtime.channels.status("telegram").account == "@test_bot"
        incoming = api.put_message(CHAT, "hello _there_")
        await until(lambda: api.sent(CHAT), what="the answer")
        answer = api.sent(CHAT)[0]
        assert answer.params["parse_mode"] == "HTML"
        assert answer.params["text"] == (
            "<b>Hi</b> there, <code>x&lt;y</code> works.\n\n• one\n• two"
        )
        message_id = incoming["message"]["message_id"]
        assert answer.params["reply_parameters"]["message_id"] == message_id
        await until(lambda: len(api.calls_of("setMessageReaction")) == 2, what="unreact")
    finally:
        await runtime.stop()
    methods = [c.method for c in api.calls]
    assert methods[:3] == ["getMe", "deleteWebhook", "setMyCommands"]
    assert methods.count("getMe") == 1
    typing = api.calls_of("sendChatAction")
    assert typing and typing[0].params == {"chat_id": CHAT, "action": "typing"}
    assert typing[0].at < answer.at, "typing shows before the answer"
    react, unreact = api.calls_of("setMessageReaction")
    assert react.params["reaction"] == [{"type": "emoji", "emoji": "👀"}]
    assert react.params["message_id"] == message_id and unreact.params["reaction"] == []
    assert user_text(scripted_server.chat_requests()[0].body) == "hello _there_"
    lines = session_lines(runtime, f"telegram:{CHAT}")
    assert [m["role"] for m in lines] == ["user", "assistant"]
    polls = api.calls_of("getUpdates")
    assert polls[0].params.get("offset") is None and polls[0].params["timeout"] == 25
    assert polls[1].params["offset"] == incoming["update_id"] + 1, "confirmed after handling"
    assert set(polls[0].params["allowed_updates"]) == {"message", "callback_query"}


async def test_a_long_answer_is_split_under_the_limit(
    api: BotApiServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    paragraphs = [f"Part {i}. " + "lorem ipsum dolor sit amet " * 18 for i in range(10)]
    code = "```python\n" + "\n".join(f"print({i} < {i + 1})" for i in range(30)) + "\n```"
    reply = "\n\n".join([*paragraphs[:5], code, *paragraphs[5:]])
    assert 5000 <= len(reply) <= 6000
    scripted_server.push(Reply(reply, chunk=400))
    runtime = await start_runtime(tmp_path, api, scripted_server)
    try:
        api.put_message(CHAT, "write a lot")
        expected = [p.html for p in split_pieces(reply)]
        await until(
            lambda: [c.params["text"] for c in api.sent(CHAT)] == expected,
            what="every piece",
            timeout=90,
        )
        sent = api.sent(CHAT)
    finally:
        await runtime.stop()
    assert len(sent) == 2 and all(c.status == 200 for c in sent)
    shown = [telegram_text(c.params["text"]) for c in sent]  # the server accepted both
    assert all(len(s.encode("utf-16-le")) // 2 <= 4096 for s in shown)
    assert shown[0].startswith("Part 0.") and shown[1].startswith(("Part", "print"))
    assert sum("<pre>" in c.params["text"] for c in sent) == 1, "the code block stays whole"
    assert " ".join("\n\n".join(shown).split()) == " ".join(
        "\n\n".join(
            [*paragraphs[:5], code.strip("`").removeprefix("python"), *paragraphs[5:]]
        ).split()
    )


def only_pairing_codes(texts: list[str]) -> bool:
    """A stranger's private chat got pairing codes (DM pairing) and nothing else."""
    return bool(texts) and all("Your pairing code:" in text for text in texts)


async def _settled(runtime: Runtime, api: BotApiServer) -> None:
    """Wait until every update put in so far was handled and confirmed, and the agent is idle."""
    last = max(u for u in api.put_at)
    await until(
        lambda: any((c.params.get("offset") or 0) > last for c in api.calls_of("getUpdates")),
        what="the updates were confirmed",
    )
    await until(lambda: runtime.bus.inbound.empty(), what="the agent took every message")
    await runtime.agent.idle()


async def test_a_restart_answers_nothing_twice(
    api: BotApiServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, api, scripted_server)
    try:
        first = api.put_message(CHAT, "one")
        api.put_message(CHAT, "two")
        await until(lambda: len(api.sent(CHAT)) == 2, what="two answers")
        await _settled(runtime, api)
    finally:
        await runtime.stop()
    state = json.loads((tmp_path / "nanobot" / "channel-state" / "telegram.json").read_text())
    assert state["values"]["offset"] == max(api.put_at) + 1
    # The app died before its next poll confirmed the updates: Telegram sends them again.
    api.forget_confirmations(first["update_id"])
    api.put_message(CHAT, "three")
    polls_before = len(api.calls_of("getUpdates"))
    runtime = await start_runtime(tmp_path, api, scripted_server)
    try:
        await until(lambda: len(api.sent(CHAT)) == 3, what="the new message answered")
        await _settled(runtime, api)
    finally:
        await runtime.stop()
    again = api.calls_of("getUpdates")[polls_before]
    assert again.params.get("offset") is None, "the first poll after a start asks Telegram"
    assert api.texts(CHAT) == ["echo: one", "echo: two", "echo: three"]
    assert len(scripted_server.chat_requests()) == 3


async def test_senders_outside_allow_from_reach_no_agent(
    api: BotApiServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(
        tmp_path, api, scripted_server, telegram={"allowFrom": [str(CHAT)]}
    )
    try:
        api.put_message(CHAT + 1, "let me in", user_id=CHAT + 1, username="mallory")
        api.put_message(CHAT, "hi", username="ada")
        await until(lambda: api.sent(CHAT), what="ada's answer")
        await _settled(runtime, api)
    finally:
        await runtime.stop()
    assert api.texts(CHAT) == ["echo: hi"]
    assert only_pairing_codes(api.texts(CHAT + 1)) and len(scripted_server.chat_requests()) == 1
    assert all(c.params["chat_id"] == CHAT for c in api.calls_of("sendChatAction"))


async def test_an_allow_from_username_lets_nobody_in_an_id_or_a_renamed_pair_does(
    api: BotApiServer,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """allowFrom names "ada" and "@grace" by username only, and Bob by an ``id|username``
    pair from before he renamed himself. Usernames change hands: whoever holds "ada" or
    "grace" now is ignored (the log says to write the id); Bob, renamed, is let in by his id."""
    scripted_server.route = echo()
    bob = CHAT + 3
    allow = ["ada", "@grace", f"{bob}|bob_old"]
    runtime = await start_runtime(tmp_path, api, scripted_server, telegram={"allowFrom": allow})
    try:
        with caplog.at_level(logging.WARNING, logger="desktop.core.channels.base"):
            api.put_message(CHAT + 1, "I am ada now", user_id=CHAT + 1, username="ada")
            api.put_message(CHAT + 2, "and I grace", user_id=CHAT + 2, username="grace")
            api.put_message(bob, "bob here", user_id=bob, username="bob_new")
            await until(lambda: api.sent(bob), what="bob's answer")
            await _settled(runtime, api)
    finally:
        await runtime.stop()
    assert api.texts(bob) == ["echo: bob here"]
    assert only_pairing_codes(api.texts(CHAT + 1)) and only_pairing_codes(api.texts(CHAT + 2))
    assert len(scripted_server.chat_requests()) == 1
    hints = " ".join(r.getMessage() for r in caplog.records)
    assert f"Write the id '{CHAT + 1}'" in hints and f"Write the id '{CHAT + 2}'" in hints


async def test_the_server_disappears_and_returns_nothing_lost_nothing_twice(
    api: BotApiServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    from desktop.core.bus.events import ChannelStatusChanged, TurnFinished

    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, api, scripted_server)
    states: list[str] = []
    finished: list[str] = []
    reasons: list[str] = []

    def status(event: object) -> None:
        if isinstance(event, ChannelStatusChanged):
            states.append(event.state)
            reasons.append(f"{event.reason} {event.hint}")

    runtime.bus.subscribe(status)
    runtime.bus.subscribe(
        lambda e: finished.append(e.content) if isinstance(e, TurnFinished) else None
    )
    try:
        api.put_message(CHAT, "before")
        await until(lambda: len(api.sent(CHAT)) == 1, what="the first answer")
        # The server goes away while an answer is being written …
        from tests.fakes.openai_server import Stall

        scripted_server.route = lambda body: (
            Stall(0.3, Reply("echo: slow")) if "slow" in user_text(body) else echo()(body)
        )
        api.put_message(CHAT, "slow")
        await until(lambda: len(scripted_server.chat_requests()) == 2, what="the model asked")
        await api.stop()
        await until(lambda: "error" in states, what="the channel noticed")
        await until(lambda: "echo: slow" in finished, what="the answer is ready")
        # … and people keep writing while it is away.
        for text in ("during 1", "during 2", "during 3"):
            api.put_message(CHAT, text)
        await api.start()
        await until(lambda: len(api.sent(CHAT)) == 5, what="everything answered")
        await _settled(runtime, api)
        assert runtime.channels.status("telegram").ok
    finally:
        await runtime.stop()
    assert all(TOKEN not in reason for reason in reasons), "the token stays out of the status"
    assert api.texts(CHAT) == [
        "echo: before",
        "echo: slow",
        "echo: during 1",
        "echo: during 2",
        "echo: during 3",
    ]
    assert len(scripted_server.chat_requests()) == 5
    assert states[-1] == "stopped" and "connected" in states[states.index("error") :]


async def test_a_malformed_update_is_logged_and_skipped(
    api: BotApiServer,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, api, scripted_server)
    try:
        with caplog.at_level(logging.WARNING, logger="desktop.core.channels.telegram"):
            api.put_message(CHAT, "first")
            api.put_update({"message": "not a message at all"})
            api.put_update({"message": {"text": "no chat, no id, no date"}})
            api.put_message(CHAT, "second")
            await until(lambda: len(api.sent(CHAT)) == 2, what="both good ones answered")
            await _settled(runtime, api)
        assert runtime.channels.status("telegram").ok
    finally:
        await runtime.stop()
    assert api.texts(CHAT) == ["echo: first", "echo: second"]
    skipped = [r for r in caplog.records if "malformed update" in r.getMessage()]
    assert len(skipped) == 2
    assert len(api.calls_of("getMe")) == 1, "the channel kept running (no reconnect)"


async def test_a_flood_of_100_messages_in_10_chats(
    api: BotApiServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, api, scripted_server)
    chats = [1000 + i for i in range(10)]
    try:
        for n in range(10):
            for chat in chats:
                api.put_message(chat, f"{chat}-{n}")
        await until(lambda: len(api.sent()) == 100, timeout=90, what="100 answers")
        await _settled(runtime, api)
    finally:
        await runtime.stop()
    for chat in chats:
        assert api.texts(chat) == [f"echo: {chat}-{n}" for n in range(10)]
    assert len(scripted_server.chat_requests()) == 100


async def test_typing_is_renewed_while_a_turn_runs_and_ends_with_it(
    api: BotApiServer,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from desktop.core.channels.telegram.channel import TelegramChannel
    from tests.fakes.openai_server import Stall

    monkeypatch.setattr(TelegramChannel, "typing_every", 0.05)
    scripted_server.push(Stall(0.6, Reply("finally")))
    runtime = await start_runtime(tmp_path, api, scripted_server)
    channel = runtime.channels.channel("telegram")
    assert isinstance(channel, TelegramChannel)
    try:
        api.put_message(CHAT, "take your time")
        await until(lambda: str(CHAT) in channel.activity.typing_chats, what="typing")
        await until(lambda: api.sent(CHAT), what="the answer")
        await runtime.agent.idle()
        await until(lambda: not channel.activity.typing_chats, what="typing stopped")
        typing = api.calls_of("sendChatAction")
        assert len(typing) >= 4, "renewed while the model was thinking"
    finally:
        await runtime.stop()
