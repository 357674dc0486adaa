"""The Slack channel's features end to end: restart safety, approvals with buttons, files in
and out, replies into a thread's chat, and bad settings shown in the status."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import threading
from pathlib import Path
from typing import Any

import pytest

from desktop.core.agent.approval import DENIED_RESULT, ApprovalPolicy
from desktop.core.bus.events import OutboundMessage
from tests.channels.slack.conftest import (
    CHANNEL,
    DM,
    journal,
    start_runtime,
    until,
    user_text,
)
from tests.channels.slack.slack_server import SlackServer
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def _dispatches(runtime: Any, key: str) -> int:
    return sum(1 for t in runtime.agent.background if f"dispatch:{key}" in t.get_name())


async def test_an_acknowledged_but_unsaved_message_is_answered_once_after_a_restart(
    slack: SlackServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    gate = threading.Event()

    def route(body: dict[str, Any]) -> Reply:
        text = user_text(body)
        if text == "busy":
            gate.wait(30)
        return Reply(f"echo: {text}")

    scripted_server.route = route
    first = await start_runtime(tmp_path, slack, scripted_server)
    try:
        slack.put_message(DM, "busy")
        await until(lambda: scripted_server.chat_requests(), what="the first turn at the model")
        slack.put_message(DM, "queued")
        await until(lambda: len(slack.acks) == 2, what="Slack has the acknowledgement")
        await until(lambda: _dispatches(first, f"slack:{DM}") == 2, what="queued waits its turn")
        assert [e["content"] for e in journal(tmp_path)] == ["queued"]
    finally:
        await first.stop()  # the app ends (or dies) before the queued message's turn
        gate.set()
    second = await start_runtime(tmp_path, slack, scripted_server)
    try:
        await until(lambda: "echo: queued" in slack.texts(DM), what="the queued message answered")
        await until(lambda: journal(tmp_path) == [], what="the journal emptied")
        await second.agent.idle()
        await asyncio.sleep(0.5)  # nothing more arrives
    finally:
        await second.stop()
    texts = [user_text(r.body) for r in scripted_server.chat_requests()]
    assert texts.count("queued") == 1 and texts.count("busy") == 1
    assert slack.texts(DM).count("echo: queued") == 1


async def test_an_approval_is_answered_with_a_button(
    slack: SlackServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.push(
        Reply(tool_calls=[("exec", json.dumps({"command": "echo approved-run"}))]),
        Reply("done"),
    )
    runtime = await start_runtime(
        tmp_path, slack, scripted_server, approval=ApprovalPolicy(), allowFrom=["UALICE01"]
    )
    try:
        slack.put_message(DM, "run it")
        await until(lambda: any(p.get("blocks") for p in slack.posted(DM)), what="the question")
        question = next(p for p in slack.posted(DM) if p.get("blocks"))
        section, actions = question["blocks"]
        assert "Allow the tool exec?" in section["text"]["text"]
        assert "echo approved-run" in section["text"]["text"]
        labels = [b["text"]["text"] for b in actions["elements"]]
        assert labels == ["Allow once", "This chat", "Always", "Deny"]
        allow = actions["elements"][0]
        slack.put_click(DM, "UMALLORY", "1", allow)  # not in allowFrom: no effect
        await until(lambda: len(slack.acks) == 2, what="the stranger's click acknowledged")
        await asyncio.sleep(0.3)  # had it answered, the turn would go on now
        assert "done" not in slack.texts(DM) and not slack.calls_of("chat.update")
        slack.put_click(DM, "UALICE01", "1", allow)
        await until(lambda: "done" in slack.texts(DM), what="the answer after the tool ran")
        await until(lambda: slack.calls_of("chat.update"), what="the question shows its outcome")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    update = slack.calls_of("chat.update")[0].params
    assert [b["type"] for b in update["blocks"]] == ["section"], "the buttons are gone"
    assert "Allowed once by <@UALICE01>" in update["blocks"][0]["text"]["text"]
    tool_result = next(
        m for m in scripted_server.chat_requests()[-1].body["messages"] if m["role"] == "tool"
    )
    assert "approved-run" in str(tool_result["content"])


async def test_a_click_that_overtakes_the_posts_answer_waits_for_it_and_counts(
    slack: SlackServer,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A quick click on a slow link: the click arrives before the bot has the answer to its
    ``chat.postMessage``. The click waits for it, then answers."""
    caplog.set_level(logging.INFO, logger="desktop.core.channels.buttons")
    scripted_server.push(
        Reply(tool_calls=[("exec", json.dumps({"command": "echo never-run"}))]),
        Reply("done"),
    )
    posted = slack.hold("chat.postMessage", lambda params: bool(params.get("blocks")))
    runtime = await start_runtime(
        tmp_path, slack, scripted_server, approval=ApprovalPolicy(), allowFrom=["UALICE01"]
    )
    try:
        slack.put_message(DM, "run it")
        await until(lambda: any(p.get("blocks") for p in slack.posted(DM)), what="the question")
        question = next(p for p in slack.posted(DM) if p.get("blocks"))
        deny = question["blocks"][1]["elements"][3]
        assert deny["text"]["text"] == "Deny"
        ts = next(m["ts"] for m in slack.history[DM] if m.get("text") == question["text"])
        slack.put_click(DM, "UALICE01", ts, deny)
        await until(
            lambda: "waiting for the post" in caplog.text or slack.calls_of("chat.update"),
            what="the click taken while the question's answer is held back",
        )
        posted.set()  # the answer to chat.postMessage arrives
        await until(lambda: slack.calls_of("chat.update"), what="the question updated")
        update = slack.calls_of("chat.update")[0].params
        assert "Denied by <@UALICE01>" in update["blocks"][0]["text"]["text"], "not closed"
        await until(lambda: "done" in slack.texts(DM), what="the turn went on at once")
        await runtime.agent.idle()
    finally:
        posted.set()
        await runtime.stop()
    assert len(slack.calls_of("chat.update")) == 1
    tool_result = next(
        m for m in scripted_server.chat_requests()[-1].body["messages"] if m["role"] == "tool"
    )
    assert tool_result["content"] == DENIED_RESULT.format(tool="exec")


