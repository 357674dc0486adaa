"""The NapCat channel against a local OneBot v11 server and a real agent runtime: connect,
receive, who may talk, reply format, splitting, files, approvals, groups."""

from __future__ import annotations

import json
from pathlib import Path

from desktop.core.agent.approval import ApprovalPolicy
from desktop.core.bus.events import OutboundMessage
from desktop.core.channels.napcat.channel import LIMIT, NapcatChannel
from tests.channels.napcat.conftest import PRIVATE, echo, start_runtime, until, user_text
from tests.channels.napcat.onebot_server import ALICE, BOT, GROUP, STRANGER, OneBotServer
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

PNG = b"\x89PNG\r\n\x1a\n-not-really-an-image"


async def test_a_private_message_is_answered_in_nanobots_session(
    napcat: OneBotServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, napcat, scripted_server)
    try:
        assert runtime.channels.status("napcat").account == f"nanobot ({BOT})"
        await napcat.say("hello there")
        await until(lambda: napcat.texts() == ["echo: hello there"], what="the answer")
        await runtime.agent.idle()
        assert runtime.sessions.path_for(f"napcat:{PRIVATE}").exists()
        channel = runtime.channels.channel("napcat")
        assert isinstance(channel, NapcatChannel)
        assert await channel.check() == f"Connected to NapCat as nanobot ({BOT})"
    finally:
        await runtime.stop()
    (send,) = napcat.sent()
    assert send["action"] == "send_private_msg" and send["params"]["user_id"] == ALICE
    assert isinstance(send["echo"], str) and send["echo"]


async def test_a_stranger_is_not_heard(
    napcat: OneBotServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, napcat, scripted_server)
    try:
        await napcat.say("let me in", user=STRANGER, nickname="Mallory")
        await napcat.say("it is me")
        await until(lambda: napcat.texts() == ["echo: it is me"], what="Alice answered")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert [user_text(r.body) for r in scripted_server.chat_requests()] == ["it is me"]
    assert not runtime.sessions.path_for(f"napcat:private:{STRANGER}").exists()


