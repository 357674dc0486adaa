"""The tools nanobot 0.3.5 added, both ways against the real ``nanobot`` CLI on one machine.

nanobot → us: a conversation where nanobot's agent used apply_patch, find_files, the session
tools, my, spawn(wait) and create_goal continues in ours: our request carries every call and
result, offers those tools again (their groups found in the history), sees the goal nanobot
stored and reads the chat handles nanobot allocated.

us → nanobot: a conversation where ours used the same tools (and generate_image) continues in
nanobot: its request carries every call and result, it sees our goal as active and finds the
handle we stored.

The model is the scripted server; subagents are answered by a route on their system prompt.
"""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path
from typing import Any

from desktop.core.session.location import storage_name
from tests.fakes.openai_server import Reply
from tests.interop.conftest import Shared, dump, jsonl, texts

TOOLS_KEY = "cli:tools"
GOAL = "Keep a.txt upper case until the person says stop"


def _id_folder(shared: Shared) -> Path:
    workspace_id = (shared.workspace / ".nanobot" / "workspace-id").read_text().strip()
    return shared.home / ".nanobot" / "sessions" / workspace_id


def _lines(shared: Shared, key: str) -> list[dict[str, Any]]:
    return jsonl(_id_folder(shared) / storage_name(key))


def _metadata(shared: Shared, key: str) -> dict[str, Any]:
    head = _lines(shared, key)[0]
    assert head["_type"] == "metadata"
    return dict(head["metadata"])


def _calls_and_results(messages: list[dict[str, Any]]) -> tuple[list[str], dict[str, str]]:
    """Tool names called (in order) and each call's result text, by tool name."""
    called: list[str] = []
    by_id: dict[str, str] = {}  # the latest assistant message's ids (servers reuse call_0)
    results: dict[str, str] = {}
    for message in messages:
        for call in message.get("tool_calls") or []:
            called.append(call["function"]["name"])
            by_id[call["id"]] = call["function"]["name"]
        if message.get("role") == "tool":
            name = by_id.get(message.get("tool_call_id", ""), "?")
            results[name] = str(message.get("content"))
    return called, results


def _calls(prefix: str, *calls: tuple[str, Any]) -> Reply:
    """A reply calling ``calls`` with ids unique in the conversation (nanobot keeps one result
    per id, so a reused ``call_0`` would lose a later result)."""
    return Reply(
        tool_calls=[(n, a if isinstance(a, str) else json.dumps(a)) for n, a in calls],
        call_ids=[f"{prefix}_{i}" for i in range(len(calls))],
    )


def _offered(shared: Shared) -> set[str]:
    body = shared.server.chat_requests()[-1].body
    return {t["function"]["name"] for t in body.get("tools") or []}


def _route_subagents(shared: Shared, answer: str) -> None:
    """Answer subagent requests (ours and nanobot's) with ``answer``, and a turn that a
    session message started with a fixed line, whatever the script."""

    def route(body: dict[str, Any]) -> Reply | None:
        messages = body.get("messages") or [{}]
        system = str(messages[0].get("content", ""))
        if "[Message from chat @" in json.dumps(messages[-1]):
            return Reply("Got the message.")
        mine = "You are a background worker for nanobot" in system
        theirs = "You are a subagent spawned by the main agent" in system
        return Reply(answer) if mine or theirs else None

    shared.server.route = route


def png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\0\xff\0\0"))
        + chunk(b"IEND", b"")
    )


