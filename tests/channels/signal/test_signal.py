"""The Signal channel against a local signal-cli daemon and a real agent runtime: connect,
receive, who may talk, reply format, splitting, files, approvals, typing, groups."""

from __future__ import annotations

import json
from pathlib import Path

from desktop.core.agent.approval import ApprovalPolicy
from desktop.core.bus.events import OutboundMessage
from desktop.core.channels.signal.channel import SignalChannel
from desktop.core.channels.signal.markup import LIMIT
from tests.channels.signal.conftest import echo, start_runtime, until, user_text
from tests.channels.signal.daemon import (
    ACCOUNT,
    ALICE,
    ALICE_UUID,
    GROUP,
    STRANGER,
    SignalDaemon,
)
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

PNG = b"\x89PNG\r\n\x1a\n-not-really-an-image"


async def test_a_direct_message_is_answered_in_nanobots_session(
    daemon: SignalDaemon, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, daemon, scripted_server)
    try:
        status = runtime.channels.status("signal")
        assert status.ok and status.account == ACCOUNT
        daemon.say("hello there")
        await until(lambda: daemon.texts() == ["echo: hello there"], what="the answer")
        await runtime.agent.idle()
        assert runtime.sessions.path_for(f"signal:{ALICE}").exists()
        channel = runtime.channels.channel("signal")
        assert isinstance(channel, SignalChannel)
        assert await channel.check() == (
            f"Connected to signal-cli 0.13.18 at http://127.0.0.1:{daemon.port} as {ACCOUNT}"
        )
    finally:
        await runtime.stop()
    (send,) = daemon.sent()
    assert send["recipient"] == [ALICE] and "groupId" not in send
    assert daemon.calls("updateConfiguration") == [{"typingIndicators": True}]
    typing = daemon.calls("sendTyping")
    assert typing[0] == {"recipient": [ALICE]} and typing[-1] == {"recipient": [ALICE],
                                                                   "stop": True}  # fmt: skip