async def test_files_in_are_downloaded_with_the_bot_token_and_files_out_uploaded(
    slack: SlackServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.push(Reply("a red dot"))
    runtime = await start_runtime(tmp_path, slack, scripted_server)
    try:
        image = slack.put_file("F0IMG1", PNG, name="dot.png", mimetype="image/png")
        hidden = slack.put_file("F0DOC1", b"x", name="doc.txt", mimetype="text/plain")
        hidden["url_private_download"] = slack.url + "/files/F0MISSING"
        slack.put_message(DM, "what is this?", subtype="file_share", files=[image, hidden])
        await until(lambda: slack.posted(DM), what="the answer")
        channel = runtime.channels.channel("slack")
        assert channel is not None
        out = tmp_path / "report.txt"
        out.write_text("the report")
        await channel.send(
            OutboundMessage("slack", f"{CHANNEL}:1700000000.000100", "Here it is", media=[str(out)])
        )
    finally:
        await runtime.stop()
    body = scripted_server.chat_requests()[0].body
    user = next(m for m in reversed(body["messages"]) if m["role"] == "user")
    assert any(p.get("type") == "image_url" for p in user["content"]), "the model sees the image"
    text = user_text(body)
    saved = tmp_path / "ws" / "media" / "slack" / "F0IMG1_dot.png"
    assert f"[image: {saved}]" in text and saved.read_bytes() == PNG
    assert "[file: doc.txt — download failed]" in text, "Slack's sign-in page is not a file"
    (get_url,) = slack.calls_of("files.getUploadURLExternal")
    assert get_url.params["filename"] == "report.txt" and int(get_url.params["length"]) == 10
    (complete,) = slack.calls_of("files.completeUploadExternal")
    assert complete.params["channel_id"] == CHANNEL
    assert complete.params["thread_ts"] == "1700000000.000100"
    assert list(slack.uploads.values()) == [b"the report"]
    (text_post,) = slack.posted(CHANNEL)
    assert text_post == {
        "channel": CHANNEL, "thread_ts": "1700000000.000100", "text": "Here it is", "mrkdwn": True,
    }  # fmt: skip


async def test_bad_settings_are_a_clear_status_not_a_crash(
    slack: SlackServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = await start_runtime(tmp_path, slack, scripted_server, connected=False, appToken="")
    try:
        await until(lambda: runtime.channels.status("slack").state == "unavailable")
        missing = runtime.channels.status("slack")
    finally:
        await runtime.stop()
    assert "app token" in missing.reason and "Settings" in missing.hint
    slack.refuse_bot_token = True
    runtime = await start_runtime(tmp_path, slack, scripted_server, connected=False)
    try:
        await until(lambda: runtime.channels.status("slack").state == "unavailable")
        refused = runtime.channels.status("slack")
    finally:
        await runtime.stop()
    assert refused.reason == "Slack did not accept the bot token (invalid_auth)."
    assert "Bot User OAuth Token" in refused.hint
    assert slack.connections == 0 and len(slack.calls_of("auth.test")) == 1, "not retried"
