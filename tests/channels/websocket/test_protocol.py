"""The WebSocket channel end to end with a ``websockets`` client: nanobot 0.3.5's protocol
(ready, multiplexed chats, streamed deltas then ``stream_end``), its token rules and
``allowFrom``, against a real agent runtime and the scripted model through LiteLLM."""

from __future__ import annotations

import json
from pathlib import Path

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
    assert [user_text(r.body) for r in scripted_server.chat_requests()] == ["hi there"]
    sessions = runtime.agent.sessions.list_sessions()
    assert [s["key"] for s in sessions] == [f"websocket:{chat}"], "0.3.5's session key"
