"""The Slack channel end to end: slack-sdk's Socket Mode client and AsyncWebClient against the
local Slack (Web API + Socket Mode WebSocket), a real agent runtime (``build_runtime``) and the
scripted model server through LiteLLM."""

from __future__ import annotations

import asyncio
from pathlib import Path

from desktop.core.channels.slack.mrkdwn import pieces as pieces_of
from desktop.core.channels.slack.mrkdwn import to_mrkdwn
from tests.channels.slack.conftest import (
    CHANNEL,
    DM,
    echo,
    session_lines,
    start_runtime,
    until,
    user_text,
)
from tests.channels.slack.slack_server import BOT_USER, TEXT_LIMIT, SlackServer
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


async def test_a_direct_message_is_answered_in_mrkdwn_with_reactions_and_acknowledged(
    slack: SlackServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.push(
        Reply("**Hi** there, `x<y` works & [docs](https://example.com/a?b=1).\n\n- one\n- two")
    )
    runtime = await start_runtime(tmp_path, slack, scripted_server)
    try:
        assert runtime.channels.status("slack").account == "@nanobot (Test Team)"
        incoming = slack.put_message(DM, "hello &lt;there&gt;")
        await until(lambda: slack.posted(DM), what="the answer")
        await until(lambda: slack.calls_of("reactions.add")[1:], what="the done reaction")
    finally:
        await runtime.stop()
    answer = slack.posted(DM)[0]
    assert answer["text"] == (
        "*Hi* there, `x&lt;y` works &amp; <https://example.com/a?b=1|docs>.\n\n• one\n• two"
    )
    assert answer.get("thread_ts") is None, "a DM is answered in the conversation, not a thread"
    assert user_text(scripted_server.chat_requests()[0].body) == "hello <there>"
    react, done = slack.calls_of("reactions.add")
    (unreact,) = slack.calls_of("reactions.remove")
    where = {"channel": DM, "timestamp": incoming["ts"]}
    assert react.params == {**where, "name": "eyes"} and unreact.params == react.params
    assert done.params == {**where, "name": "white_check_mark"}
    assert react.at < slack.calls_of("chat.postMessage")[0].at, "working shows before the answer"
    assert slack.pending == [] and len(slack.acks) == 1, "the envelope was acknowledged"
    assert [m["role"] for m in session_lines(runtime, f"slack:{DM}")] == ["user", "assistant"]
    methods = [c.method for c in slack.calls]
    assert methods[:2] == ["auth.test", "apps.connections.open"]


async def test_channel_messages_follow_the_policy_thread_and_are_split_under_the_limit(
    slack: SlackServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    # (no space at a paragraph's end: markdown drops it, and the check below joins the lines)
    paragraphs = [f"Part {i}. " + " ".join(["lorem ipsum dolor sit amet"] * 30) for i in range(10)]
    code = "```python\n" + "\n".join(f"print({i} < {i + 1})" for i in range(40)) + "\n```"
    long = "\n\n".join([*paragraphs[:5], code, *paragraphs[5:]])
    assert 8000 < len(long) < 12000
    scripted_server.route = lambda body: (
        Reply(long, chunk=500) if user_text(body) == "write a lot" else echo()(body)
    )
    runtime = await start_runtime(tmp_path, slack, scripted_server)
    try:
        slack.put_message(CHANNEL, "nobody asked the bot")  # groupPolicy "mention"
        text = f"<@{BOT_USER}> write a lot"
        root = slack.put_message(CHANNEL, text)  # Slack sends both events for a mention
        slack.put_message(CHANNEL, text, kind="app_mention", ts=root["ts"])
        expected = pieces_of(to_mrkdwn(long))
        await until(
            lambda: [p["text"] for p in slack.posted(CHANNEL)] == expected,
            what="every piece",
            timeout=90,
        )
        later = slack.put_message(CHANNEL, f"<@{BOT_USER}> and more", thread_ts=root["ts"])
        await until(lambda: "echo: and more" in slack.texts(CHANNEL), what="the thread answer")
        await until(lambda: len(slack.acks) == 4, what="every envelope acknowledged")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    posted = slack.posted(CHANNEL)
    pieces = [p["text"] for p in posted[:-1]]
    assert all(p["thread_ts"] == root["ts"] for p in posted), "answered in the message's thread"
    assert len(pieces) == 3 and all(len(p) <= 4000 for p in pieces)
    assert sum(p.count("```") for p in pieces) == 2, "the code block is not cut"
    assert any("```\nprint(0 &lt; 1)" in p and "print(39 &lt; 40)\n```" in p for p in pieces)
    assert "".join(pieces).replace("\n", "") == long.replace("```python", "```").replace(
        "<", "&lt;"
    ).replace("\n", "")
    asked = [user_text(r.body) for r in scripted_server.chat_requests()]
    assert asked == ["write a lot", "and more"], "unmentioned ignored, the mention handled once"
    key = f"slack:{CHANNEL}:{root['ts']}"
    assert [m["role"] for m in session_lines(runtime, key)] == ["user", "assistant"] * 2
    assert later["thread_ts"] == root["ts"] and TEXT_LIMIT > 4000


async def test_a_sender_outside_allow_from_is_ignored_and_a_malformed_event_skipped(
    slack: SlackServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, slack, scripted_server, allowFrom=["UALICE01"])
    try:
        slack.put_message(DM, "let me in", user="UMALLORY")
        slack.put_event({"type": "message", "channel": DM, "text": "no user, no ts"})
        slack.put_event(["not", "an", "event"])  # type: ignore[arg-type]
        slack.put_message(DM, "from alice")
        await until(lambda: len(slack.posted(DM)) == 2, what="alice's answer, mallory's code")
        await until(lambda: len(slack.acks) == 4, what="every envelope acknowledged")
        assert runtime.channels.status("slack").ok, "the channel goes on"
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    codes = [t for t in slack.texts(DM) if "Your pairing code:" in t]  # DM pairing: mallory
    assert len(codes) == 1 and [t for t in slack.texts(DM) if t not in codes] == [
        "echo: from alice"
    ]
    assert [user_text(r.body) for r in scripted_server.chat_requests()] == ["from alice"]
    assert slack.connections == 1


async def test_a_dropped_connection_is_resumed_and_a_redelivered_message_answered_once(
    slack: SlackServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, slack, scripted_server)
    try:
        slack.drop_on_ack = 1  # the acknowledgement is lost with the connection
        slack.put_message(DM, "first")
        await until(lambda: slack.connections == 2, what="connected again")
        await until(lambda: runtime.channels.status("slack").ok, what="status connected again")
        await until(lambda: slack.pending == [], what="the redelivery acknowledged")
        slack.put_message(DM, "second")
        await until(lambda: "echo: second" in slack.texts(DM), what="the next message answered")
        await runtime.agent.idle()
        await asyncio.sleep(0.5)  # nothing more arrives
    finally:
        await runtime.stop()
    assert slack.texts(DM) == ["echo: first", "echo: second"]
    assert [user_text(r.body) for r in scripted_server.chat_requests()] == ["first", "second"]
    assert len(slack.calls_of("apps.connections.open")) == 2
