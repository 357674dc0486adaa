"""Nothing answered twice: an app restart with a post received but not yet saved, and a post
the server delivers again."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from desktop.core.runtime import Runtime
from tests.channels.mattermost.conftest import journal, start_runtime, until, user_text
from tests.channels.mattermost.server import DM, MattermostServer
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

KEY = f"mattermost:{DM}"


def _dispatches(runtime: Runtime) -> int:
    return sum(1 for t in runtime.agent.background if f"dispatch:{KEY}" in t.get_name())


async def test_a_post_received_but_not_saved_is_answered_once_after_a_restart(
    mattermost: MattermostServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """The WebSocket delivered "queued" (the server will not send it again) but the app ends
    before the agent saved it: the journal hands it over after the restart, once."""
    gate = threading.Event()

    def route(body: dict[str, Any]) -> Reply:
        text = user_text(body)
        if text == "busy":
            gate.wait(30)
        return Reply(f"echo: {text}")

    scripted_server.route = route
    first = await start_runtime(tmp_path, mattermost, scripted_server)
    try:
        await mattermost.say(DM, "busy")
        await until(lambda: scripted_server.chat_requests(), what="the first turn at the model")
        await mattermost.say(DM, "queued")
        await until(lambda: _dispatches(first) == 2, what="the queued post waits its turn")
        assert [e["content"] for e in journal(tmp_path)] == ["queued"], "kept until saved"
    finally:
        await first.stop()  # the app ends (or dies) before the queued post's turn
        gate.set()
    second = await start_runtime(tmp_path, mattermost, scripted_server)
    try:
        await until(lambda: "echo: queued" in mattermost.texts(DM), what="queued answered")
        await until(lambda: journal(tmp_path) == [], what="the journal emptied")
        (post,) = [p for p in mattermost.posts if p["message"] == "queued"]
        await mattermost.broadcast_again(post)  # delivered once more after the restart
        await mattermost.say(DM, "last")
        await until(lambda: "echo: last" in mattermost.texts(DM), what="the last answer")
        await second.agent.idle()
    finally:
        await second.stop()
    asked = [user_text(r.body) for r in scripted_server.chat_requests()]
    assert asked.count("queued") == 1 and asked.count("busy") == 1
    assert mattermost.texts(DM).count("echo: queued") == 1


async def test_a_post_delivered_twice_is_answered_once(
    mattermost: MattermostServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.push(Reply("one answer"), Reply("the next"))
    runtime = await start_runtime(tmp_path, mattermost, scripted_server)
    try:
        post_id = await mattermost.say(DM, "once")
        await until(lambda: mattermost.texts(DM), what="the answer")
        await runtime.agent.idle()
        (post,) = [p for p in mattermost.posts if p["id"] == post_id]
        await mattermost.broadcast_again(post)  # as after a server-side replay
        await mattermost.say(DM, "next")
        await until(lambda: len(mattermost.texts(DM)) == 2, what="the next answer")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert mattermost.texts(DM) == ["one answer", "the next"]
    assert [user_text(r.body) for r in scripted_server.chat_requests()] == ["once", "next"]
