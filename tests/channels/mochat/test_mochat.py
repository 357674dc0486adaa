"""The Mochat channel end to end: python-socketio and aiohttp against the local Mochat server, a
real agent runtime (``build_runtime``) and the scripted model server through LiteLLM."""

from __future__ import annotations

import json
from pathlib import Path

from desktop.core.agent.approval import ApprovalPolicy
from tests.channels.mochat.conftest import (
    PANEL,
    SESSION,
    echo,
    start_runtime,
    state_file,
    until,
    user_text,
)
from tests.channels.mochat.server import AGENT, GROUP, TOKEN, MochatServer
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


async def test_a_session_message_is_answered_with_the_exact_payload(
    mochat: MochatServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    answer = "**Hi** there, `x<y` works.\n\n- one\n- two"
    scripted_server.push(Reply(answer))
    runtime = await start_runtime(tmp_path, mochat, scripted_server)
    try:
        assert runtime.channels.status("mochat").account == AGENT
        assert mochat.connects == [{"token": TOKEN}]
        subscribe = mochat.calls_of("com.claw.im.subscribeSessions")
        assert subscribe == [{"sessionIds": [SESSION], "cursors": {}, "limit": 100}]
        assert mochat.calls_of("com.claw.im.subscribePanels") == [{"panelIds": [PANEL]}]
        await mochat.say(SESSION, "hello _there_")
        await until(lambda: mochat.sent, what="the answer")
        await runtime.agent.idle()
        # The agent's answer comes back as event 2 (as on a real server): it moves the
        # cursor but is not answered.
        await until(lambda: state_file(tmp_path).get("cursors") == {SESSION: 2}, what="cursor")
    finally:
        await runtime.stop()
    assert len(mochat.sent) == 1, "the agent's own echoed message is not answered"
    sent = mochat.sent[0]
    assert sent.path == "sessions/send"
    assert sent.body == {"sessionId": SESSION, "content": answer}, "Markdown as it is"
    requests = scripted_server.chat_requests()
    assert [user_text(r.body) for r in requests] == ["hello _there_"]


async def test_a_panel_message_is_answered_in_its_group_as_a_reply(
    mochat: MochatServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, mochat, scripted_server)
    try:
        asked = await mochat.say_in_panel(PANEL, "what time is it", author="bob")
        await until(lambda: mochat.texts(PANEL), what="the answer")
    finally:
        await runtime.stop()
    assert mochat.sent[0].path == "groups/panels/send"
    assert mochat.sent[0].body == {
        "panelId": PANEL,
        "groupId": GROUP,
        "content": "echo: what time is it",
        "replyTo": asked,
    }


async def test_a_long_answer_is_split_under_the_limit(
    mochat: MochatServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    from desktop.core.channels.base import split_message
    from desktop.core.channels.mochat.channel import MAX_CHARS

    paragraphs = [(f"Part {i}. " + "lorem ipsum dolor sit amet " * 28).strip() for i in range(10)]
    reply = "\n\n".join(paragraphs)
    assert MAX_CHARS < len(reply) <= 2 * MAX_CHARS
    scripted_server.push(Reply(reply, chunk=500))
    runtime = await start_runtime(tmp_path, mochat, scripted_server)
    try:
        await mochat.say(SESSION, "write a lot")
        expected = split_message(reply, MAX_CHARS)
        await until(
            lambda: [s.content for s in mochat.sent] == expected, what="every piece", timeout=90
        )  # includes a model turn (slow when loaded)
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    pieces = [s.content for s in mochat.sent]
    assert all(len(p) <= MAX_CHARS for p in pieces)
    assert pieces[0].endswith("amet") and pieces[1].startswith("Part "), "cut between paragraphs"
    assert "\n\n".join(pieces) == reply, "nothing lost or changed"


async def test_a_sender_outside_allow_from_is_ignored(
    mochat: MochatServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, mochat, scripted_server, allowFrom=["alice"])
    try:
        await mochat.say(SESSION, "from mallory", author="mallory")
        await mochat.say(SESSION, "from alice", author="alice")
        await until(lambda: mochat.texts(SESSION), what="alice answered")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert mochat.texts(SESSION) == ["echo: from alice"]
    assert [user_text(r.body) for r in scripted_server.chat_requests()] == ["from alice"]


async def test_an_approval_is_answered_in_the_chat(
    mochat: MochatServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """In "ask" mode the question is posted into the session; alice's "allow" answers it (it
    is not a message for the agent) and the command runs."""
    command = {"command": "echo approved-by-alice"}
    scripted_server.push(Reply(tool_calls=[("exec", json.dumps(command))]), Reply("Done."))
    runtime = await start_runtime(tmp_path, mochat, scripted_server, approval=ApprovalPolicy())
    try:
        await mochat.say(SESSION, "run the echo")
        await until(lambda: any("exec" in t for t in mochat.texts(SESSION)), what="the question")
        assert "allow" in mochat.texts(SESSION)[-1]
        await mochat.say(SESSION, "allow")
        await until(lambda: mochat.texts(SESSION)[-1:] == ["Done."], what="the final answer")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    requests = scripted_server.chat_requests()
    assert len(requests) == 2, "the keyword reply did not start another turn"
    tools = [m for m in requests[1].body["messages"] if m["role"] == "tool"]
    assert "approved-by-alice" in json.dumps(tools)
