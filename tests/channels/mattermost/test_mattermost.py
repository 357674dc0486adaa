"""The Mattermost channel end to end: aiohttp's REST and WebSocket clients against the local
Mattermost server, a real agent runtime (``build_runtime``) and the scripted model server
through LiteLLM."""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path

from desktop.core.agent.approval import ApprovalPolicy
from desktop.core.bus.events import OutboundMessage
from desktop.core.channels.base import split_message
from desktop.core.channels.mattermost.channel import MAX_CHARS, MattermostChannel
from tests.channels.mattermost.conftest import echo, start_runtime, until, user_text
from tests.channels.mattermost.server import (
    ALICE,
    BOT,
    DM,
    MALLORY,
    MALLORY_DM,
    TOKEN,
    TOWN,
    MattermostServer,
)
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def _asked(model: ScriptedOpenAIServer) -> list[str]:
    return [user_text(r.body) for r in model.chat_requests()]


async def test_a_direct_message_is_answered_in_markdown_with_reactions(
    mattermost: MattermostServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    answer = "**Hi** there, `x<y` works.\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |"
    scripted_server.push(Reply(answer))
    runtime = await start_runtime(tmp_path, mattermost, scripted_server)
    try:
        assert runtime.channels.status("mattermost").account == f"@{BOT}"
        channel = runtime.channels.channel("mattermost")
        assert isinstance(channel, MattermostChannel)
        assert await channel.check() == f"Connected as @{BOT} on {mattermost.url}"
        asked = await mattermost.say(DM, "hello _there_")
        await until(lambda: mattermost.texts(DM), what="the answer")
        await until(lambda: len(mattermost.reactions) == 3, what="the reactions")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert mattermost.challenges == [
        {"seq": 1, "action": "authentication_challenge", "data": {"token": TOKEN}}
    ]
    (post,) = mattermost.bot_posts(DM)
    assert post["message"] == answer, "Mattermost renders the Markdown itself"
    assert post["root_id"] == "", "a direct message is answered in the conversation"
    assert _asked(scripted_server) == ["hello _there_"], "the bot's own post is not answered"
    assert mattermost.reactions == [
        ("add", asked, "eyes"), ("remove", asked, "eyes"), ("add", asked, "white_check_mark"),
    ]  # fmt: skip
    assert runtime.sessions.path_for(f"mattermost:{DM}").exists(), "0.3.5's session key"


async def test_a_channel_mention_is_answered_in_its_thread_and_unmentioned_posts_ignored(
    mattermost: MattermostServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, mattermost, scripted_server)
    try:
        await mattermost.say(TOWN, "just chatting")
        root = await mattermost.say(TOWN, f"@{BOT} what time is it")
        await until(lambda: mattermost.texts(TOWN), what="the answer")
        await mattermost.say(TOWN, f"@{BOT} and the date?", root_id=root)
        await until(lambda: len(mattermost.texts(TOWN)) == 2, what="the thread answer")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    posts = mattermost.bot_posts(TOWN)
    assert [p["message"] for p in posts] == ["echo: what time is it", "echo: and the date?"]
    assert all(p["root_id"] == root for p in posts), "answered in the post's thread"
    assert _asked(scripted_server) == ["what time is it", "and the date?"]
    key = f"mattermost:{TOWN}:{root}"
    lines = runtime.sessions.path_for(key).read_text().splitlines()[1:]
    assert [json.loads(line)["role"] for line in lines] == ["user", "assistant"] * 2


async def test_a_sender_outside_allow_from_is_refused_and_nothing_reaches_the_bus(
    mattermost: MattermostServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, mattermost, scripted_server, allowFrom=[ALICE])
    try:
        await mattermost.say(MALLORY_DM, "let me in", user=MALLORY)
        await mattermost.say(DM, "from alice")
        await until(lambda: mattermost.texts(DM), what="alice's answer")
        await until(lambda: mattermost.texts(MALLORY_DM), what="the stranger's pairing code")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert mattermost.texts(DM) == ["echo: from alice"]
    assert "Your pairing code" in mattermost.texts(MALLORY_DM)[0]
    assert _asked(scripted_server) == ["from alice"]


async def test_allow_from_by_username_and_email(
    mattermost: MattermostServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(
        tmp_path,
        mattermost,
        scripted_server,
        allowFrom=["alice@example.org"],
        allowFromMatchMode="email",
    )
    try:
        await mattermost.say(MALLORY_DM, "not me", user=MALLORY)
        await mattermost.say(DM, "by e-mail")
        await until(lambda: mattermost.texts(DM), what="alice's answer")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert _asked(scripted_server) == ["by e-mail"], "e-mail matched case-insensitively"


async def test_a_long_answer_is_split_under_the_limit_in_order(
    mattermost: MattermostServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    paragraphs = [(f"Part {i}. " + "lorem ipsum dolor sit amet " * 150).strip() for i in range(9)]
    reply = "\n\n".join(paragraphs)
    assert MAX_CHARS < len(reply) <= 3 * MAX_CHARS
    scripted_server.push(Reply(reply, chunk=2000))
    runtime = await start_runtime(tmp_path, mattermost, scripted_server)
    try:
        await mattermost.say(DM, "write a lot")
        await until(lambda: len(mattermost.texts(DM)) == 3, what="every piece")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    pieces = mattermost.texts(DM)
    assert pieces == split_message(reply, MAX_CHARS)
    assert all(len(p) <= MAX_CHARS for p in pieces)
    assert "\n\n".join(pieces) == reply, "nothing lost, in order"


async def test_a_file_comes_in_and_a_file_goes_out(
    mattermost: MattermostServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.push(Reply("a red dot"))
    runtime = await start_runtime(tmp_path, mattermost, scripted_server)
    try:
        image = mattermost.add_file("dot.png", PNG, "image/png")
        await mattermost.say(DM, "what is this?", file_ids=[image, "missingfile00000000000001"])
        await until(lambda: mattermost.texts(DM), what="the answer")
        channel = runtime.channels.channel("mattermost")
        assert channel is not None
        out = tmp_path / "report.txt"
        out.write_text("the report")
        root = await mattermost.say(TOWN, "a thread")
        await channel.send(
            OutboundMessage("mattermost", f"{TOWN}:{root}", "Here it is", media=[str(out)])
        )
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    body = scripted_server.chat_requests()[0].body
    user = next(m for m in reversed(body["messages"]) if m["role"] == "user")
    assert any(p.get("type") == "image_url" for p in user["content"]), "the model sees the image"
    text = user_text(body)
    saved = tmp_path / "ws" / "media" / "mattermost" / f"{image}_dot.png"
    assert f"[image: {saved}]" in text and saved.read_bytes() == PNG
    assert "[file: missingfile00000000000001 — download failed]" in text
    text_post, file_post = mattermost.bot_posts(TOWN)
    assert (text_post["message"], text_post["root_id"]) == ("Here it is", root)
    assert file_post["root_id"] == root and file_post["message"] == ""
    (file_id,) = file_post["file_ids"]
    info, content = mattermost.files[file_id]
    assert (info["name"], content, info["channel_id"]) == ("report.txt", b"the report", TOWN)


async def test_an_approval_is_asked_in_the_thread_and_answered_by_a_reply_word(
    mattermost: MattermostServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.push(
        Reply(tool_calls=[("exec", json.dumps({"command": "echo approved-run"}))]),
        Reply("done"),
    )
    runtime = await start_runtime(
        tmp_path, mattermost, scripted_server, approval=ApprovalPolicy(), allowFrom=[ALICE]
    )
    try:
        root = await mattermost.say(TOWN, f"@{BOT} run it")
        await until(lambda: mattermost.texts(TOWN), what="the question")
        (question,) = mattermost.bot_posts(TOWN)
        assert question["root_id"] == root
        assert "Allow the tool exec?" in question["message"]
        assert "echo approved-run" in question["message"]
        await mattermost.say(TOWN, "allow", user=MALLORY, root_id=root)  # not allowed
        await mattermost.say(TOWN, "allow", root_id=root)  # no mention needed for the answer
        await until(lambda: "done" in mattermost.texts(TOWN), what="the answer after the tool")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    tool_result = next(
        m for m in scripted_server.chat_requests()[-1].body["messages"] if m["role"] == "tool"
    )
    assert "approved-run" in str(tool_result["content"])
    assert _asked(scripted_server)[0] == "run it"
    assert all(t != "allow" for t in _asked(scripted_server)), "the answer is not a message"


async def test_a_dropped_connection_comes_back_and_the_next_message_arrives(
    mattermost: MattermostServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, mattermost, scripted_server)
    try:
        await mattermost.say(DM, "before")
        await until(lambda: mattermost.texts(DM) == ["echo: before"], what="first answer")
        await mattermost.drop()
        await until(lambda: runtime.channels.status("mattermost").state == "error", what="lost")
        await until(lambda: runtime.channels.status("mattermost").ok, what="reconnected")
        await until(lambda: mattermost.connections == 2, what="the second connection")
        await mattermost.say(DM, "after")
        await until(lambda: len(mattermost.texts(DM)) == 2, what="the next answer")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert mattermost.texts(DM) == ["echo: before", "echo: after"]
    assert _asked(scripted_server) == ["before", "after"]


async def test_bad_settings_are_a_clear_status_not_a_crash(
    mattermost: MattermostServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = await start_runtime(
        tmp_path, mattermost, scripted_server, connected=False, token="wrong-token"
    )
    try:
        await until(lambda: runtime.channels.status("mattermost").state == "unavailable")
        await asyncio.sleep(0)
        refused = runtime.channels.status("mattermost")
    finally:
        await runtime.stop()
    assert "refused the token" in refused.reason and "Bot Accounts" in refused.hint
    assert "wrong-token" not in refused.reason
    assert mattermost.connections == 0 and mattermost.calls == [("GET", "/api/v4/users/me")]
