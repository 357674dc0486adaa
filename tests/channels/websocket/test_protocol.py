"""The WebSocket channel end to end with a ``websockets`` client: nanobot 0.3.5's protocol
(ready, multiplexed chats, streamed deltas then ``stream_end``), its token rules and
``allowFrom``, against a real agent runtime and the scripted model through LiteLLM."""

from __future__ import annotations

import json
from pathlib import Path

import aiohttp
import pytest
from websockets.exceptions import InvalidStatus

from desktop.core.agent.approval import ApprovalPolicy
from tests.channels.websocket.conftest import Client, echo, start_runtime, url_of, user_text
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.waiting import until


async def test_a_message_is_answered_with_streamed_deltas_then_stream_end(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    answer = "Hello from the scripted model, in pieces."
    scripted_server.push(Reply(answer, chunk=5))
    runtime = await start_runtime(tmp_path, scripted_server, websocketRequiresToken=False)
    try:
        client = await Client.open(f"{url_of(runtime)}/?client_id=alice")
        chat = client.default_chat
        await client.send(type="message", chat_id=chat, content="hi there", turn_id="t-1")
        await until(lambda: client.of("turn_end", chat), what="the turn's end")
        await runtime.agent.idle()
        await client.close()
    finally:
        await runtime.stop()
    kinds = [e["event"] for e in client.events if e.get("chat_id") == chat]
    assert kinds[0] == "ready" and kinds[1] == "message_accepted"
    deltas = client.of("delta", chat)
    assert len(deltas) > 1, "streamed in several deltas"
    assert "".join(d["text"] for d in deltas) == answer
    end = client.of("stream_end", chat)
    assert len(end) == 1 and end[0]["stream_id"] == deltas[0]["stream_id"]
    assert "text" not in end[0], "the streamed text was the answer: not sent twice"
    assert kinds.index("stream_end") > max(i for i, k in enumerate(kinds) if k == "delta")
    assert kinds.index("turn_end") > kinds.index("stream_end")
    assert not client.of("message", chat), "no second copy of the answer"
    turn_ids = {e["turn_id"] for e in [*deltas, *end, *client.of("turn_end", chat)]}
    assert turn_ids == {"t-1"}, "events name the turn by the client's own turn_id"
    assert [user_text(r.body) for r in scripted_server.chat_requests()] == ["hi there"]
    sessions = runtime.agent.sessions.list_sessions()
    assert [s["key"] for s in sessions] == [f"websocket:{chat}"], "0.3.5's session key"


async def test_chats_are_multiplexed_on_one_connection(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Two chats on one socket: each answer comes back in its own chat, each chat is its own
    session (``websocket:<chat_id>``)."""
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, scripted_server, websocketRequiresToken=False)
    try:
        client = await Client.open(f"{url_of(runtime)}/?client_id=alice")
        await client.send(type="new_chat")
        await client.send(type="new_chat")
        await until(lambda: len(client.of("attached")) == 2, what="two new chats")
        first, second = (e["chat_id"] for e in client.of("attached"))
        await client.send(type="message", chat_id=first, content="one")
        await until(lambda: client.of("turn_end", first), what="the first answer")
        await client.send(type="message", chat_id=second, content="two")
        await until(lambda: client.of("turn_end", second), what="the second answer")
        await client.send(type="attach", chat_id="not a valid id!")
        await until(lambda: client.of("error"), what="the refusal")
        await runtime.agent.idle()
        await client.close()
    finally:
        await runtime.stop()
    for chat, word in ((first, "one"), (second, "two")):
        streamed = "".join(d["text"] for d in client.of("delta", chat))
        assert streamed == f"echo: {word}", chat
    assert client.of("error")[0]["detail"] == "invalid chat_id"
    keys = sorted(s["key"] for s in runtime.agent.sessions.list_sessions())
    assert keys == sorted([f"websocket:{first}", f"websocket:{second}"])


async def test_without_streaming_the_answer_is_one_message(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """``streaming: false``: no deltas, the answer as one ``message`` event (plain text in)."""
    scripted_server.push(Reply("the whole answer", chunk=3))
    runtime = await start_runtime(
        tmp_path, scripted_server, websocketRequiresToken=False, streaming=False
    )
    try:
        client = await Client.open(f"{url_of(runtime)}/?client_id=alice")
        await client.ws.send("plain text goes to the default chat")
        await until(lambda: client.of("turn_end"), what="the answer")
        await client.close()
    finally:
        await runtime.stop()
    chat = client.default_chat
    assert not client.of("delta")
    assert [m["text"] for m in client.of("message", chat)] == ["the whole answer"]
    assert user_text(scripted_server.chat_requests()[0].body) == (
        "plain text goes to the default chat"
    )


async def test_a_client_not_in_allow_from_is_refused_at_the_handshake(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = await start_runtime(
        tmp_path, scripted_server, websocketRequiresToken=False, allowFrom=["alice"]
    )
    try:
        with pytest.raises(InvalidStatus) as refused:
            await Client.open(f"{url_of(runtime)}/?client_id=mallory")
        assert refused.value.response.status_code == 403
        client = await Client.open(f"{url_of(runtime)}/?client_id=alice")
        await client.close()
    finally:
        await runtime.stop()
    assert not scripted_server.chat_requests(), "nothing reached the agent"


async def test_an_approval_is_asked_in_the_chat_and_answered_with_a_word(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    command = {"command": "echo approved-over-websocket"}
    scripted_server.push(Reply(tool_calls=[("exec", json.dumps(command))]), Reply("Done."))
    runtime = await start_runtime(
        tmp_path, scripted_server, approval=ApprovalPolicy(), websocketRequiresToken=False
    )
    try:
        client = await Client.open(f"{url_of(runtime)}/?client_id=alice")
        chat = client.default_chat
        await client.send(type="message", chat_id=chat, content="run the echo")
        await until(
            lambda: any("exec" in m["text"] for m in client.of("message", chat)),
            what="the question",
        )
        assert "allow" in client.of("message", chat)[-1]["text"]
        await client.send(type="message", chat_id=chat, content="allow")
        await until(lambda: client.of("turn_end", chat), what="the end of the turn")
        await runtime.agent.idle()
        await client.close()
    finally:
        await runtime.stop()
    requests = scripted_server.chat_requests()
    assert len(requests) == 2, "the reply word did not start another turn"
    tools = [m for m in requests[1].body["messages"] if m["role"] == "tool"]
    assert "approved-over-websocket" in json.dumps(tools)


async def test_a_browser_that_went_away_finds_its_chat_in_the_sessions_api(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """The client closes before the answer is done: the answer is saved all the same, and a
    new connection lists the chat (``/api/sessions``) and reads it (``webui-thread``)."""
    scripted_server.push(Reply("answered while you were away", chunk=4, delay=0.02))
    runtime = await start_runtime(tmp_path, scripted_server)
    http = url_of(runtime, "http")
    try:
        async with aiohttp.ClientSession() as web:
            async with web.get(f"{http}/webui/bootstrap") as response:
                boot = await response.json()
            client = await Client.open(f"{url_of(runtime)}/?token={boot['token']}")
            chat = client.default_chat
            await client.send(type="message", chat_id=chat, content="are you there?")
            await until(lambda: client.of("delta"), what="the answer starts")
            await client.close()
            await runtime.agent.idle()
            api = {"Authorization": f"Bearer {boot['api_token']}"}
            async with web.get(f"{http}/api/sessions", headers=api) as response:
                listing = await response.json()
            key = f"websocket:{chat}"
            async with web.get(
                f"{http}/api/sessions/websocket%3A{chat}/webui-thread", headers=api
            ) as response:
                thread = await response.json()
            async with web.get(
                f"{http}/api/sessions/websocket%3Anope/webui-thread", headers=api
            ) as response:
                missing = response.status
    finally:
        await runtime.stop()
    assert [(s["key"], s["preview"]) for s in listing["sessions"]] == [(key, "are you there?")]
    assert thread["sessionKey"] == key
    assert [(m["role"], m["content"]) for m in thread["messages"]] == [
        ("user", "are you there?"),
        ("assistant", "answered while you were away"),
    ]
    assert missing == 404


async def test_text_before_a_tool_call_is_streamed_once_and_the_answer_after_it(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """The agent writes, calls a tool, then answers: the first text streams and its stream
    ends (the progress note that repeats it is not sent again), the answer streams anew."""
    scripted_server.push(
        Reply("Let me look.", tool_calls=[("list_dir", json.dumps({"path": "."}))]),
        Reply("Nothing much here."),
    )
    runtime = await start_runtime(tmp_path, scripted_server, websocketRequiresToken=False)
    try:
        client = await Client.open(f"{url_of(runtime)}/?client_id=alice")
        chat = client.default_chat
        await client.send(type="message", chat_id=chat, content="what is here?", turn_id="t-9")
        await until(lambda: client.of("turn_end", chat), what="the answer")
        await runtime.agent.idle()
        await client.close()
    finally:
        await runtime.stop()
    ends = client.of("stream_end", chat)
    streams = [
        "".join(d["text"] for d in client.of("delta", chat) if d["stream_id"] == e["stream_id"])
        for e in ends
    ]
    assert streams == ["Let me look.", "Nothing much here."]
    assert not [m for m in client.of("message", chat) if m.get("kind") != "tool_hint"]
    assert len(client.of("turn_end", chat)) == 1
