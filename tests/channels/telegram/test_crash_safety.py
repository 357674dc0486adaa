"""Nothing lost across a crash: a message Telegram has confirmed (the offset moved past it)
but the agent has not yet saved stays in the channel's journal and is answered once after a
restart — against the local Bot API server and a real agent runtime."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

from desktop.core.runtime import Runtime
from tests.channels.telegram.bot_api_server import BotApiServer
from tests.channels.telegram.conftest import CHAT, start_runtime, until, user_text
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

KEY = f"telegram:{CHAT}"


def _dispatches(runtime: Runtime) -> int:
    return sum(1 for t in runtime.agent.background if f"dispatch:{KEY}" in t.get_name())


def _journal(tmp_path: Path) -> list[dict[str, Any]]:
    state = json.loads((tmp_path / "nanobot" / "channel-state" / "telegram.json").read_text())
    return list(state["values"].get("pending", []))


async def test_a_confirmed_but_unsaved_message_is_answered_once_after_a_restart(
    api: BotApiServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    gate = threading.Event()

    def route(body: dict[str, Any]) -> Reply:
        text = user_text(body)
        if text == "busy":
            gate.wait(30)
        return Reply(f"echo: {text}")

    scripted_server.route = route
    first = await start_runtime(tmp_path, api, scripted_server)
    try:
        api.put_message(CHAT, "busy")
        await until(lambda: scripted_server.chat_requests(), what="the first turn at the model")
        queued = api.put_message(CHAT, "queued")
        await until(
            lambda: any(
                (c.params.get("offset") or 0) > queued["update_id"]
                for c in api.calls_of("getUpdates")
            ),
            what="Telegram confirmed the queued message",
        )
        await until(lambda: _dispatches(first) == 2, what="the queued message waits its turn")
        assert [e["content"] for e in _journal(tmp_path)] == ["queued"]
    finally:
        await first.stop()  # the app ends (or dies) before the queued message's turn
        gate.set()
    second = await start_runtime(tmp_path, api, scripted_server)
    try:
        await until(lambda: "echo: queued" in api.texts(CHAT), what="the queued message answered")
        await until(lambda: _journal(tmp_path) == [], what="the journal emptied")
        await asyncio.sleep(1.0)  # nothing more arrives
        await second.agent.idle()
    finally:
        await second.stop()
    texts = [user_text(r.body) for r in scripted_server.chat_requests()]
    assert texts.count("queued") == 1 and texts.count("busy") == 1
    assert api.texts(CHAT).count("echo: queued") == 1


async def test_a_channel_restarted_while_a_message_waits_does_not_hand_it_over_twice(
    api: BotApiServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """New settings restart the channel object in the same process: the message still with
    the agent is not taken from the journal again."""
    gate = threading.Event()

    def route(body: dict[str, Any]) -> Reply:
        text = user_text(body)
        if text == "busy":
            gate.wait(30)
        return Reply(f"echo: {text}")

    scripted_server.route = route
    runtime = await start_runtime(tmp_path, api, scripted_server)
    try:
        api.put_message(CHAT, "busy")
        await until(lambda: scripted_server.chat_requests(), what="the first turn at the model")
        api.put_message(CHAT, "queued")
        await until(lambda: _dispatches(runtime) == 2, what="the queued message waits its turn")
        await runtime.channels.start_channel("telegram")  # as Settings → Apply does
        await until(lambda: runtime.channels.status("telegram").ok, what="connected again")
        await asyncio.sleep(0.5)  # the test: a redelivery after the restart would come now
        gate.set()
        await until(lambda: "echo: queued" in api.texts(CHAT), what="the queued message answered")
        await until(lambda: _journal(tmp_path) == [], what="the journal emptied")
        await asyncio.sleep(1.0)  # the test: nothing more arrives
        await runtime.agent.idle()
    finally:
        gate.set()
        await runtime.stop()
    texts = [user_text(r.body) for r in scripted_server.chat_requests()]
    assert texts.count("queued") == 1, texts
    assert api.texts(CHAT).count("echo: queued") == 1
