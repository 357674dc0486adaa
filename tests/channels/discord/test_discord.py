"""The Discord channel end to end: discord.py against the local Discord (REST + gateway), a
real agent runtime (``build_runtime``) and the scripted model server through LiteLLM."""

from __future__ import annotations

from pathlib import Path

from desktop.core.channels.discord import markup
from tests.channels.discord.conftest import session_lines, start_runtime, until, user_text
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
        "type": 0,
        "message_id": int(incoming["id"]),
        "channel_id": DM,
        "fail_if_not_exists": False,
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


async def test_a_long_answer_is_split_under_the_limit_with_code_fences_reopened(
    discord_api: DiscordServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    paragraphs = [f"Part {i}. " + "lorem ipsum dolor sit amet " * 18 for i in range(6)]
    code = "```python\n" + "\n".join(f"print({i} < {i + 1})  # step {i}" for i in range(90))
    reply = "\n\n".join([*paragraphs[:3], code + "\n```", *paragraphs[3:]])
    assert 4500 <= len(reply) <= 6500
    scripted_server.push(Reply(reply, chunk=400))
    runtime = await start_runtime(tmp_path, discord_api, scripted_server)
    try:
        incoming = discord_api.put_message(DM, "write a lot")
        expected = markup.split(markup.to_discord(reply))
        await until(
            lambda: discord_api.texts(DM) == expected, what="every piece, in order", timeout=90
        )  # includes a model turn (slow when loaded)
        sent = discord_api.sent(DM)
    finally:
        await runtime.stop()
    pieces = [str((c.body or {})["content"]) for c in sent]
    assert len(pieces) >= 3 and all(len(p) <= 2000 for p in pieces)
    assert all(p.count("```") % 2 == 0 for p in pieces), "every piece closes its fence"
    inside = [p for p in pieces if "print(" in p]
    assert len(inside) >= 2 and all(p.count("```python") == 1 for p in inside)
    assert pieces[0].startswith("Part 0.")
    # only the first piece replies to the message
    references = [("message_reference" in (c.body or {})) for c in sent]
    assert references == [True] + [False] * (len(sent) - 1)
    assert sent[0].body["message_reference"]["message_id"] == int(incoming["id"])  # type: ignore[index]
    # nothing lost: the pieces hold the answer's words and code lines, in order
    joined = "\n".join(p.replace("```python\n", "").replace("\n```", "") for p in pieces)
    assert " ".join(joined.split()) == " ".join(
        reply.replace("```python\n", "").replace("\n```", "").split()
    )


async def test_an_image_reaches_the_model_and_files_go_out(
    discord_api: DiscordServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    picture = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
    scripted_server.push(Reply("A picture."))
    runtime = await start_runtime(tmp_path, discord_api, scripted_server)
    try:
        attachment = discord_api.attachment("cat.png", picture, "image/png")
        discord_api.put_message(DM, "what is this?", attachments=[attachment])
        await until(lambda: discord_api.sent(DM), what="the answer")
        report = tmp_path / "report.txt"
        report.write_bytes(b"the report")
        from desktop.core.bus.events import OutboundMessage

        await runtime.bus.publish_outbound(
            OutboundMessage("discord", str(DM), "Here it is.", media=[str(report)])
        )
        await until(lambda: len(discord_api.sent(DM)) == 2, what="the file")
    finally:
        await runtime.stop()
    request = scripted_server.chat_requests()[0].body
    content = next(m for m in reversed(request["messages"]) if m["role"] == "user")["content"]
    images = [p for p in content if p.get("type") == "image_url"]
    assert len(images) == 1 and images[0]["image_url"]["url"].startswith("data:image/png;base64,")
    text = " ".join(p.get("text", "") for p in content if p.get("type") == "text")
    assert "what is this?" in text and "[image: " in text and "cat.png" in text
    saved = list((tmp_path / "ws" / "media" / "discord").glob("*cat.png")) or list(
        tmp_path.rglob("*_cat.png")
    )
    assert saved and saved[0].read_bytes() == picture
    out = discord_api.sent(DM)[1]
    assert out.files == [("report.txt", b"the report")]
    assert (out.body or {})["content"] == "Here it is."
    assert (out.body or {})["attachments"] == [{"id": 0, "filename": "report.txt"}]


async def test_a_50_mb_message_is_answered_and_never_stored_or_sent_to_the_model(
    discord_api: DiscordServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """A 50 MB message over the gateway: the sender is told the limit (in reply to it), the
    model and the session never see it, no file holds it; the next message is answered."""
    scripted_server.push(Reply("Short answered."))
    runtime = await start_runtime(tmp_path, discord_api, scripted_server)
    try:
        huge = discord_api.put_message(DM, "x" * (50 * 1024 * 1024))
        await until(lambda: discord_api.sent(DM), timeout=120, what="the answer to it")
        discord_api.put_message(DM, "a short one")
        await until(lambda: len(discord_api.sent(DM)) == 2, what="the short one's answer")
    finally:
        await runtime.stop()
    assert discord_api.texts(DM) == [
        "Your message is too long (50 MB); I read messages up to 256 KB. "
        "Send it as a file instead, or in shorter parts.",
        "Short answered.",
    ]
    reference = (discord_api.sent(DM)[0].body or {})["message_reference"]
    assert reference["message_id"] == int(huge["id"])
    requests = scripted_server.chat_requests()
    assert [user_text(r.body) for r in requests] == ["a short one"]
    assert [m["content"] for m in session_lines(runtime, f"discord:{DM}")] == [
        "a short one",
        "Short answered.",
    ]
    largest = max(p.stat().st_size for p in tmp_path.rglob("*") if p.is_file())
    assert largest < 1024 * 1024
