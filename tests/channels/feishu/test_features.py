"""The Feishu channel's features end to end: approvals with card buttons (and by keyword),
attachments out, tool hints, reminders, and answers that survive a failure halfway."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from desktop.core.agent.approval import DENIED_RESULT, ApprovalGate, ApprovalPolicy
from desktop.core.bus.events import OutboundMessage
from desktop.core.bus.queue import MessageBus
from desktop.core.channels.approvals import CLOSED
from desktop.core.channels.feishu.buttons import KIND
from desktop.core.channels.manager import ChannelManager
from desktop.core.channels.registry import CHANNELS
from desktop.core.config.channels.feishu import FeishuConfig
from desktop.core.tools.base import ToolContext
from desktop.core.utils.tasks import TaskOwner
from tests.channels.feishu.conftest import CHAT, USER, start_runtime, until, user_text
from tests.channels.feishu.feishu_server import (
    APP_ID,
    APP_SECRET,
    PNG,
    FeishuServer,
    Sent,
    callback_body,
    card_text,
)
from tests.core.cron.test_cron import FakeClock
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


def _question(feishu: FeishuServer) -> Sent:
    return next(s for s in feishu.sent if s.content.get("header"))


def _buttons(question: Sent) -> list[dict[str, Any]]:
    (row,) = [e for e in question.content["elements"] if e["tag"] == "action"]
    return list(row["actions"])


async def test_an_approval_is_answered_with_a_card_button(
    feishu: FeishuServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    policy = ApprovalPolicy()
    scripted_server.push(
        Reply(tool_calls=[("exec", json.dumps({"command": "echo approved-run"}))]),
        Reply("Done."),
    )
    runtime = await start_runtime(
        tmp_path, feishu, scripted_server, approval=policy, allowFrom=[USER]
    )
    try:
        await feishu.push_text(CHAT, USER, "run it")
        await until(lambda: any(s.content.get("header") for s in feishu.sent), what="question")
        question = _question(feishu)
        assert question.content["header"]["title"]["content"] == "Allow the tool exec?"
        assert "echo approved-run" in card_text(question)
        buttons = _buttons(question)
        assert [b["text"]["content"] for b in buttons] == [
            "Allow once", "This chat", "Always", "Deny",
        ]  # fmt: skip
        # Someone outside allowFrom cannot answer.
        stranger = await feishu.push_card_action(
            CHAT, question.message_id, "ou_stranger", buttons[1]["value"]
        )
        await until(lambda: stranger.acked, what="the stranger's tap answered")
        assert callback_body(stranger) == {
            "toast": {"type": "error", "content": "You may not answer this."}
        }
        tap = await feishu.push_card_action(CHAT, question.message_id, USER, buttons[1]["value"])
        await until(lambda: "Done." in feishu.texts(CHAT), what="the final answer")
    finally:
        await runtime.stop()
    answer = callback_body(tap)
    assert answer is not None and answer["toast"] == {
        "type": "success",
        "content": "Allowed in this chat",
    }
    updated = answer["card"]["data"]
    assert answer["card"]["type"] == "raw"
    assert all(e["tag"] != "action" for e in updated["elements"]), "buttons gone"
    assert updated["elements"][-1]["text"]["content"] == f"**Allowed in this chat by {USER}**"
    assert buttons[1]["value"] == {
        "kind": KIND,
        "decision": "2",
        "call_id": buttons[1]["value"]["call_id"],
    }
    assert policy.is_allowed(f"feishu:{USER}", "exec")  # nanobot's key of a direct chat
    tool_result = scripted_server.chat_requests()[1].body["messages"][-1]
    assert tool_result["role"] == "tool" and "approved-run" in str(tool_result["content"])
    assert feishu.patched == [], "the callback's answer updated the card"


async def test_a_tap_that_overtakes_the_sends_answer_waits_for_it_and_counts(
    feishu: FeishuServer,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A quick tap on a slow link: the tap's callback arrives before the bot has the answer to
    the send of its card. The tap waits for it, then answers."""
    caplog.set_level(logging.INFO, logger="desktop.core.channels.buttons")
    scripted_server.push(
        Reply(tool_calls=[("exec", json.dumps({"command": "echo never-run"}))]),
        Reply("Done."),
    )
    posted = feishu.hold(lambda body: body.get("msg_type") == "interactive")
    runtime = await start_runtime(
        tmp_path, feishu, scripted_server, approval=ApprovalPolicy(), allowFrom=[USER]
    )
    try:
        await feishu.push_text(CHAT, USER, "run it")
        await until(lambda: any(s.content.get("header") for s in feishu.sent), what="question")
        question = _question(feishu)
        deny = _buttons(question)[3]
        assert deny["text"]["content"] == "Deny"
        tap = await feishu.push_card_action(CHAT, question.message_id, USER, deny["value"])
        await until(
            lambda: "waiting for the post" in caplog.text or tap.acked,
            what="the tap taken while the card's answer is held back",
        )
        posted.set()  # the answer to the send arrives
        await until(lambda: tap.acked, what="the tap answered")
        answer = callback_body(tap)
        assert answer is not None
        assert answer["toast"] == {"type": "success", "content": "Denied"}, "not closed"
        await until(lambda: "Done." in feishu.texts(CHAT), what="the turn went on at once")
    finally:
        posted.set()
        await runtime.stop()
    updated = answer["card"]["data"]
    assert all(e["tag"] != "action" for e in updated["elements"]), "buttons gone"
    assert updated["elements"][-1]["text"]["content"] == f"**Denied by {USER}**"
    tool_result = scripted_server.chat_requests()[1].body["messages"][-1]
    assert tool_result["content"] == DENIED_RESULT.format(tool="exec")
    assert feishu.patched == [], "the callback's answer updated the card"


