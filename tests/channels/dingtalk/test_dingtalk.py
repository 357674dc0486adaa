"""The DingTalk channel end to end: the SDK's stream handling against the local DingTalk, a
real agent runtime (``build_runtime``) and the scripted model server through LiteLLM."""

from __future__ import annotations

from pathlib import Path

from tests.channels.dingtalk.conftest import start_runtime, until
from tests.channels.dingtalk.server import CLIENT_ID, TOPIC, DingTalkServer
from tests.channels.telegram.conftest import echo, session_lines, user_text
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


async def test_a_message_is_answered_in_markdown_through_its_session_webhook(
    dingtalk: DingTalkServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.push(Reply("## Hi **Alice**\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n~~old~~ new"))
    runtime = await start_runtime(tmp_path, dingtalk, scripted_server)
    try:
        assert runtime.channels.status("dingtalk").account == CLIENT_ID
        data = dingtalk.message("hello there")
        frame = await dingtalk.push(data)
        await until(lambda: dingtalk.sent(), what="the answer")
        await until(lambda: not dingtalk.unacked(), what="the ACK")
    finally:
        await runtime.stop()
    opened = dingtalk.opened[0]
    assert opened["subscriptions"] == [{"type": "CALLBACK", "topic": TOPIC}]
    (answer,) = dingtalk.sent()
    assert answer.via == "webhook" and answer.chat == "s-" + data["msgId"].split("-")[1]
    assert answer.param == {
        "title": "Hi Alice",
        "text": "## Hi **Alice**\n\na | b\n1 | 2\n\nold new",
    }
    ack = next(a for a in dingtalk.acks if a["headers"]["messageId"] == frame)
    assert ack["code"] == 200
    assert user_text(scripted_server.chat_requests()[0].body) == "hello there"
    lines = session_lines(runtime, "dingtalk:staff-alice")
    assert [m["role"] for m in lines] == ["user", "assistant"]
    assert not dingtalk.calls_to("/v1.0/robot/oToMessages/batchSend")


async def test_a_group_message_is_answered_in_the_group_and_a_stranger_is_ignored(
    dingtalk: DingTalkServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, dingtalk, scripted_server, allowFrom=["staff-alice"])
    try:
        stranger = await dingtalk.push(dingtalk.message("let me in", sender="staff-mallory"))
        await until(lambda: frame_acked(dingtalk, stranger), what="the stranger's ACK")
        await dingtalk.push(dingtalk.message("hi team", group="cid-team"))
        await until(lambda: len(dingtalk.sent()) == 2, what="the answer and the pairing code")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    code, answer = sorted(dingtalk.sent(), key=lambda s: s.via != "robot")
    assert "Your pairing code:" in str(code.param)  # the stranger's private chat: a code
    assert answer.via == "webhook" and answer.param["text"] == "echo: hi team"
    assert [user_text(r.body) for r in scripted_server.chat_requests()] == ["hi team"]
    assert runtime.sessions.path_for("dingtalk:group:cid-team").exists()


def frame_acked(server: DingTalkServer, frame: str) -> bool:
    """Whether the client ACKed ``frame`` with 200."""
    return any(a["headers"]["messageId"] == frame and a["code"] == 200 for a in server.acks)
