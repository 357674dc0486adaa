"""Approvals answered by a reply keyword, and files in and out — against the local platform."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from desktop.core.agent.approval import ApprovalPolicy
from desktop.core.bus.events import OutboundMessage
from tests.channels.qq.conftest import USER, start_runtime, until, user_text
from tests.channels.qq.qq_server import QQServer
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


async def test_an_approval_is_answered_in_the_chat(
    qq: QQServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = await start_runtime(tmp_path, scripted_server, approval=ApprovalPolicy())
    try:
        command = {"command": "echo approved-by-keyword"}
        scripted_server.push(Reply(tool_calls=[("exec", json.dumps(command))]), Reply("Done."))
        asked = await qq.c2c(USER, "run the echo")
        await until(lambda: any("exec" in t for t in qq.texts(USER)), what="the question")
        question = next(b for b in qq.sent() if "exec" in (b.get("content") or ""))
        assert question["msg_id"] == asked and '"allow"' in question["content"]
        await qq.c2c(USER, "allow")
        await until(lambda: qq.texts(USER)[-1:] == ["Done."], what="the final answer")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    requests = scripted_server.chat_requests()
    assert len(requests) == 2, "the keyword reply started another turn"
    tools = [m for m in requests[1].body["messages"] if m["role"] == "tool"]
    assert "approved-by-keyword" in json.dumps(tools)


async def test_a_received_image_is_saved_and_an_image_is_sent_as_rich_media(
    qq: QQServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    qq.media["photo.png"] = PNG
    scripted_server.route = lambda body: Reply("nice picture")
    runtime = await start_runtime(tmp_path, scripted_server, qq={"mediaDir": str(tmp_path / "m")})
    try:
        attachment = {"url": f"http://{qq.host}/media/photo.png", "filename": "photo.png",
                      "content_type": "image/png", "size": len(PNG)}  # fmt: skip
        msg_id = await qq.c2c(USER, "look", attachments=[attachment])
        await until(lambda: "nice picture" in qq.texts(USER), what="the answer")
        image = tmp_path / "out.png"
        image.write_bytes(PNG)
        out = OutboundMessage(
            "qq", USER, "here", media=[str(image)], metadata={"request_id": msg_id}
        )
        assert await runtime.channels.deliver(out)
    finally:
        await runtime.stop()
    saved = tmp_path / "m" / "photo.png"
    assert saved.read_bytes() == PNG
    text = user_text(scripted_server.chat_requests()[0].body)
    assert text.startswith("look") and f"saved: {saved}" in text
    [upload] = qq.sent("/files")
    assert upload["file_type"] == 1 and base64.b64decode(upload["file_data"]) == PNG
    assert upload["srv_send_msg"] is False
    media, caption = [b for b in qq.sent() if b.get("msg_type") == 7 or b.get("content") == "here"]
    assert media["media"] == {"file_info": qq.file_infos[0]}
    assert (media["msg_id"], media["msg_seq"]) == (msg_id, 2)
    assert (caption["msg_id"], caption["msg_seq"]) == (msg_id, 3)
