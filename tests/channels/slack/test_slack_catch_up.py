"""Catch-up after downtime: messages sent while the app was stopped (or the connection down
longer than Slack's redelivery) are fetched with ``conversations.history`` /
``conversations.replies`` after connecting and answered once, in order, through the same
path as live events."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from desktop.core.channels.slack import catchup
from desktop.core.runtime import Runtime
from tests.channels.slack import conftest
from tests.channels.slack.conftest import (
    CHANNEL,
    DM,
    echo,
    until,
    user_text,
)
from tests.channels.slack.slack_server import BOT_USER, SlackServer
from tests.fakes.openai_server import ScriptedOpenAIServer


async def start_runtime(
    tmp_path: Path, slack: SlackServer, model: ScriptedOpenAIServer, **slack_options: Any
) -> Runtime:
    """The runtime of :func:`conftest.start_runtime`, reconnecting after 0.2 s (the app's
    first wait is 1 s): these tests drop the connection to see the catch-up that follows,
    not the wait before it."""
    runtime = await conftest.start_runtime(tmp_path, slack, model, **slack_options)
    runtime.channels.backoff = (0.2, 0.4, 0.8)
    return runtime


def asked(model: ScriptedOpenAIServer) -> list[str]:
    return [user_text(r.body) for r in model.chat_requests()]


def positions(tmp_path: Path) -> dict[str, list[object]]:
    path = tmp_path / "nanobot" / "channel-state" / "slack.json"
    return dict(json.loads(path.read_text())["values"].get("positions", {}))


async def test_messages_sent_while_stopped_are_answered_once_in_order_after_a_restart(
    slack: SlackServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, slack, scripted_server)
    try:
        slack.put_message(DM, "before")
        root = slack.put_message(CHANNEL, f"<@{BOT_USER}> start a thread")
        await until(lambda: len(slack.texts()) == 2, what="the answers before the stop")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert DM in positions(tmp_path) and f"{CHANNEL}:{root['ts']}" in positions(tmp_path)
    # while the app is stopped (no events reach it):
    for text in ("missed one", "missed two", "missed three"):
        slack.put_history(DM, text)
    slack.put_history(CHANNEL, "chatter, not for the bot")
    slack.put_history(CHANNEL, f"<@{BOT_USER}> a new question")
    slack.put_history(CHANNEL, "in the thread, unmentioned", thread_ts=root["ts"])
    slack.put_history(CHANNEL, f"<@{BOT_USER}> and in the thread", thread_ts=root["ts"])
    slack.put_history(DM, "the bot itself", user=BOT_USER, bot_id="B0001")
    slack.put_history(DM, "another bot", user="UOTHERBOT", bot_id="B0002")

    runtime = await start_runtime(tmp_path, slack, scripted_server)
    try:
        await until(lambda: len(slack.texts()) == 7, what="the missed messages answered")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    runtime = await start_runtime(tmp_path, slack, scripted_server)  # and once more
    try:
        await until(lambda: len(slack.calls_of("conversations.history")) == 4, what="again")
        await asyncio.sleep(0.5)  # the test: nothing more arrives (a duplicate would, now)
        await runtime.agent.idle()
    finally:
        await runtime.stop()

    assert slack.texts(DM) == [
        "echo: before",
        "echo: missed one",
        "echo: missed two",
        "echo: missed three",
    ], "answered once each, oldest first, across two restarts"
    assert sorted(asked(scripted_server)) == sorted(
        [
            "before",
            "start a thread",
            "missed one",
            "missed two",
            "missed three",
            "a new question",
            "and in the thread",
        ]
    ), "each once (conversations run side by side; the DM's order is checked above)"
    threads = {p["text"]: p.get("thread_ts") for p in slack.posted(CHANNEL)}
    assert threads["echo: and in the thread"] == root["ts"], "the thread answered in the thread"
    call = slack.calls_of("conversations.history")[0]
    assert call.params["inclusive"] in ("0", "false") and call.params["limit"] == "100"
    replies = slack.calls_of("conversations.replies")
    assert replies and replies[0].params["ts"] == root["ts"]


async def test_a_message_delivered_live_and_by_catch_up_is_answered_once(
    slack: SlackServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, slack, scripted_server)
    try:
        slack.put_message(DM, "first")
        await until(lambda: slack.texts(DM), what="the first answer")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    # sent while stopped: in the history, and Slack still retries its event on the next
    # connection
    for index in range(3):
        slack.put_message(DM, f"both ways {index}")
    runtime = await start_runtime(tmp_path, slack, scripted_server)
    try:
        await until(lambda: len(slack.texts(DM)) == 4, what="the answers")
        await until(lambda: slack.pending == [], what="the redelivered events acknowledged")
        await until(lambda: slack.calls_of("conversations.history"), what="the catch-up")
        await asyncio.sleep(0.5)  # nothing more arrives
        await runtime.agent.idle()
        slack.drop_on_ack = 0
        await slack.drop()  # a reconnect catches up again: all of it handled before
        await until(lambda: len(slack.calls_of("conversations.history")) == 2, what="again")
        await asyncio.sleep(0.5)  # the test: nothing more arrives (a duplicate would, now)
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert slack.texts(DM) == ["echo: first", *(f"echo: both ways {i}" for i in range(3))]
    assert asked(scripted_server) == ["first", *(f"both ways {i}" for i in range(3))]


async def test_the_first_start_does_not_replay_old_history(
    slack: SlackServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    for text in ("old one", "old two"):
        slack.put_history(DM, text)
    slack.put_history(CHANNEL, f"<@{BOT_USER}> old question")
    runtime = await start_runtime(tmp_path, slack, scripted_server)
    try:
        await asyncio.sleep(0.5)  # the test: nothing more arrives (a duplicate would, now)
        assert slack.posted() == [], "nothing from before the first start"
        slack.put_message(DM, "new")
        await until(lambda: slack.texts(DM), what="the live answer")
        await runtime.agent.idle()
        await slack.drop()  # a reconnect catches up from "new", not from the beginning
        await until(lambda: slack.calls_of("conversations.history"), what="the catch-up")
        await until(lambda: runtime.channels.status("slack").ok, what="connected again")
        await asyncio.sleep(0.5)  # the test: nothing more arrives (a duplicate would, now)
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert slack.texts() == ["echo: new"]
    assert asked(scripted_server) == ["new"]
    (call,) = slack.calls_of("conversations.history")
    assert call.params["channel"] == DM, "a conversation never seen is not fetched"


async def test_a_caught_up_sender_outside_allow_from_is_ignored(
    slack: SlackServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, slack, scripted_server, allowFrom=["UALICE01"])
    try:
        slack.put_message(DM, "hello")
        await until(lambda: slack.texts(DM), what="the first answer")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    slack.put_history(DM, "let me in", user="UMALLORY")
    slack.put_history(DM, "from alice while away")
    runtime = await start_runtime(tmp_path, slack, scripted_server, allowFrom=["UALICE01"])
    try:
        await until(lambda: len(slack.texts(DM)) == 3, what="alice answered, mallory a code")
        await asyncio.sleep(0.5)  # the test: nothing more arrives (a duplicate would, now)
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    codes = [t for t in slack.texts(DM) if "Your pairing code:" in t]  # DM pairing: mallory
    assert len(codes) == 1
    assert [t for t in slack.texts(DM) if t not in codes] == [
        "echo: hello",
        "echo: from alice while away",
    ]
    assert asked(scripted_server) == ["hello", "from alice while away"]


@pytest.mark.parametrize("failure", ["500", "ratelimited"])
async def test_a_failing_history_call_is_logged_and_the_channel_goes_on(
    slack: SlackServer,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    failure: str,
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, slack, scripted_server)
    try:
        slack.put_message(DM, "hello")
        await until(lambda: slack.texts(DM), what="the first answer")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    slack.put_history(DM, "missed")
    slack.fail_history = failure
    caplog.set_level(logging.WARNING, logger="desktop.core.channels.slack.channel")
    runtime = await start_runtime(tmp_path, slack, scripted_server)
    try:
        await until(
            lambda: any("catching up on" in r.getMessage() for r in caplog.records),
            what="the failure logged",
        )
        slack.put_message(DM, "live")
        await until(lambda: "echo: live" in slack.texts(DM), what="live messages answered")
        assert runtime.channels.status("slack").ok
        assert "echo: missed" not in slack.texts(DM)
        slack.fail_history = None  # Slack is well again: the next connect catches up
        await slack.drop()
        await until(lambda: "echo: missed" in slack.texts(DM), what="the missed message")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert slack.texts(DM) == ["echo: hello", "echo: live", "echo: missed"]
    assert slack.calls_of("conversations.history")


async def test_catch_up_follows_the_cursor_and_stops_at_the_cap(
    slack: SlackServer,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(catchup, "PAGE", 2)
    monkeypatch.setattr(catchup, "MESSAGES", 5)
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, slack, scripted_server)
    try:
        slack.put_message(DM, "hello")
        await until(lambda: slack.texts(DM), what="the first answer")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    for index in range(8):
        slack.put_history(DM, f"missed {index}")
    runtime = await start_runtime(tmp_path, slack, scripted_server)
    try:
        await until(lambda: len(slack.texts(DM)) == 6, what="the newest five answered")
        await asyncio.sleep(0.5)  # the test: nothing more arrives (a duplicate would, now)
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert slack.texts(DM) == ["echo: hello", *(f"echo: missed {i}" for i in range(3, 8))]
    calls = slack.calls_of("conversations.history")
    assert [c.params.get("cursor") for c in calls] == [None, "next:2", "next:4"]
    assert all(c.params["limit"] == "2" for c in calls)


def test_positions_are_bounded_recent_and_never_move_back() -> None:
    now = 1_800_000_000.0
    positions = catchup.Positions({"D1": ["5.000001", now - 10], "bad": "x", "C9": ["x", 1]})
    assert positions.due(now=now) == [("D1", "5.000001")]
    assert not positions.note("D1", "4.000000", now=now), "never moves back"
    positions.note("COLD", "1.000000", now=now - catchup.RECENT - 1)
    assert "COLD" in positions and ("COLD", "1.000000") not in positions.due(now=now)
    for index in range(catchup.CONVERSATIONS + 5):
        positions.note(f"C{index}", f"{index + 10}.000000", now=now + index)
    assert len(positions.to_json()) == catchup.CONVERSATIONS
    assert "D1" not in positions and "COLD" not in positions, "the least recent dropped"
    positions.hold("C54", "3.000000")
    positions.note("C54", "99.000000", now=now + 100)
    assert positions.due(now=now + 100)[0] == ("C54", "3.000000"), "an unfinished catch-up"
    again = catchup.Positions(positions.to_json())
    assert again.due(now=now + 100)[0] == ("C54", "3.000000"), "kept across a restart"
    again.release("C54")
    assert again.due(now=now + 100)[0] == ("C54", "99.000000")


async def test_a_missed_question_and_a_missed_reply_in_its_thread_are_both_answered(
    slack: SlackServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, slack, scripted_server)
    try:
        slack.put_message(CHANNEL, "chatter, not for the bot")  # the channel is seen
        await until(lambda: slack.acks, what="the event acknowledged")
    finally:
        await runtime.stop()
    ts = slack.next_ts()
    slack.put_history(CHANNEL, f"<@{BOT_USER}> question", ts=ts, thread_ts=ts, reply_count=1)
    slack.put_history(CHANNEL, f"<@{BOT_USER}> follow-up", thread_ts=ts)
    runtime = await start_runtime(tmp_path, slack, scripted_server)
    try:
        await until(lambda: len(slack.texts(CHANNEL)) == 2, what="both answered")
        await asyncio.sleep(0.5)  # the test: nothing more arrives (a duplicate would, now)
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert [(p["text"], p.get("thread_ts")) for p in slack.posted(CHANNEL)] == [
        ("echo: question", ts),
        ("echo: follow-up", ts),
    ]