async def test_a_stranger_is_not_heard_and_the_uuid_alone_is_enough(
    daemon: SignalDaemon, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(
        tmp_path,
        daemon,
        scripted_server,
        dm={"policy": "allowlist", "allowFrom": [ALICE_UUID.upper()]},
    )
    try:
        daemon.say("let me in", sender=STRANGER, uuid=None)
        daemon.say("it is me", uuid=ALICE_UUID)
        await until(lambda: "echo: it is me" in daemon.texts(), what="Alice answered")
        await until(lambda: len(daemon.texts()) == 2, what="the stranger's pairing code")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    # The stranger's direct message got a pairing code (as in nanobot 0.3.5), nothing more.
    code = next(t for t in daemon.texts() if t != "echo: it is me")
    assert "Your pairing code: " in code
    assert [user_text(r.body) for r in scripted_server.chat_requests()] == ["it is me"]
    assert not runtime.sessions.path_for(f"signal:{STRANGER}").exists()


async def test_markdown_becomes_text_styles_and_a_long_answer_is_split_in_order(
    daemon: SignalDaemon, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    paragraphs = [f"Paragraph {n}: " + "word " * 2000 for n in range(20)]
    long_text = "\n\n".join(paragraphs)
    assert len(long_text) > 2 * LIMIT
    scripted_server.push(Reply("# Plan\n**bold** and `code`, see [docs](https://x.org)"),
                         Reply(long_text, chunk=50_000))  # fmt: skip
    runtime = await start_runtime(tmp_path, daemon, scripted_server)
    try:
        daemon.say("format")
        await until(lambda: len(daemon.texts()) == 1, what="the formatted answer")
        daemon.say("long")
        await until(lambda: len(daemon.texts()) > 1, what="the long answer")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    first = daemon.sent()[0]
    assert first["message"] == "Plan\nbold and code, see docs (https://x.org)"
    assert first["textStyle"] == ["0:4:BOLD", "5:4:BOLD", "14:4:MONOSPACE"]
    parts = daemon.texts()[1:]
    assert len(parts) >= 3 and all(len(p) <= LIMIT for p in parts)
    joined = " ".join(parts).split()
    assert joined == long_text.split(), "every word, in order"


async def test_a_file_goes_out_and_an_attachment_comes_in(
    daemon: SignalDaemon, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.push(Reply("got it"))
    runtime = await start_runtime(tmp_path, daemon, scripted_server)
    try:
        daemon.say("see these", attachments={"photo.png": PNG, "notes.txt": b"ping-file"})
        await until(lambda: daemon.texts() == ["got it"], what="answered")
        report = tmp_path / "report.txt"
        report.write_text("the report")
        await runtime.bus.publish_outbound(
            OutboundMessage("signal", ALICE, "here it is", media=[str(report)])
        )
        await until(lambda: len(daemon.sent()) == 2, what="the file sent")
    finally:
        await runtime.stop()
    media = tmp_path / "ws" / "media"
    assert (media / "signal_photo.png").read_bytes() == PNG
    assert (media / "signal_notes.txt").read_bytes() == b"ping-file"
    asked = json.dumps(scripted_server.chat_requests()[0].body["messages"][-1])
    assert f"[file: {media / 'signal_notes.txt'}]" in asked and "see these" in asked
    sent = daemon.sent()[1]
    assert sent["message"] == "here it is" and sent["attachments"] == [str(report.resolve())]
    assert daemon.files[str(report.resolve())] == b"the report"


async def test_an_approval_is_answered_by_reply_word(
    daemon: SignalDaemon, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = await start_runtime(tmp_path, daemon, scripted_server, approval=ApprovalPolicy())
    command = {"command": "echo approved-by-alice"}
    scripted_server.push(Reply(tool_calls=[("exec", json.dumps(command))]), Reply("Done."))
    try:
        daemon.say("run the echo")
        await until(lambda: any("exec" in t for t in daemon.texts()), what="the question")
        assert 'Reply "allow"' in daemon.texts()[-1]
        daemon.say("allow")
        await until(lambda: daemon.texts()[-1:] == ["Done."], what="the final answer")
    finally:
        await runtime.stop()
    requests = scripted_server.chat_requests()
    assert len(requests) == 2, "the reply word did not start another turn"
    tools = [m for m in requests[1].body["messages"] if m["role"] == "tool"]
    assert "approved-by-alice" in json.dumps(tools)


async def test_a_denial_by_reply_word_stops_the_command(
    daemon: SignalDaemon, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = await start_runtime(tmp_path, daemon, scripted_server, approval=ApprovalPolicy())
    command = {"command": "echo never-run"}
    scripted_server.push(Reply(tool_calls=[("exec", json.dumps(command))]), Reply("Ok, not."))
    try:
        daemon.say("run it")
        await until(lambda: any("exec" in t for t in daemon.texts()), what="the question")
        daemon.say("deny")
        await until(lambda: daemon.texts()[-1:] == ["Ok, not."], what="the final answer")
    finally:
        await runtime.stop()
    tools = [m for m in scripted_server.chat_requests()[1].body["messages"] if m["role"] == "tool"]
    assert "never-run" not in json.dumps([t["content"] for t in tools])


async def test_groups_follow_nanobots_mention_and_allowlist_rules(
    daemon: SignalDaemon, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    group = {"enabled": True, "policy": "allowlist", "allowFrom": [GROUP], "requireMention": True}
    runtime = await start_runtime(tmp_path, daemon, scripted_server, group=group)
    try:
        daemon.say("just chatting", group=GROUP, sender=STRANGER, uuid=None, name="Bob")
        daemon.say("hi all", group="T3RoZXJHcm91cA==", name="Alice")  # a group not allowed
        mention = {"number": ACCOUNT, "start": 0, "length": 1}
        daemon.say("\ufffc what now?", group=GROUP, sender=STRANGER, uuid=None, name="Bob",
                   mentions=[mention])  # fmt: skip
        await until(lambda: len(daemon.texts()) == 1, what="the mention answered")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    (asked,) = [user_text(r.body) for r in scripted_server.chat_requests()]
    assert asked == ("[Recent group messages for context:]\nBob: just chatting\n---\n"
                     "[Bob]: what now?")  # fmt: skip
    assert daemon.sent()[0]["groupId"] == GROUP and "recipient" not in daemon.sent()[0]
    assert runtime.sessions.path_for(f"signal:{GROUP}").exists()
