"""The WhatsApp channel end to end: the ``websockets`` client against the local bridge, a real
agent runtime (``build_runtime``) and the scripted model server through LiteLLM."""

from __future__ import annotations

from pathlib import Path

from tests.channels.whatsapp.bridge_server import ALICE, ALICE_LID, GROUP, TOKEN, BridgeServer
from tests.channels.whatsapp.conftest import (
    echo,
    session_lines,
    start_runtime,
    until,
    user_text,
)
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


async def test_a_message_is_answered_in_whatsapp_markup_with_typing(
    bridge: BridgeServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.push(
        Reply("# Plan\n**Hi** there, *really*: `x**2`\n\n* one\n* ~~two~~\n\n"
              "See [the docs](https://example.org/docs).\n\n```python\nprint(**kw)\n```")
    )  # fmt: skip
    runtime = await start_runtime(tmp_path, bridge, scripted_server)
    try:
        assert bridge.auths == [{"type": "auth", "token": TOKEN}], "the token comes first"
        await bridge.say("hello *there*")
        await until(lambda: bridge.texts(), what="the answer")
        await until(lambda: bridge.presences()[-1:] == ["paused"], what="typing ends")
    finally:
        await runtime.stop()
    (answer,) = bridge.sent()
    assert answer == {
        "type": "send",
        "to": ALICE,
        "text": "*Plan*\n*Hi* there, _really_: `x**2`\n\n- one\n- ~two~\n\n"
        "See the docs (https://example.org/docs).\n\n```\nprint(**kw)\n```",
        "msg_id": answer["msg_id"],
    }
    order = [c["type"] if c["type"] != "presence" else c["presence"] for c in bridge.delivered]
    assert order[0] == "composing" and order.index("send") > 0, "typing shows before the answer"
    assert user_text(scripted_server.chat_requests()[0].body) == "hello *there*"
    lines = session_lines(runtime, f"whatsapp:{ALICE}")
    assert [m["role"] for m in lines] == ["user", "assistant"]


async def test_a_long_answer_is_split_under_the_limit_with_code_blocks_kept_whole(
    bridge: BridgeServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    paragraphs = [f"Part {i}. " + "lorem ipsum dolor sit amet " * 30 for i in range(10)]
    code = "```\n" + "\n".join(f"print({i} * {i})" for i in range(200)) + "\n```"
    reply = "\n\n".join([*paragraphs[:5], code, *paragraphs[5:]])
    assert 9000 <= len(reply) <= 12000
    scripted_server.push(Reply(reply, chunk=500))
    expected = " ".join(reply.replace("```", " ").split())

    def joined() -> str:
        return " ".join(" ".join(bridge.texts()).replace("```", " ").split())

    runtime = await start_runtime(tmp_path, bridge, scripted_server)
    try:
        await bridge.say("write a lot")
        await until(
            lambda: joined() == expected, what="every piece", timeout=90
        )  # includes a model turn (slow when loaded)
        await runtime.agent.idle()
        texts = bridge.texts()
    finally:
        await runtime.stop()
    assert joined() == expected, "nothing lost or doubled"
    assert len(texts) >= 3 and all(len(t) >= 500 for t in texts), [len(t) for t in texts]
    assert all(len(t) <= 4096 for t in texts)
    assert all(t.count("```") % 2 == 0 for t in texts), "every piece closes its code block"


async def test_senders_outside_allow_from_are_ignored_and_a_lid_sender_matches_its_phone(
    bridge: BridgeServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, bridge, scripted_server, allowFrom=["4915112345678"])
    stranger = "4930999999@s.whatsapp.net"
    try:
        await bridge.say("let me in", chat=stranger)
        await bridge.say("via lid", chat=ALICE_LID, pn=ALICE)
        await until(lambda: bridge.texts(ALICE_LID) == ["echo: via lid"], what="alice answered")
        await until(lambda: bridge.texts(stranger), what="the stranger's pairing code")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    [code] = bridge.texts(stranger)  # DM pairing: a code, nothing from the agent
    assert "Your pairing code:" in code
    assert [user_text(r.body) for r in scripted_server.chat_requests()] == ["via lid"]
    lines = session_lines(runtime, f"whatsapp:{ALICE_LID}")
    assert lines[0]["content"].endswith("via lid")


async def test_groups_under_the_mention_policy_answer_only_mentions(
    bridge: BridgeServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, bridge, scripted_server, groupPolicy="mention")
    try:
        await bridge.say("chatter", chat=GROUP, wasMentioned=False)
        await bridge.say("@bot ping", chat=GROUP, wasMentioned=True)
        await until(lambda: bridge.texts(GROUP) == ["echo: @bot ping"], what="the mention")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert [user_text(r.body) for r in scripted_server.chat_requests()] == ["@bot ping"]
