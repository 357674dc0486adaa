"""The DingTalk channel: splitting, the robot API, media, approvals, reconnects, restarts and
malformed events — against the local DingTalk and a real agent runtime."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from desktop.core.agent.approval import ApprovalPolicy
from desktop.core.bus.events import OutboundMessage
from desktop.core.channels.dingtalk.markup import LIMIT, pieces
from tests.channels.dingtalk.conftest import start_runtime, state_values, until
from tests.channels.dingtalk.server import PNG, DingTalkServer
from tests.channels.dingtalk.test_dingtalk import frame_acked
from tests.channels.telegram.conftest import echo, user_text
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

TURN_S = 90.0  # waits that include a model turn (the first imports LiteLLM; slow when loaded)


async def test_a_long_answer_is_split_and_goes_through_the_robot_api_once_the_webhook_expired(
    dingtalk: DingTalkServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    paragraphs = [f"Part {i}. " + "lorem ipsum dolor sit amet " * 30 for i in range(8)]
    code = "```python\n" + "\n".join(f"print({i})" for i in range(200)) + "\n```"
    reply = "\n\n".join([*paragraphs[:4], code, *paragraphs[4:]])
    assert LIMIT < len(reply) < 3 * LIMIT
    scripted_server.push(Reply(reply, chunk=500))
    runtime = await start_runtime(tmp_path, dingtalk, scripted_server)
    try:
        data = dingtalk.message("write a lot")
        dingtalk.expire(data["sessionWebhook"].rsplit("=", 1)[1])
        await dingtalk.push(data)
        expected = pieces(reply)

        def robot_texts() -> list[str]:
            return [s.param["text"] for s in dingtalk.sent() if s.via == "robot"]

        try:  # the wait includes a model turn (the first of a process imports LiteLLM)
            await until(
                lambda: robot_texts() == expected,
                what="every piece through the robot API",
                timeout=TURN_S,
            )
        except AssertionError as exc:  # slow, or a piece lost? say which
            got = robot_texts()
            lost = [i for i, text in enumerate(expected) if text not in got]
            raise AssertionError(
                f"{exc}: {len(got)} of {len(expected)} pieces arrived; missing {lost}"
            ) from None
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    robot = [s for s in dingtalk.sent() if s.via == "robot"]
    assert [s.via for s in dingtalk.sent()] == ["webhook", *["robot"] * len(robot)]
    assert all(s.chat == "staff-alice" and s.msg_key == "sampleMarkdown" for s in robot)
    texts = [s.param["text"] for s in robot]
    assert all(len(t) <= LIMIT for t in texts)
    assert all(t.count("```") % 2 == 0 for t in texts), "every piece's code blocks are closed"
    assert {s.param["title"] for s in robot} == {"Part 0. lorem ipsum dolor sit…"}
    joined = "\n\n".join(texts).replace("\n```\n\n```python\n", "\n")
    assert " ".join(joined.split()) == " ".join(reply.split())
    call = dingtalk.calls_to("/v1.0/robot/oToMessages/batchSend")[0]
    assert call.headers["x-acs-dingtalk-access-token"] == "access-token-abcdef"
    assert call.body["robotCode"] == "dingtestclient01" and call.body["userIds"] == ["staff-alice"]


async def test_a_picture_reaches_the_model_and_images_and_files_go_out_through_the_robot_api(
    dingtalk: DingTalkServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.push(Reply("A red dot."))
    dingtalk.files["code-pic-1"] = PNG
    runtime = await start_runtime(tmp_path, dingtalk, scripted_server)
    try:
        await dingtalk.push(
            dingtalk.message(
                msgtype="picture", content={"downloadCode": "code-pic-1"}, group="cid-g"
            )
        )
        await until(lambda: dingtalk.texts() == ["A red dot."], what="the answer")
        channel = runtime.channels.channel("dingtalk")
        assert channel is not None
        chart = tmp_path / "chart.png"
        chart.write_bytes(PNG)
        notes = tmp_path / "notes.pdf"
        notes.write_bytes(b"%PDF-1.4 test")
        await channel.send(
            OutboundMessage("dingtalk", "group:cid-g", "", media=[str(chart), str(notes)])
        )
    finally:
        await runtime.stop()
    body = scripted_server.chat_requests()[0].body
    parts = next(m for m in reversed(body["messages"]) if m["role"] == "user")["content"]
    assert any(p.get("type") == "image_url" for p in parts), "the picture reached the model"
    download = dingtalk.calls_to("/v1.0/robot/messageFiles/download")[0]
    assert download.body == {"downloadCode": "code-pic-1", "robotCode": "dingtestclient01"}
    assert [(t, n, c) for t, n, c in dingtalk.uploads] == [
        ("image", "chart.png", PNG), ("file", "notes.pdf", b"%PDF-1.4 test"),
    ]  # fmt: skip
    image, document = dingtalk.sent()[1:]
    assert (image.chat, image.msg_key, image.param) == (
        "group:cid-g", "sampleImageMsg", {"photoURL": "@media-1"},
    )  # fmt: skip
    assert (document.msg_key, document.param) == (
        "sampleFile", {"mediaId": "@media-2", "fileName": "notes.pdf", "fileType": "pdf"},
    )  # fmt: skip
    group_send = dingtalk.calls_to("/v1.0/robot/groupMessages/send")[0]
    assert group_send.body["openConversationId"] == "cid-g"


async def test_an_approval_is_answered_by_a_reply_keyword(
    dingtalk: DingTalkServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.push(
        Reply(tool_calls=[("exec", json.dumps({"command": "echo approved-run"}))]),
        Reply("Done: it ran."),
    )
    runtime = await start_runtime(tmp_path, dingtalk, scripted_server, approval=ApprovalPolicy())
    try:
        await dingtalk.push(dingtalk.message("run the command"))
        await until(lambda: dingtalk.texts(), what="the question")
        assert "Allow the tool exec?" in dingtalk.texts()[0]
        await dingtalk.push(dingtalk.message("allow"))
        await until(lambda: len(dingtalk.texts()) == 2, what="the final answer")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert dingtalk.texts()[1] == "Done: it ran."
    tool_results = [
        m
        for r in scripted_server.chat_requests()
        for m in r.body["messages"]
        if m["role"] == "tool"
    ]
    assert any("approved-run" in str(m.get("content")) for m in tool_results)
    assert "allow" not in [user_text(r.body) for r in scripted_server.chat_requests()]


async def test_a_dropped_connection_and_a_disconnect_request_resume_without_duplicates(
    dingtalk: DingTalkServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, dingtalk, scripted_server)
    try:
        await dingtalk.push(dingtalk.message("one"))
        await until(lambda: dingtalk.texts() == ["echo: one"], what="the first answer")
        await runtime.agent.idle()
        ping = await dingtalk.system("ping", {"opaque": "p-1"})
        await until(lambda: dingtalk.system_acks, what="the ping answered")
        assert dingtalk.system_acks[0]["headers"]["messageId"] == ping
        assert json.loads(dingtalk.system_acks[0]["data"]) == {"opaque": "p-1"}
        # DingTalk did not get the ACK of "one" (it sends it again on the next connection).
        first_frame = next(iter(a["headers"]["messageId"] for a in dingtalk.acks))
        dingtalk.unconfirm(first_frame)
        await dingtalk.drop()
        await until(lambda: dingtalk.connections == 2 and dingtalk.connected, what="reconnected")
        await until(lambda: not dingtalk.unacked(), what="the repeated frame ACKed")
        await dingtalk.push(dingtalk.message("two"))
        await until(lambda: "echo: two" in dingtalk.texts(), what="the second answer")
        await dingtalk.system("disconnect")
        await until(lambda: dingtalk.connections == 3 and dingtalk.connected, what="moved")
        await dingtalk.push(dingtalk.message("three"))
        await until(lambda: "echo: three" in dingtalk.texts(), what="the third answer")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert dingtalk.texts() == ["echo: one", "echo: two", "echo: three"]
    texts = [user_text(r.body) for r in scripted_server.chat_requests()]
    assert texts == ["one", "two", "three"]


async def test_a_message_acked_but_not_saved_is_answered_once_after_a_restart(
    dingtalk: DingTalkServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    gate = threading.Event()

    def route(body: dict[str, Any]) -> Reply:
        text = user_text(body)
        if text == "busy":
            gate.wait(30)
        return Reply(f"echo: {text}")

    scripted_server.route = route
    first = await start_runtime(tmp_path, dingtalk, scripted_server)
    try:
        await dingtalk.push(dingtalk.message("busy"))
        await until(lambda: scripted_server.chat_requests(), what="the first turn at the model")
        queued = await dingtalk.push(dingtalk.message("queued"))
        await until(lambda: frame_acked(dingtalk, queued), what="DingTalk has the ACK")
        pending = state_values(tmp_path).get("pending", [])
        assert [e["content"] for e in pending] == ["queued"]
    finally:
        await first.stop()  # the app ends (or dies) before the queued message's turn
        gate.set()
    second = await start_runtime(tmp_path, dingtalk, scripted_server)
    try:
        await until(lambda: "echo: queued" in dingtalk.texts(), what="the queued message answered")
        await until(lambda: not state_values(tmp_path).get("pending"), what="the journal emptied")
        await second.agent.idle()
        await dingtalk.push(dingtalk.message("after"))
        await until(lambda: "echo: after" in dingtalk.texts(), what="a later message")
        await second.agent.idle()
    finally:
        await second.stop()
    texts = [user_text(r.body) for r in scripted_server.chat_requests()]
    assert texts.count("queued") == 1 and texts.count("busy") == 1
    assert dingtalk.texts().count("echo: queued") == 1
    answered = dingtalk.sent()[dingtalk.texts().index("echo: queued")]
    assert answered.via == "webhook", "the saved session webhook survived the restart"


async def test_malformed_frames_and_messages_are_skipped_and_the_stream_goes_on(
    dingtalk: DingTalkServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, dingtalk, scripted_server)
    try:
        await dingtalk.send_raw("this is not json")
        await dingtalk.send_raw("[1, 2]")
        await dingtalk.push("{broken json")
        no_sender = dingtalk.message("who am I")
        del no_sender["senderStaffId"], no_sender["senderId"]
        skipped = await dingtalk.push(no_sender)
        await dingtalk.push({"msgtype": "text"})
        await until(lambda: frame_acked(dingtalk, skipped), what="the unreadable message ACKed")
        await dingtalk.push(dingtalk.message("still here"))
        await until(lambda: dingtalk.texts() == ["echo: still here"], what="the answer")
        await runtime.agent.idle()
        assert runtime.channels.status("dingtalk").ok and dingtalk.connections == 1
    finally:
        await runtime.stop()
    assert [user_text(r.body) for r in scripted_server.chat_requests()] == ["still here"]


async def test_wrong_credentials_make_the_channel_unavailable_with_a_clear_reason(
    dingtalk: DingTalkServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = await start_runtime(
        tmp_path, dingtalk, scripted_server, connected=False, clientSecret="wrong-secret-123"
    )
    try:
        await until(
            lambda: runtime.channels.status("dingtalk").state == "unavailable", what="refused"
        )
        status = runtime.channels.status("dingtalk")
    finally:
        await runtime.stop()
    assert "did not accept the Client ID and secret" in status.reason
    assert "clientId or clientSecret is invalid" in status.reason
    assert "wrong-secret-123" not in status.reason + status.hint
