"""The Discord channel end to end: discord.py against the local Discord (REST + gateway), a
real agent runtime (``build_runtime``) and the scripted model server through LiteLLM."""

from __future__ import annotations

from pathlib import Path

from tests.channels.discord.conftest import echo, session_lines, start_runtime, until, user_text
from tests.channels.discord.discord_server import DM, TOKEN, DiscordServer
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


async def test_a_direct_message_is_answered(
    discord_api: DiscordServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.push(Reply("**Hi** there.\n\n#### Details\n- one"))
    runtime = await start_runtime(
        tmp_path, discord_api, scripted_server, discord={"readReceiptEmoji": "👀"}
    )
    try:
        assert runtime.channels.status("discord").account == "@nanobot"
        incoming = discord_api.put_message(DM, "hello _there_")
        await until(lambda: discord_api.sent(DM), what="the answer")
        answer = discord_api.sent(DM)[0]
    finally:
        await runtime.stop()
    body = answer.body or {}
    assert body["content"] == "**Hi** there.\n\n**Details**\n- one"
    assert body["message_reference"] == {
        "type": 0, "message_id": int(incoming["id"]), "channel_id": DM, "fail_if_not_exists": False
    }  # the answer replies to the message, without pinging its author:
    assert body["allowed_mentions"] == {"parse": ["users"]}
    react = discord_api.calls_of("PUT", "/reactions/👀/@me")
    unreact = discord_api.calls_of("DELETE", "/reactions/👀/@me")
    assert len(react) == 1 and f"/messages/{incoming['id']}/" in react[0].path
    assert len(unreact) == 1 and unreact[0].at > react[0].at
    (identify,) = discord_api.identifies
    assert identify["token"] == TOKEN and identify["intents"] == 37377
    assert discord_api.heartbeats >= 1
    typing = discord_api.calls_of("POST", f"/channels/{DM}/typing")
    assert typing and typing[0].at < answer.at
    assert user_text(scripted_server.chat_requests()[0].body) == "hello _there_"
    lines = session_lines(runtime, f"discord:{DM}")
    assert [m["role"] for m in lines] == ["user", "assistant"]

