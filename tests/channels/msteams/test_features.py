"""Teams features end to end: a long answer split in order, approvals with an Adaptive Card,
no duplicate answer after a restart, and nanobot 0.3.5's section starting the channel."""

from __future__ import annotations

import asyncio
import json
import logging
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from desktop.core.agent.approval import DENIED_RESULT, ApprovalPolicy
from desktop.core.channels.base import split_message
from desktop.core.channels.msteams.channel import MAX_CHARS
from desktop.core.config.channels.msteams import MSTeamsConfig
from tests.channels.msteams.conftest import (
    Microsoft,
    echo,
    journal,
    section,
    start_runtime,
    until,
    user_text,
)
from tests.channels.msteams.server import ALICE_AAD, CONVERSATION, MALLORY_AAD
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.interop.conftest import NANOBOT_VENV, nanobot_executable


def _asked(model: ScriptedOpenAIServer) -> list[str]:
    return [user_text(r.body) for r in model.chat_requests()]


async def test_a_long_answer_is_split_under_the_limit_in_order(
    microsoft: Microsoft, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    paragraphs = [(f"Part {i}. " + "lorem ipsum dolor sit amet " * 70).strip() for i in range(9)]
    reply = "\n\n".join(paragraphs)
    assert MAX_CHARS < len(reply) <= 3 * MAX_CHARS
    scripted_server.push(Reply(reply, chunk=2000))
    bf = microsoft.bot_framework
    runtime = await start_runtime(tmp_path, microsoft, scripted_server)
    try:
        await bf.say(microsoft.endpoint, bf.activity("write a lot"))
        await until(lambda: len(bf.texts()) == 3, what="every piece")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert bf.texts() == split_message(reply, MAX_CHARS)
    assert "\n\n".join(bf.texts()) == reply, "nothing lost, in order"


async def test_an_approval_is_an_adaptive_card_answered_by_a_button(
    microsoft: Microsoft, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.push(
        Reply(tool_calls=[("exec", json.dumps({"command": "echo approved-run"}))]),
        Reply("done"),
    )
    bf = microsoft.bot_framework
    runtime = await start_runtime(
        tmp_path, microsoft, scripted_server, approval=ApprovalPolicy(), allowFrom=[ALICE_AAD]
    )
    try:
        await bf.say(microsoft.endpoint, bf.activity("run it"))
        await until(lambda: any(s.activity.get("attachments") for s in bf.sent), what="card")
        question = next(s for s in bf.sent if s.activity.get("attachments"))
        (attachment,) = question.activity["attachments"]
        assert attachment["contentType"] == "application/vnd.microsoft.card.adaptive"
        card = attachment["content"]
        assert "echo approved-run" in json.dumps(card["body"])
        actions = card["actions"]
        assert [a["title"] for a in actions] == ["Allow once", "This chat", "Always", "Deny"]
        assert {a["type"] for a in actions} == {"Action.Submit"}
        click = actions[0]["data"]
        stranger = bf.activity("", sender=MALLORY_AAD, value=click)
        await bf.say(microsoft.endpoint, stranger)  # not in allowFrom: no effect
        await bf.say(microsoft.endpoint, bf.activity("", value=click))
        await until(lambda: "done" in bf.texts(), what="the answer after the tool ran")
        await until(lambda: any(s.method == "PUT" for s in bf.sent), what="the card closed")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    update = next(s for s in bf.sent if s.method == "PUT")
    assert update.reply_to == "bot-1" and not update.activity.get("attachments")
    assert f"Allowed once by {ALICE_AAD}" in update.activity["text"]
    tool_result = next(
        m for m in scripted_server.chat_requests()[-1].body["messages"] if m["role"] == "tool"
    )
    assert "approved-run" in str(tool_result["content"])


async def test_a_click_that_overtakes_the_posts_answer_waits_for_it_and_counts(
    microsoft: Microsoft,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A quick click on a slow link: the click reaches the bot before the Connector has
    answered the post of its card. The click waits for it, then answers."""
    caplog.set_level(logging.INFO, logger="desktop.core.channels")
    scripted_server.push(
        Reply(tool_calls=[("exec", json.dumps({"command": "echo never-run"}))]),
        Reply("done"),
    )
    bf = microsoft.bot_framework
    posted = bf.hold(lambda activity: bool(activity.get("attachments")))
    runtime = await start_runtime(
        tmp_path, microsoft, scripted_server, approval=ApprovalPolicy(), allowFrom=[ALICE_AAD]
    )
    try:
        await bf.say(microsoft.endpoint, bf.activity("run it"))
        await until(lambda: any(s.activity.get("attachments") for s in bf.sent), what="card")
        question = next(s for s in bf.sent if s.activity.get("attachments"))
        deny = question.activity["attachments"][0]["content"]["actions"][3]
        assert deny["title"] == "Deny"
        click = asyncio.ensure_future(
            bf.say(microsoft.endpoint, bf.activity("", value=deny["data"]))
        )
        await until(
            lambda: "waiting for the post" in caplog.text or click.done(),
            what="the click taken while the card's answer is held back",
        )
        posted.set()  # the answer to the post arrives
        await click
        assert "closed or unknown approval card" not in caplog.text, "the click counted"
        await until(lambda: "done" in bf.texts(), what="the turn went on at once")
        await until(lambda: any(s.method == "PUT" for s in bf.sent), what="the card closed")
        await runtime.agent.idle()
    finally:
        posted.set()
        await runtime.stop()
    update = next(s for s in bf.sent if s.method == "PUT")
    assert f"Denied by {ALICE_AAD}" in update.activity["text"]
    tool_result = next(
        m for m in scripted_server.chat_requests()[-1].body["messages"] if m["role"] == "tool"
    )
    assert tool_result["content"] == DENIED_RESULT.format(tool="exec")


async def test_a_message_received_but_not_saved_is_answered_once_after_a_restart(
    microsoft: Microsoft, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    gate = threading.Event()

    def route(body: dict[str, Any]) -> Reply:
        text = user_text(body)
        if text == "busy":
            gate.wait(30)
        return Reply(f"echo: {text}")

    scripted_server.route = route
    bf = microsoft.bot_framework
    key = f"msteams:{CONVERSATION}"
    first = await start_runtime(tmp_path, microsoft, scripted_server)
    try:
        await bf.say(microsoft.endpoint, bf.activity("busy"))
        await until(lambda: scripted_server.chat_requests(), what="the first turn at the model")
        queued = bf.activity("queued")
        assert await bf.say(microsoft.endpoint, queued) in (200, 201), "Teams has its answer"
        await until(
            lambda: sum(f"dispatch:{key}" in t.get_name() for t in first.agent.background) == 2
        )
        assert [e["content"] for e in journal(tmp_path)] == ["queued"]
    finally:
        await first.stop()
        gate.set()
    second = await start_runtime(tmp_path, microsoft, scripted_server)
    try:
        await until(lambda: "echo: queued" in bf.texts(), what="the queued message answered")
        await until(lambda: journal(tmp_path) == [], what="the journal emptied")
        await bf.say(microsoft.endpoint, queued)  # Teams delivering it again
        await until(lambda: second.bus.inbound.empty(), what="the agent took what was sent")
        await second.agent.idle()
    finally:
        await second.stop()
    assert _asked(scripted_server).count("queued") == 1
    assert bf.texts().count("echo: queued") == 1


# Every key of nanobot 0.3.5's Teams section, as its config.json holds it.
NANOBOT_SECTION = {
    "enabled": True,
    "appId": "app-1",
    "appPassword": "secret-1",
    "tenantId": "tenant-9",
    "host": "127.0.0.1",
    "port": 3999,
    "path": "/teams",
    "allowFrom": ["aad-1"],
    "replyInThread": False,
    "mentionOnlyResponse": "Yes?",
    "validateInboundAuth": True,
    "refTtlDays": 7,
    "pruneWebChatRefs": False,
    "pruneNonPersonalRefs": False,
    "refTouchIntervalS": 60,
    "trustedServiceUrlHosts": ["smba.trafficmanager.net"],
}


def nanobot_validates(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` as nanobot 0.3.5's own model validates and writes it back."""
    if nanobot_executable() is None:
        pytest.skip("nanobot-ai 0.3.5 is not installed (scripts/setup.sh --test)")
    code = (
        "import json, sys\n"
        "from nanobot.channels.msteams.runtime import MSTeamsConfig\n"
        "print(json.dumps(MSTeamsConfig.model_validate(json.loads(sys.argv[1]))"
        ".model_dump(by_alias=True)))\n"
    )
    done = subprocess.run(
        [str(NANOBOT_VENV / "bin" / "python"), "-c", code, json.dumps(data)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return dict(json.loads(done.stdout))


def test_a_nanobot_section_loads_and_saves_back_the_same() -> None:
    assert nanobot_validates(NANOBOT_SECTION) == NANOBOT_SECTION, "0.3.5 writes it so"
    config = MSTeamsConfig.model_validate(NANOBOT_SECTION)
    assert (config.app_id, config.app_password, config.tenant_id) == (
        "app-1",
        "secret-1",
        "tenant-9",
    )
    assert (config.host, config.port, config.path) == ("127.0.0.1", 3999, "/teams")
    assert config.reply_in_thread is False and config.mention_only_response == "Yes?"
    dumped = config.model_dump(by_alias=True)
    assert {k: dumped[k] for k in NANOBOT_SECTION} == NANOBOT_SECTION
    theirs_default = nanobot_validates({})
    ours_default = MSTeamsConfig().model_dump(by_alias=True)
    assert {k: ours_default[k] for k in theirs_default} == theirs_default


async def test_the_section_nanobot_writes_starts_the_channel(
    microsoft: Microsoft, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    ours = section(microsoft)
    theirs = nanobot_validates(
        {k: v for k, v in ours.items() if k not in ("openIdMetadataUrl", "loginUrl")}
    )
    scripted_server.route = echo()
    bf = microsoft.bot_framework
    raw = {**theirs, "openIdMetadataUrl": ours["openIdMetadataUrl"], "loginUrl": ours["loginUrl"]}
    runtime = await start_runtime(tmp_path, microsoft, scripted_server, raw_section=raw)
    try:
        await bf.say(microsoft.endpoint, bf.activity("hi from 0.3.5's config"))
        await until(lambda: bf.texts(), what="the answer")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert bf.texts() == ["echo: hi from 0.3.5's config"]
