"""Nothing lost, nothing answered twice: a message the channel took but the agent had not
saved when the app stopped is answered once after the restart; a reconnecting browser finds
its chat again."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from desktop.core.runtime import Runtime
from tests.channels.websocket.conftest import Client, start_runtime, url_of, user_text
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.waiting import until


def _pending(tmp_path: Path) -> list[str]:
    path = tmp_path / "nanobot" / "channel-state" / "websocket.json"
    if not path.exists():
        return []
    values = json.loads(path.read_text())["values"]
    return [entry["content"] for entry in values.get("pending", [])]


def _answers(runtime: Runtime, chat: str) -> list[str]:
    session = runtime.agent.sessions.get_or_create(f"websocket:{chat}")
    return [str(m["content"]) for m in session.messages if m.get("role") == "assistant"]


async def test_a_message_taken_but_not_saved_is_answered_once_after_a_restart(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    gate = threading.Event()

    def route(body: dict[str, Any]) -> Reply:
        text = user_text(body)
        if text == "busy":
            gate.wait(30)
        return Reply(f"echo: {text}")

    scripted_server.route = route
    first = await start_runtime(tmp_path, scripted_server, websocketRequiresToken=False)
    try:
        client = await Client.open(f"{url_of(first)}/?client_id=alice")
        chat = client.default_chat
        await client.send(type="message", chat_id=chat, content="busy")
        await until(lambda: scripted_server.chat_requests(), what="the first turn at the model")
        await client.send(type="message", chat_id=chat, content="queued")
        await until(lambda: _pending(tmp_path) == ["queued"], what="kept until the agent saves it")
    finally:
        await first.stop()  # the app ends before the queued message's turn
        gate.set()
    await client.close()
    second = await start_runtime(tmp_path, scripted_server)
    try:
        await until(lambda: _pending(tmp_path) == [], what="the journal handed it over")
        await until(lambda: "echo: queued" in _answers(second, chat), what="queued answered")
        again = await Client.open(f"{url_of(second)}/?client_id=alice")
        await again.send(type="attach", chat_id=chat)
        await again.send(type="message", chat_id=chat, content="last", turn_id="t-last")
        await until(  # a barrier: a duplicate answer would come before it
            lambda: any(e["turn_id"] == "t-last" for e in again.of("turn_end", chat)),
            what="the barrier's answer",
        )
        await second.agent.idle()
        await again.close()
    finally:
        await second.stop()
    asked = [user_text(r.body) for r in scripted_server.chat_requests()]
    assert asked.count("queued") == 1 and asked.count("last") == 1, asked
    assert _answers(second, chat).count("echo: queued") == 1
    last = [d["text"] for d in again.of("delta", chat) if d["turn_id"] == "t-last"]
    assert "".join(last) == "echo: last"
    assert not [d for d in again.of("delta", chat) if d["turn_id"] != "t-last"], "no duplicate"
