"""The Socket Mode connection's life: Slack's request to move to a new connection, and a stop
while the close handshake is slow. Each ends with none of slack-sdk's tasks left running."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from desktop.core.channels.slack.channel import SlackChannel
from tests.channels.slack.conftest import DM, echo, start_runtime, until
from tests.channels.slack.slack_server import SlackServer
from tests.fakes.openai_server import ScriptedOpenAIServer


def sdk_tasks() -> list[str]:
    """slack-sdk's tasks still running on this loop, by coroutine name."""
    names = []
    for task in asyncio.all_tasks():
        code = getattr(task.get_coro(), "cr_code", None)
        if not task.done() and code is not None and "slack_sdk" in code.co_filename:
            names.append(code.co_qualname)
    return sorted(names)


async def test_slacks_disconnect_request_moves_the_run_to_a_new_connection(
    slack: SlackServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, slack, scripted_server)
    states: list[str] = []
    try:
        states_of = runtime.channels.status
        slack.put_disconnect()
        while slack.connections < 2:  # the status, sampled meanwhile, stays connected
            states.append(states_of("slack").state)
            await asyncio.sleep(0.01)
        slack.put_message(DM, "after the move")
        await until(lambda: "echo: after the move" in slack.texts(DM), what="the answer")
        assert states_of("slack").ok
        await runtime.agent.idle()
    finally:
        await runtime.stop()
        left = sdk_tasks()
    assert left == [], "every task of both connections has ended when the stop returns"
    assert set(states) <= {"connected"}
    assert len(slack.calls_of("apps.connections.open")) == 2
    assert len(slack.calls_of("auth.test")) == 1, "moved within the run, not by a restart"


@pytest.mark.parametrize("delay", [0.5, 30.0], ids=["slow", "no-answer"])
async def test_a_stop_during_a_slow_close_handshake_still_ends_every_task(
    slack: SlackServer,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    delay: float,
) -> None:
    monkeypatch.setattr(SlackChannel, "close_timeout", 1.0)
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, slack, scripted_server)
    try:
        slack.put_message(DM, "hello")  # a read position to save at the stop
        await until(lambda: slack.texts(DM), what="the answer")
        await runtime.agent.idle()
    except BaseException:
        await runtime.stop()
        raise
    slack.close_delay = delay  # the stop cancels the run while it waits for the answer
    started = time.monotonic()
    try:
        await runtime.stop()
    finally:
        left = sdk_tasks()
    took = time.monotonic() - started
    assert left == [], "the processor, monitor and receiver ended before the stop returned"
    assert took < 1.0 + 3.0, "a close Slack never answers is given up after close_timeout"
    assert runtime.channels.status("slack").state == "stopped"