def test_a_session_where_nanobot_used_its_tools_replays_in_ours(shared: Shared) -> None:
    shared.server.push(Reply("Day one: Alfama."))
    shared.ok("nanobot", "agent", "-s", "telegram:42", "-m", "Plan the Lisbon trip")
    shared.workspace.joinpath("a.txt").write_text("alpha\n")
    _route_subagents(shared, "Subagent says hi.")
    calls = [
        ("apply_patch", {"edits": [{"path": "a.txt", "action": "replace", "old_text": "alpha", "new_text": "ALPHA"}]}),
        ("find_files", {"query": "a.txt"}),
        ("list_sessions", {}),
        ("search_sessions", {"query": "Lisbon"}),
        ("read_session", {"session_key": "telegram:42"}),
        ("my", {"action": "check", "key": "max_iterations"}),
        ("spawn", {"task": "Say hi.", "wait": True}),
    ]  # fmt: skip
    shared.server.push(
        _calls("many", *calls),
        Reply("nanobot used its tools."),
    )
    shared.ok("nanobot", "agent", "-s", TOOLS_KEY, "-m", "use your tools")
    assert shared.workspace.joinpath("a.txt").read_text() == "ALPHA\n"
    handle = _metadata(shared, "telegram:42").get("session_handle")
    assert isinstance(handle, str), "nanobot allocated the chat's handle"
    # A message to that chat by handle (nanobot's own send_session_message).
    send = {"to": f"@{handle}", "content": "Bring sunscreen.", "expect_reply": False}
    shared.server.push(_calls("send", ("send_session_message", send)), Reply("Sent."))
    shared.ok("nanobot", "agent", "-s", TOOLS_KEY, "-m", "tell the trip chat")
    # A goal, set the way nanobot sets one (/goal, then create_goal).
    shared.server.push(
        _calls("goal", ("create_goal", {"objective": GOAL, "ui_summary": "caps"})),
        Reply("Goal recorded."),
    )
    shared.ok("nanobot", "agent", "-s", "cli:goal", "-m", f"/goal {GOAL}")
    goal = _metadata(shared, "cli:goal").get("goal_state")
    assert isinstance(goal, dict) and goal["status"] == "active", goal

    # Ours continues the tools conversation: everything nanobot did is in the request...
    shared.server.route = None
    shared.server.push(Reply("Continuing in ours."))
    out = shared.ok("nanobot-desktop", "agent", "--session", TOOLS_KEY, "-m", "and now?")
    assert "Continuing in ours." in out
    messages = shared.last_messages()
    called, results = _calls_and_results(messages)
    for name, _args in [*calls, ("send_session_message", send)]:
        assert name in called, (name, called)
    assert results["apply_patch"].startswith("Patch applied"), results
    assert "Lisbon" in results["search_sessions"] and "Alfama" in results["read_session"]
    assert "Subagent says hi." in results["spawn"], results["spawn"]
    assert f"@{handle}" in results["send_session_message"]
    # ...and the tools it used are offered again at once (their groups, from the history).
    assert {"apply_patch", "find_files", "read_session", "send_session_message", "my"} <= _offered(
        shared
    )
    # Our session tools see nanobot's handle: read the chat by it.
    shared.server.push(
        _calls("read", ("read_session", {"session_key": f"@{handle}"})),
        Reply("Read it."),
    )
    shared.ok("nanobot-desktop", "agent", "--session", TOOLS_KEY, "-m", "read the trip chat")
    tool_texts = [str(m["content"]) for m in shared.last_messages() if m.get("role") == "tool"]
    assert "Day one: Alfama." in tool_texts[-1], tool_texts[-1]

    # The goal nanobot stored is active in ours: shown, and update_goal ends it in its format.
    shared.server.push(
        _calls("done", ("update_goal", {"action": "complete", "recap": "Done."})),
        Reply("Finished the goal."),
    )
    shared.ok("nanobot-desktop", "agent", "--session", "cli:goal", "-m", "status?")
    first = shared.server.chat_requests()[-2].body
    assert GOAL in texts(first["messages"], "user")[-1]
    assert "update_goal" in {t["function"]["name"] for t in first["tools"]}
    ended = _metadata(shared, "cli:goal")["goal_state"]
    assert ended["status"] == "completed" and ended["objective"] == GOAL, ended
    assert ended["started_at"] == goal["started_at"]


def test_a_session_where_ours_used_the_tools_replays_in_nanobot(shared: Shared) -> None:
    config = json.loads(shared.config.read_text())
    config["tools"] = {
        "imageGeneration": {"enabled": True, "provider": "custom", "model": "img-model"}
    }
    shared.config.write_text(json.dumps(config))
    shared.server.images = png()
    shared.server.push(Reply("Day one: Alfama."))
    shared.ok("nanobot-desktop", "agent", "--session", "telegram:42", "-m", "Plan the Lisbon trip")
    shared.workspace.joinpath("a.txt").write_text("alpha\n")
    _route_subagents(shared, "Subagent says hi.")
    calls = [
        ("apply_patch", {"edits": [{"path": "a.txt", "action": "replace", "old_text": "alpha", "new_text": "ALPHA"}]}),
        ("find_files", {"query": "a.txt"}),
        ("list_sessions", {}),
        ("search_sessions", {"query": "Lisbon"}),
        ("read_session", {"session_key": "telegram:42"}),
        ("my", {"action": "check", "key": "max_iterations"}),
        ("spawn", {"task": "Say hi.", "wait": True}),
        ("send_session_message", {"to": "telegram:42", "content": "Sunscreen!", "expect_reply": False}),
        ("create_goal", {"objective": GOAL, "ui_summary": "caps"}),
        ("generate_image", {"prompt": "a tiny red dot"}),
    ]  # fmt: skip
    shared.server.push(
        _calls("many", *calls),
        Reply("Ours used the tools."),
    )
    out = shared.ok("nanobot-desktop", "agent", "--session", TOOLS_KEY, "-m", "use your tools")
    assert "Ours used the tools." in out
    assert shared.workspace.joinpath("a.txt").read_text() == "ALPHA\n"
    ours = _lines(shared, TOOLS_KEY)
    _called, saved = _calls_and_results([m for m in ours if m.get("_type") != "metadata"])
    for name, _args in calls:
        assert name in saved, (name, dump(_id_folder(shared) / storage_name(TOOLS_KEY)))
        assert not saved[name].startswith("Error"), (name, saved[name])
    handle = _metadata(shared, "telegram:42").get("session_handle")
    assert isinstance(handle, str), "ours stored the handle it used, where nanobot keeps it"
    assert _metadata(shared, TOOLS_KEY)["goal_state"]["status"] == "active"

    # nanobot continues: our calls and results are in its request, and our goal is active.
    shared.server.route = None
    shared.server.push(_calls("list", ("list_sessions", "{}")), Reply("Continuing in nanobot."))
    out = shared.ok("nanobot", "agent", "-s", TOOLS_KEY, "-m", "and now?")
    assert "Continuing in nanobot." in out
    first = shared.server.chat_requests()[-2].body["messages"]
    called, results = _calls_and_results(first)
    for name, _args in calls:
        assert name in called and name in results, (name, called)
    assert any(GOAL in text for text in texts(first, "user")), "nanobot sees our goal as active"
    listed = [str(m["content"]) for m in shared.last_messages() if m.get("role") == "tool"][-1]
    assert f"@{handle}" in listed, (handle, listed)