def _manager(
    feishu: FeishuServer, bus: MessageBus, tmp_path: Path, gate: ApprovalGate | None = None
) -> tuple[ChannelManager, TaskOwner]:
    """A channel manager running only the Feishu channel (no agent)."""
    owner = TaskOwner("test")
    section = FeishuConfig(
        enabled=True,
        app_id=APP_ID,
        app_secret=APP_SECRET,
        base_url=feishu.base_url,
        allow_from=["*"],
        react_emoji="",
    )
    manager = ChannelManager(
        bus,
        owner,
        config=SimpleNamespace(channels=SimpleNamespace(feishu=section)),  # type: ignore[arg-type]
        state_dir=tmp_path / "state",
        media_dir=tmp_path / "media",
        approval=gate,
        send_delays=(0.05,),
        registry={"feishu": CHANNELS["feishu"]},
    )
    return manager, owner


async def test_approvals_by_keyword_or_left_unanswered(
    feishu: FeishuServer, tmp_path: Path
) -> None:
    bus = MessageBus()
    gate = ApprovalGate(ApprovalPolicy(), timeout_s=30)
    manager, owner = _manager(feishu, bus, tmp_path, gate)
    await manager.start()
    ctx = ToolContext(
        workspace=tmp_path, session_key=f"feishu:{USER}", channel="feishu", chat_id=USER
    )
    try:
        await until(lambda: manager.status("feishu").ok)
        check = asyncio.ensure_future(gate.check("c1", "exec", {"command": "ls"}, ctx))
        await until(lambda: feishu.sent, what="the question")
        await feishu.push_text(CHAT, USER, "Deny")
        async with asyncio.timeout(30):
            assert await check == DENIED_RESULT.format(tool="exec")
        await until(lambda: feishu.patched, what="the question updated")
        assert feishu.patched[0][0] == feishu.sent[0].message_id
        assert card_text(Sent("", "", "interactive", feishu.patched[0][1])).endswith("**Denied**")
        assert bus.inbound.empty(), "the keyword was an answer, not a message"

        gate.timeout_s = 0.3
        result = await gate.check("c2", "exec", {"command": "rm -rf /tmp/x"}, ctx)
        assert result is not None and "nobody answered" in result
        await until(lambda: len(feishu.patched) == 2, what="closed")
        assert card_text(Sent("", "", "interactive", feishu.patched[1][1])).endswith(
            f"**{CLOSED}**"
        )
        late = feishu.sent[1]
        tap = await feishu.push_card_action(CHAT, late.message_id, USER, _buttons(late)[0]["value"])
        await until(lambda: tap.acked, what="the late tap answered")
        assert callback_body(tap) == {
            "toast": {"type": "info", "content": "This question is closed."}
        }
    finally:
        await manager.stop()
        await owner.aclose()