async def test_markdown_becomes_plain_text_and_a_long_answer_is_split_in_order(
    napcat: OneBotServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    long_text = "\n\n".join(f"Paragraph {n}: " + "word " * 300 for n in range(12))
    assert len(long_text) > 3 * LIMIT
    scripted_server.push(Reply("# Plan\n- **bold** and `code`, [docs](https://x.org)"),
                         Reply(long_text, chunk=5000))  # fmt: skip
    runtime = await start_runtime(tmp_path, napcat, scripted_server)
    try:
        await napcat.say("format")
        await until(lambda: len(napcat.texts()) == 1, what="the formatted answer")
        await napcat.say("long")
        await until(lambda: len(napcat.texts()) > 3, what="the long answer")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert napcat.texts()[0] == "Plan\n• bold and code, docs (https://x.org)"
    parts = napcat.texts()[1:]
    assert all(len(p) <= LIMIT for p in parts)
    assert " ".join(parts).split() == long_text.split(), "every word, in order"


async def test_an_image_comes_in_and_files_go_out(
    napcat: OneBotServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    napcat.images["abc.png"] = PNG
    scripted_server.push(Reply("nice"))
    runtime = await start_runtime(tmp_path, napcat, scripted_server)
    try:
        url = f"http://127.0.0.1:{napcat.port}/files/abc.png"
        await napcat.say([{"type": "text", "data": {"text": "look"}},
                          {"type": "image", "data": {"file": "abc.png", "url": url,
                                                     "file_size": str(len(PNG))}}])  # fmt: skip
        await until(lambda: napcat.texts() == ["nice"], what="answered")
        (chart := tmp_path / "chart.png").write_bytes(PNG)
        (notes := tmp_path / "notes.txt").write_text("ping-file")
        await runtime.bus.publish_outbound(
            OutboundMessage("napcat", PRIVATE, "here", media=[str(chart), str(notes)])
        )
        await until(lambda: len(napcat.sent()) == 3, what="the files and the text")
    finally:
        await runtime.stop()
    saved = tmp_path / "ws" / "media" / "napcat_abc.png"
    assert saved.read_bytes() == PNG
    asked = json.dumps(scripted_server.chat_requests()[0].body["messages"][-1])
    assert "look" in asked and "data:image/png;base64," in asked
    files, text = napcat.sent()[1:]
    image, document = files["params"]["message"]
    assert image["type"] == "image" and image["data"]["file"].startswith("base64://")
    assert document == {"type": "file", "data": {"file": document["data"]["file"],
                                                 "name": "notes.txt"}}  # fmt: skip
    assert text["params"]["message"] == [{"type": "text", "data": {"text": "here"}}]


async def test_an_image_link_to_another_local_address_is_not_followed(
    napcat: OneBotServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Only NapCat's own host (here 127.0.0.1) or a public address is fetched: the same file
    under the name "localhost" stands for any other local service."""
    napcat.images["x.png"] = PNG
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, napcat, scripted_server)
    try:
        url = f"http://localhost:{napcat.port}/files/x.png"
        await napcat.say([{"type": "text", "data": {"text": "see"}},
                          {"type": "image", "data": {"file": "x.png", "url": url}}])  # fmt: skip
        await until(lambda: napcat.texts() == ["echo: see"], what="answered")
    finally:
        await runtime.stop()
    assert not (tmp_path / "ws" / "media" / "napcat_x.png").exists()
    assert "image" not in json.dumps(scripted_server.chat_requests()[0].body["messages"][-1])


async def test_an_approval_is_answered_by_reply_word(
    napcat: OneBotServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = await start_runtime(tmp_path, napcat, scripted_server, approval=ApprovalPolicy())
    command = {"command": "echo approved-by-alice"}
    scripted_server.push(Reply(tool_calls=[("exec", json.dumps(command))]), Reply("Done."))
    try:
        await napcat.say("run the echo")
        await until(lambda: any("exec" in t for t in napcat.texts()), what="the question")
        assert 'Reply "allow"' in napcat.texts()[-1]
        await napcat.say("allow")
        await until(lambda: napcat.texts()[-1:] == ["Done."], what="the final answer")
    finally:
        await runtime.stop()
    requests = scripted_server.chat_requests()
    assert len(requests) == 2, "the reply word did not start another turn"
    tools = [m for m in requests[1].body["messages"] if m["role"] == "tool"]
    assert "approved-by-alice" in json.dumps(tools)


async def test_an_open_group_override_answers_everything_there(
    napcat: OneBotServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    overrides = {str(GROUP): "open"}
    runtime = await start_runtime(
        tmp_path, napcat, scripted_server, allowFrom=["*"], groupPolicyOverrides=overrides
    )
    try:
        await napcat.say("anyone?", group=4242, user=STRANGER, nickname="Bob")  # "mention"
        await napcat.say("hello group", group=GROUP, user=STRANGER, nickname="Bob")
        await until(lambda: napcat.texts() == ["echo: Bob: hello group"], what="answered")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert len(scripted_server.chat_requests()) == 1


async def test_groups_answer_mentions_and_replies_to_the_account(
    napcat: OneBotServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, napcat, scripted_server, allowFrom=["*"])
    try:
        await napcat.say("just chatting", group=GROUP, user=STRANGER, nickname="Bob")
        at = {"type": "at", "data": {"qq": str(BOT)}}
        await napcat.say([at, {"type": "text", "data": {"text": " what now?"}}], group=GROUP,
                         user=STRANGER, nickname="Bob")  # fmt: skip
        await until(lambda: len(napcat.texts()) == 1, what="the mention answered")
        reply = {"type": "reply", "data": {"id": str(napcat.sent()[0]["_data"]["message_id"])}}
        await napcat.say([reply, {"type": "text", "data": {"text": "and then?"}}], group=GROUP,
                         user=STRANGER, nickname="Bob")  # fmt: skip
        await until(lambda: len(napcat.texts()) == 2, what="the reply answered")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    asked = [user_text(r.body) for r in scripted_server.chat_requests()]
    assert asked == ["Bob: what now?", "Bob: and then?"]
    send = napcat.sent()[0]
    assert send["action"] == "send_group_msg" and send["params"]["group_id"] == GROUP
    assert runtime.sessions.path_for(f"napcat:group:{GROUP}").exists()
