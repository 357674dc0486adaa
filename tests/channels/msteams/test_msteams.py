"""The Teams channel end to end: the Bot Framework SDK's CloudAdapter serving the endpoint,
its real JWT check against the local OpenID metadata and keys, its token from the local login
service and its Connector client posting to the local Connector service; a real agent runtime
and the scripted model server through LiteLLM."""

from __future__ import annotations

from pathlib import Path

from desktop.core.channels.msteams.channel import MSTeamsChannel
from tests.channels.msteams.conftest import Microsoft, echo, start_runtime, until, user_text
from tests.channels.msteams.server import (
    ACCESS_TOKEN,
    ALICE_AAD,
    APP_ID,
    APP_PASSWORD,
    CONVERSATION,
    MALLORY_AAD,
)
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.typed import running_channel


def _asked(model: ScriptedOpenAIServer) -> list[str]:
    return [user_text(r.body) for r in model.chat_requests()]


async def test_a_personal_message_is_answered_in_markdown_as_a_reply(
    microsoft: Microsoft, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    answer = "**Hi** there.\n\n- one\n- two"
    scripted_server.push(Reply(answer))
    bf = microsoft.bot_framework
    runtime = await start_runtime(tmp_path, microsoft, scripted_server)
    try:
        channel = runtime.channels.channel("msteams")
        assert isinstance(channel, MSTeamsChannel)
        assert await channel.check() == f"Signed in as app {APP_ID}"
        activity = bf.activity("<at>nanobot</at> hello &amp; welcome")
        assert await bf.say(microsoft.endpoint, activity) in (200, 201)
        await until(lambda: bf.texts(), what="the answer")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    (sent,) = bf.sent
    assert sent.conversation == CONVERSATION and sent.reply_to == activity["id"]
    assert sent.activity["text"] == answer and sent.activity["textFormat"] == "markdown"
    assert _asked(scripted_server) == ["hello & welcome"], "mention markup and entities gone"
    assert runtime.sessions.path_for(f"msteams:{CONVERSATION}").exists(), "0.3.5's session key"
    grants = {r["grant_type"] for r in microsoft.login.token_requests}
    assert grants == {"client_credentials"} and bf.unauthorized == 0
    assert microsoft.login.token_requests[0]["scope"] == "https://api.botframework.com/.default"
    assert ACCESS_TOKEN not in str(runtime.channels.status("msteams"))


async def test_a_request_without_a_valid_microsoft_signature_is_refused(
    microsoft: Microsoft, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    from cryptography.hazmat.primitives.asymmetric import rsa

    scripted_server.route = echo()
    bf = microsoft.bot_framework
    runtime = await start_runtime(tmp_path, microsoft, scripted_server)
    try:
        forged = bf.token(key=rsa.generate_private_key(public_exponent=65537, key_size=2048))
        assert await bf.say(microsoft.endpoint, bf.activity("forged"), token=forged) == 401
        other_app = bf.token(audience="another-app")
        assert await bf.say(microsoft.endpoint, bf.activity("other app"), token=other_app) == 401
        assert await bf.say(microsoft.endpoint, bf.activity("no token"), token="") == 401
        assert await bf.say(microsoft.endpoint, bf.activity("signed")) in (200, 201)
        await until(lambda: bf.texts(), what="the answer")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert _asked(scripted_server) == ["signed"]


async def test_a_sender_outside_allow_from_and_group_chats_are_ignored(
    microsoft: Microsoft, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    bf = microsoft.bot_framework
    runtime = await start_runtime(tmp_path, microsoft, scripted_server, allowFrom=[ALICE_AAD])
    try:
        mallory = bf.activity("let me in", sender=MALLORY_AAD, conversation="a:1mallory")
        await bf.say(microsoft.endpoint, mallory)  # answered with a pairing code only
        group = bf.activity("in a group", conversation="19:group", conversation_type="groupChat")
        await bf.say(microsoft.endpoint, group)
        await bf.say(microsoft.endpoint, bf.activity("from alice"))
        await until(lambda: len(bf.texts()) == 2, what="alice's answer and the code")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert [s.activity["text"] for s in bf.sent if s.conversation == CONVERSATION] == [
        "echo: from alice"
    ]
    (code,) = [s.activity["text"] for s in bf.sent if s.conversation == "a:1mallory"]
    assert "Your pairing code" in code
    assert _asked(scripted_server) == ["from alice"]


async def test_a_wrong_app_password_is_a_clear_check_failure(
    microsoft: Microsoft, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = await start_runtime(
        tmp_path, microsoft, scripted_server, appPassword="wrong-secret-42"
    )
    try:
        channel = running_channel(runtime, "msteams")
        try:
            await channel.check()
        except ValueError as exc:
            message = str(exc)
        else:
            raise AssertionError("the check passed with a wrong password")
    finally:
        await runtime.stop()
    assert "did not accept" in message and "invalid_client" in message
    assert "wrong-secret-42" not in message and APP_PASSWORD not in message


async def test_a_shared_file_and_a_pasted_image_are_saved_under_media(
    microsoft: Microsoft, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    import base64

    png = base64.b64decode(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
    )
    scripted_server.push(Reply("got them"))
    bf = microsoft.bot_framework
    bf.files.update({"dot.png": png, "notes.txt": b"my notes"})
    runtime = await start_runtime(tmp_path, microsoft, scripted_server)
    try:
        activity = bf.activity("look at these")
        activity["attachments"] = [
            {"contentType": "image/png", "contentUrl": f"{bf.url}/v3/attachments/dot.png",
             "name": "dot.png"},
            {"contentType": "application/vnd.microsoft.teams.file.download.info",
             "name": "notes.txt",
             "content": {"downloadUrl": f"{bf.url}/download/notes.txt", "fileType": "txt"}},
            {"contentType": "application/vnd.microsoft.teams.file.download.info",
             "name": "gone.txt", "content": {"downloadUrl": f"{bf.url}/download/gone.txt"}},
            {"contentType": "text/html", "content": "<p>look at these</p>"},
        ]  # fmt: skip
        await bf.say(microsoft.endpoint, activity)
        await until(lambda: bf.texts(), what="the answer")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    body = scripted_server.chat_requests()[0].body
    user = next(m for m in reversed(body["messages"]) if m["role"] == "user")
    assert any(p.get("type") == "image_url" for p in user["content"]), "the model sees the image"
    text = user_text(body)
    media = tmp_path / "ws" / "media" / "msteams"
    image, notes = media / f"{activity['id']}_dot.png", media / f"{activity['id']}_notes.txt"
    assert f"[image: {image}]" in text and image.read_bytes() == png
    assert f"[file: {notes}]" in text and notes.read_bytes() == b"my notes"
    assert "[file: gone.txt — download failed]" in text
    assert bf.unauthorized == 0, "the image was fetched with the bot's token"
