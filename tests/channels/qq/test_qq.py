"""The QQ channel against the local QQ platform (real botpy, real aiohttp, real runtime)."""

from __future__ import annotations

from pathlib import Path

from desktop.core.channels.qq.channel import MESSAGE_LIMIT
from tests.channels.qq.conftest import USER, echo, start_runtime, state, until, user_text
from tests.channels.qq.qq_server import APP_ID, BOT_NAME, QQServer
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.typed import present


async def test_a_private_message_is_answered_with_a_passive_reply(
    qq: QQServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, scripted_server)
    try:
        assert runtime.channels.status("qq").account == BOT_NAME
        identify = next(f for f in qq.gateway_frames if f["op"] == 2)
        assert identify["d"]["intents"] == (1 << 25) | (1 << 12)  # C2C/group + guild DMs
        assert identify["d"]["token"].startswith("QQBot access-token-")
        msg_id = await qq.c2c(USER, "hello there")
        await until(lambda: qq.sent(), what="the answer")
    finally:
        await runtime.stop()
    assert qq.calls[0].path == "/app/getAppAccessToken"
    assert qq.calls[0].body == {"appId": APP_ID, "clientSecret": "qq-app-secret-value-42"}
    [reply] = [c for c in qq.calls if c.path == f"/v2/users/{USER}/messages"]
    body = {k: v for k, v in reply.body.items() if v is not None}
    assert body == {
        "openid": USER,
        "msg_type": 0,
        "content": "echo: hello there",
        "msg_id": msg_id,
        "msg_seq": 1,
    }
    assert user_text(scripted_server.chat_requests()[0].body) == "hello there"


def _joined(qq: QQServer) -> list[str]:
    """The words of the markdown pieces sent to GROUP1 after the acknowledgement."""
    bodies = [c.body for c in qq.calls if c.path == "/v2/groups/GROUP1/messages"][1:]
    return "\n\n".join(b["markdown"]["content"] for b in bodies).split()


async def test_a_group_mention_is_answered_in_the_group_as_markdown_in_pieces(
    qq: QQServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    long_answer = "\n\n".join(f"**Part {i}** " + "word " * 150 for i in range(10))
    scripted_server.route = lambda body: Reply(long_answer, chunk=500)
    runtime = await start_runtime(
        tmp_path, scripted_server, qq={"msgFormat": "markdown", "ackMessage": "⏳ Processing..."}
    )
    try:
        msg_id = await qq.group("GROUP1", "MEMBER1", "write a lot")
        await until(
            lambda: _joined(qq) == long_answer.split(), what="every piece of the answer", timeout=90
        )  # includes a model turn (slow when loaded)
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    bodies = [c.body for c in qq.calls if c.path == "/v2/groups/GROUP1/messages"]
    ack, pieces = bodies[0], bodies[1:]
    assert (ack["msg_type"], ack["markdown"], ack["msg_id"], ack["msg_seq"]) == (
        2, {"content": "⏳ Processing..."}, msg_id, 1,
    )  # fmt: skip
    assert len(pieces) > 3
    assert all(p["msg_type"] == 2 for p in pieces)
    assert all(len(p["markdown"]["content"]) <= MESSAGE_LIMIT for p in pieces)
    # QQ takes four passive replies to one message (the ack was the first): the rest go as
    # new messages.
    assert [(p["msg_id"], p["msg_seq"]) for p in pieces[:3]] == [(msg_id, n) for n in (2, 3, 4)]
    assert all(p["msg_id"] is None for p in pieces[3:])
    joined = "\n\n".join(p["markdown"]["content"] for p in pieces)
    assert joined.split() == long_answer.split()
    assert user_text(scripted_server.chat_requests()[0].body) == "write a lot"
    assert state(tmp_path)["chats"] == {"GROUP1": "group"}


async def test_a_sender_outside_allow_from_is_ignored(
    qq: QQServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, scripted_server, qq={"allowFrom": ["FRIEND"]})
    try:
        await qq.c2c("STRANGER", "let me in")
        await qq.c2c("FRIEND", "hi")
        await until(lambda: qq.texts("FRIEND"), what="the friend answered")
        await until(lambda: qq.texts("STRANGER"), what="the stranger's pairing code")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert qq.texts("FRIEND") == ["echo: hi"]
    [code] = qq.texts("STRANGER")  # DM pairing: a code, nothing from the agent
    assert "Your pairing code:" in code
    assert [user_text(r.body) for r in scripted_server.chat_requests()] == ["hi"]


async def test_a_malformed_event_is_skipped_and_the_channel_goes_on(
    qq: QQServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, scripted_server)
    try:
        await qq.dispatch("C2C_MESSAGE_CREATE", {"content": "no id, no author"})
        await qq.dispatch("C2C_MESSAGE_CREATE", "not an object")
        await qq.dispatch("", None, raw={"op": 0, "t": 5, "d": {}})
        await qq.dispatch("", None, raw={"op": 0, "t": "C2C_MESSAGE_CREATE", "s": "x"})
        await present(qq._ws).send_str("{not json")
        await qq.c2c(USER, "still there?")
        await until(lambda: qq.texts(USER), what="the answer after the bad events")
    finally:
        await runtime.stop()
    assert qq.texts(USER) == ["echo: still there?"]
    assert qq.connections == 1  # the connection was never dropped


async def test_bad_credentials_make_the_channel_unavailable_with_a_reason(
    qq: QQServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = await start_runtime(tmp_path, scripted_server, qq={"secret": "wrong"}, wait=False)
    try:
        await until(lambda: runtime.channels.status("qq").state == "unavailable", what="status")
        status = runtime.channels.status("qq")
    finally:
        await runtime.stop()
    assert "did not accept the AppID and AppSecret" in status.reason
    assert "invalid appid or secret" in status.reason and "AppSecret" in status.hint
    assert qq.connections == 0