async def test_attachments_go_out_as_image_and_file_messages(
    feishu: FeishuServer, tmp_path: Path
) -> None:
    bus = MessageBus()
    manager, owner = _manager(feishu, bus, tmp_path)
    picture, notes = tmp_path / "chart.png", tmp_path / "report.pdf"
    picture.write_bytes(PNG)
    notes.write_bytes(b"%PDF-1.4 test")
    await manager.start()
    try:
        await until(lambda: manager.status("feishu").ok)
        message = OutboundMessage(
            "feishu", CHAT, "Here you go", media=[str(picture), str(notes), str(tmp_path / "gone")]
        )
        assert await manager.deliver(message)
    finally:
        await manager.stop()
        await owner.aclose()
    image, document, text = feishu.sent_to(CHAT)
    assert image.msg_type == "image" and feishu.uploads[image.content["image_key"]] == ("", PNG)
    assert document.msg_type == "file"
    assert feishu.uploads[document.content["file_key"]] == ("report.pdf", b"%PDF-1.4 test")
    assert feishu.uploads[document.content["file_key"] + ":type"][0] == "pdf"
    assert text.content["elements"] == [{"tag": "markdown", "content": "Here you go"}]


async def test_tool_hints_are_plain_text_with_the_prefix(
    feishu: FeishuServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.push(
        Reply("Let me look.", tool_calls=[("read_file", json.dumps({"path": "notes.md"}))]),
        Reply("Nothing there."),
    )
    runtime = await start_runtime(
        tmp_path,
        feishu,
        scripted_server,
        channels={"sendProgress": True, "sendToolHints": True},
        toolHintPrefix="->",
    )
    try:
        await feishu.push_text(CHAT, USER, "check my notes")
        await until(lambda: "Nothing there." in feishu.texts(CHAT), what="the answer")
    finally:
        await runtime.stop()
    progress, hint, answer = feishu.sent_to(CHAT)
    assert progress.content["elements"] == [{"tag": "markdown", "content": "Let me look."}]
    assert (hint.msg_type, hint.content) == ("text", {"text": '-> read_file("notes.md")'})
    assert answer.msg_type == "interactive"


async def test_a_reminder_made_in_a_chat_is_delivered_to_it(
    feishu: FeishuServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    clock = FakeClock("2026-05-01T10:00:00+00:00")
    add = {"action": "add", "message": "Stretch your legs", "at": "2026-05-01T10:30:00"}
    scripted_server.push(Reply(tool_calls=[("cron", json.dumps(add))]), Reply("Scheduled."))
    runtime = await start_runtime(tmp_path, feishu, scripted_server, clock=clock)
    try:
        await feishu.push_text(CHAT, USER, "remind me at 10:30 to stretch")
        await until(lambda: feishu.texts(CHAT) == ["Scheduled."], what="the confirmation")
        scripted_server.push(Reply("Time to **stretch** your legs!"))
        clock.set("2026-05-01T10:30:00+00:00")
        await runtime.cron.tick()
        await until(lambda: len(feishu.sent_to(CHAT)) == 2, what="the reminder")
    finally:
        await runtime.stop()
    reminder = feishu.sent_to(CHAT)[1]
    assert reminder.content["elements"] == [
        {"tag": "markdown", "content": "Time to **stretch** your legs!"}
    ]
    assert reminder.reply_to is None


async def test_an_answer_that_fails_halfway_is_completed_without_duplicates(
    feishu: FeishuServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    long = "\n\n".join(f"Block {i} " + "text " * 300 for i in range(8))
    scripted_server.push(Reply(long, chunk=2000), Reply(long.replace("Block", "Part"), chunk=2000))
    runtime = await start_runtime(tmp_path, feishu, scripted_server)
    try:
        # The second piece fails before it is sent: the retry sends only what is missing.
        feishu.fail_once(lambda body: "Block 4" in body["content"], delivered=False)
        await feishu.push_text(CHAT, USER, "first")
        await until(lambda: "Block 7" in "".join(feishu.texts(CHAT)), what="all of it")
        first = len(feishu.sent)
        # The piece is sent but the answer is lost: the retry's uuid keeps it single.
        feishu.fail_once(lambda body: "Part 4" in body["content"], delivered=True)
        await feishu.push_text(CHAT, USER, "second")
        await until(lambda: "Part 7" in "".join(feishu.texts(CHAT)), what="all of it again")
    finally:
        await runtime.stop()
    texts = feishu.texts(CHAT)
    for word in ("Block", "Part"):
        shown = " ".join(t for t in texts if word in t)
        assert [shown.count(f"{word} {i} ") for i in range(8)] == [1] * 8, word
    assert 1 < first < len(feishu.sent)
    retried = [b for b in feishu.send_requests if "Part 4" in b["content"]]
    assert len(retried) == 2 and retried[0]["uuid"] == retried[1]["uuid"]
    assert [b["content"].count("Block 0 ") for b in feishu.send_requests].count(1) == 1
    asked = [user_text(r.body) for r in scripted_server.chat_requests()]
    assert asked == ["first", "second"]
