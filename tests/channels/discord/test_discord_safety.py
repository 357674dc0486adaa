"""Approvals with buttons and nothing answered twice across an app restart: discord.py against
the local Discord and a real agent runtime."""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path
from typing import Any

import pytest

from desktop.core.agent.approval import DENIED_RESULT, ApprovalPolicy
from desktop.core.runtime import Runtime
from tests.channels.discord.conftest import start_runtime, until, user_text
from tests.channels.discord.discord_server import DM, DiscordServer
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

KEY = f"discord:{DM}"


def _question(api: DiscordServer) -> dict[str, Any] | None:
    return next((m for m in api.messages.values() if m.get("components")), None)


async def test_an_approval_is_answered_with_a_button(
    discord_api: DiscordServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    policy = ApprovalPolicy()
    scripted_server.push(
        Reply(tool_calls=[("exec", json.dumps({"command": "echo approved-run"}))]),
        Reply("Done."),
    )
    runtime = await start_runtime(tmp_path, discord_api, scripted_server, approval=policy)
    try:
        discord_api.put_message(DM, "run it")
        await until(lambda: _question(discord_api) is not None, what="the question")
        question = _question(discord_api)
        assert question is not None
        assert "Allow the tool `exec`?" in question["content"]
        assert "echo approved-run" in question["content"]
        (row,) = question["components"]
        buttons = row["components"]
        assert row["type"] == 1 and [b["label"] for b in buttons] == [
            "Allow once", "This chat", "Always", "Deny"
        ]  # fmt: skip
        custom_id = buttons[1]["custom_id"]
        assert custom_id.startswith("nb-ap:2:") and len(custom_id) <= 100
        discord_api.put_click(question, custom_id)
        await until(lambda: "Done." in discord_api.texts(DM), what="the final answer")
    finally:
        await runtime.stop()
    (callback,) = discord_api.calls_of("POST", "/callback")
    assert callback.body is not None and callback.body["type"] == 7  # UPDATE_MESSAGE
    assert callback.body["data"]["components"] == []
    assert callback.body["data"]["content"].endswith("*Allowed in this chat by @ada*")
    assert question["components"] == [], "the buttons are gone"
    assert not discord_api.calls_of("PATCH", f"/messages/{question['id']}"), "updated once"
    assert policy.is_allowed(KEY, "exec")
    tool_result = scripted_server.chat_requests()[1].body["messages"][-1]
    assert tool_result["role"] == "tool" and "approved-run" in str(tool_result["content"])


async def test_a_click_that_overtakes_the_posts_answer_waits_for_it_and_counts(
    discord_api: DiscordServer,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A quick click on a slow link: the interaction arrives before the bot has the answer to
    the message it posted. The click waits for it, then answers."""
    caplog.set_level(logging.INFO, logger="desktop.core.channels.buttons")
    scripted_server.push(
        Reply(tool_calls=[("exec", json.dumps({"command": "echo never-run"}))]),
        Reply("Done."),
    )
    posted = discord_api.hold(lambda body: bool(body.get("components")))
    runtime = await start_runtime(tmp_path, discord_api, scripted_server, approval=ApprovalPolicy())
    try:
        discord_api.put_message(DM, "run it")
        await until(lambda: _question(discord_api) is not None, what="the question")
        question = _question(discord_api)
        assert question is not None
        deny = question["components"][0]["components"][3]
        assert deny["label"] == "Deny"
        discord_api.put_click(question, deny["custom_id"])
        await until(
            lambda: (
                "waiting for the post" in caplog.text or discord_api.calls_of("POST", "/callback")
            ),
            what="the click taken while the question's answer is held back",
        )
        posted.set()  # the answer to the POST arrives
        await until(lambda: discord_api.calls_of("POST", "/callback"), what="the click answered")
        (callback,) = discord_api.calls_of("POST", "/callback")
        assert callback.body is not None and callback.body["type"] == 7  # UPDATE_MESSAGE
        content = str(callback.body["data"].get("content") or "")
        assert content.endswith("*Denied by @ada*"), "the click counted (not an old question)"
        await until(lambda: "Done." in discord_api.texts(DM), what="the turn went on at once")
    finally:
        posted.set()
        await runtime.stop()
    assert question["components"] == [], "the buttons are gone"
    assert not discord_api.calls_of("PATCH", f"/messages/{question['id']}"), "updated once"
    tool_result = scripted_server.chat_requests()[1].body["messages"][-1]
    assert tool_result["content"] == DENIED_RESULT.format(tool="exec")


def _dispatches(runtime: Runtime) -> int:
    return sum(1 for t in runtime.agent.background if f"dispatch:{KEY}" in t.get_name())


def _journal(tmp_path: Path) -> list[dict[str, Any]]:
    state = json.loads((tmp_path / "nanobot" / "channel-state" / "discord.json").read_text())
    return list(state["values"].get("pending", []))


async def test_a_received_but_unsaved_message_is_answered_once_after_a_restart(
    discord_api: DiscordServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    gate = threading.Event()

    def route(body: dict[str, Any]) -> Reply:
        text = user_text(body)
        if text == "busy":
            gate.wait(30)
        return Reply(f"echo: {text}")

    scripted_server.route = route
    first = await start_runtime(tmp_path, discord_api, scripted_server)
    try:
        discord_api.put_message(DM, "busy")
        await until(lambda: scripted_server.chat_requests(), what="the first turn at the model")
        discord_api.put_message(DM, "queued")
        await until(lambda: _dispatches(first) == 2, what="the queued message waits its turn")
        assert [e["content"] for e in _journal(tmp_path)] == ["queued"]
    finally:
        await first.stop()  # the app ends (or dies) before the queued message's turn
        gate.set()
    # The gateway does not send it again: a new session starts with new events only.
    second = await start_runtime(tmp_path, discord_api, scripted_server)
    try:
        await until(lambda: "echo: queued" in discord_api.texts(DM), what="the queued answer")
        await until(lambda: _journal(tmp_path) == [], what="the journal emptied")
        discord_api.put_message(DM, "later")
        await until(lambda: "echo: later" in discord_api.texts(DM), what="a new message")
        await second.agent.idle()
    finally:
        await second.stop()
    assert len(discord_api.identifies) == 2
    texts = [user_text(r.body) for r in scripted_server.chat_requests()]
    assert texts.count("queued") == 1 and texts.count("busy") == 1
    assert discord_api.texts(DM).count("echo: queued") == 1
