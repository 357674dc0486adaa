"""The WeCom channel end to end: the real bot SDK against the local WeCom server, a real agent
runtime (``build_runtime``) and the scripted model server through LiteLLM."""

from __future__ import annotations

import json
from pathlib import Path

from desktop.core.agent.approval import ApprovalPolicy
from tests.channels.wecom.conftest import echo, start_runtime, until, user_text
from tests.channels.wecom.server import BOT_ID, SECRET, WecomServer
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


async def test_a_direct_message_is_answered_as_a_markdown_stream_reply(
    wecom: WecomServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    answer = "**Hi** there, `x<y` works.\n\n- one\n- two"
    scripted_server.push(Reply(answer))
    runtime = await start_runtime(tmp_path, wecom, scripted_server)
    try:
        assert runtime.channels.status("wecom").account == BOT_ID
        assert wecom.subscribes == [{"bot_id": BOT_ID, "secret": SECRET}]
        asked = await wecom.say("hello _there_")
        await until(lambda: wecom.replies(), what="the answer")
        await runtime.agent.idle()
        sessions = [s["key"] for s in runtime.sessions.list_sessions()]
    finally:
        await runtime.stop()
    [reply] = wecom.replies()
    assert reply.req_id == asked, "a reply to the message it answers"
    assert reply.body["msgtype"] == "stream"
    stream = reply.body["stream"]
    assert stream["content"] == answer and stream["finish"] is True, "Markdown as it is"
    assert [user_text(r.body) for r in scripted_server.chat_requests()] == ["hello _there_"]
    assert "wecom:alice" in sessions, "nanobot's session key: the sender in a direct chat"


async def test_a_group_message_is_answered_in_the_group(
    wecom: WecomServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, wecom, scripted_server)
    try:
        asked = await wecom.say("what time is it", user="bob", chat="grp-42")
        await until(lambda: wecom.texts(), what="the answer")
        await runtime.agent.idle()
        sessions = [s["key"] for s in runtime.sessions.list_sessions()]
    finally:
        await runtime.stop()
    assert [(s.req_id, s.text) for s in wecom.replies()] == [(asked, "echo: what time is it")]
    assert "wecom:grp-42" in sessions


async def test_a_long_answer_is_split_under_the_limit(
    wecom: WecomServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    from desktop.core.channels.base import split_message
    from desktop.core.channels.wecom.channel import MAX_CHARS

    paragraphs = [(f"第{i}部分。" + "长文本内容测试 " * 120).strip() for i in range(12)]
    reply = "\n\n".join(paragraphs)
    assert MAX_CHARS < len(reply) <= 2 * MAX_CHARS
    scripted_server.push(Reply(reply, chunk=2000))
    runtime = await start_runtime(tmp_path, wecom, scripted_server)
    try:
        await wecom.say("write a lot")
        expected = split_message(reply, MAX_CHARS)
        await until(lambda: wecom.texts() == expected, what="every piece", timeout=90)
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    pieces = wecom.texts()
    assert all(len(p.encode()) <= 20480 for p in pieces), "under WeCom's byte limit"
    assert "\n\n".join(pieces) == reply, "nothing lost or changed"
    ids = [s.body["stream"]["id"] for s in wecom.replies()]
    assert len(set(ids)) == len(ids) == 2, "each piece its own stream"


async def test_a_sender_outside_allow_from_is_ignored(
    wecom: WecomServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Mallory writes in a direct (single) chat and gets no pairing code either: nanobot
    0.3.5's WeCom channel never offers one (its messages are not marked as DMs)."""
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, wecom, scripted_server, allowFrom=["alice"])
    try:
        await wecom.say("from mallory", user="mallory")
        await wecom.say("from alice", user="alice")
        await until(lambda: wecom.texts(), what="alice answered")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert wecom.texts() == ["echo: from alice"]
    assert [user_text(r.body) for r in scripted_server.chat_requests()] == ["from alice"]


async def test_an_approval_is_answered_in_the_chat(
    wecom: WecomServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """In "ask" mode the question comes into the chat; alice's "allow" answers it (it is not
    a message for the agent) and the command runs."""
    command = {"command": "echo approved-by-alice"}
    scripted_server.push(Reply(tool_calls=[("exec", json.dumps(command))]), Reply("Done."))
    runtime = await start_runtime(tmp_path, wecom, scripted_server, approval=ApprovalPolicy())
    try:
        await wecom.say("run the echo")
        await until(lambda: any("exec" in t for t in wecom.texts()), what="the question")
        assert "allow" in wecom.texts()[-1]
        await wecom.say("allow")
        await until(lambda: wecom.texts()[-1:] == ["Done."], what="the final answer")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    requests = scripted_server.chat_requests()
    assert len(requests) == 2, "the reply word did not start another turn"
    tools = [m for m in requests[1].body["messages"] if m["role"] == "tool"]
    assert "approved-by-alice" in json.dumps(tools)
