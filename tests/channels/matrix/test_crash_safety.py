"""Nothing lost across a crash: a message the sync token has moved past but the agent has not
yet saved stays in the channel's journal and is answered once after a restart (real Synapse,
real runtime)."""

from __future__ import annotations

import json
import threading
from typing import Any

from desktop.core.assembly import channel_state_dir
from desktop.core.runtime import Runtime
from tests.channels.matrix.conftest import MatrixWorld, echo_route, until
from tests.fakes.openai_server import Reply


def _dispatches(runtime: Runtime, room: str) -> int:
    key = f"dispatch:matrix:{room}"
    return sum(1 for t in runtime.agent.background if key in t.get_name())


def _user_texts(world: MatrixWorld) -> list[str]:
    texts = []
    for request in world.model.chat_requests():
        users = [m for m in request.body["messages"] if m["role"] == "user"]
        texts.append(json.dumps(users[-1]["content"]) if users else "")
    return texts


async def test_a_synced_but_unsaved_message_is_answered_once_after_a_restart(
    world: MatrixWorld,
) -> None:
    gate = threading.Event()

    def route(body: dict[str, Any]) -> Reply | None:
        users = [m for m in body.get("messages", []) if m.get("role") == "user"]
        if users and "ping-busy" in json.dumps(users[-1].get("content")):
            gate.wait(30)
        return echo_route(body)

    world.model.route = route
    runtime = await world.start()
    room = await world.dm()
    path = channel_state_dir(runtime.config) / "matrix.json"
    try:
        await world.alice.say(room, "ping-busy")
        await until(lambda: bool(world.model.chat_requests()), what="the first turn at the model")
        await world.alice.say(room, "ping-queued")
        await until(lambda: _dispatches(runtime, room) == 2, what="the second message queued")
        pending = json.loads(path.read_text())["values"].get("pending", [])
        assert [p["content"] for p in pending] == ["ping-queued"]
    finally:
        await world.stop(runtime)  # the app ends (or dies) before the queued message's turn
        gate.set()
    await world.start()
    await until(lambda: "pong-queued" in world.answers(room), 60, "the queued message answered")
    await world.alice.say(room, "ping-after")
    await until(lambda: "pong-after" in world.answers(room), 60, "the barrier answered")
    assert [a for a in world.answers(room) if a.startswith("pong-")] == [
        "pong-queued",
        "pong-after",
    ]
    texts = _user_texts(world)
    assert sum("ping-queued" in t for t in texts) == 1
    assert sum("ping-busy" in t for t in texts) == 1
    assert json.loads(path.read_text())["values"]["pending"] == []
