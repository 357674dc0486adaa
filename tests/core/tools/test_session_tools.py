"""The session tools through the real runtime and LiteLLM: one chat reads and messages
another; handles are 0.3.5's metadata key; a chat network's chat asks before reading."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from desktop.core.agent.approval import ApprovalPolicy, Decision
from desktop.core.assembly import build_runtime
from desktop.core.bus.events import InboundMessage
from desktop.core.config.schema import Config
from desktop.core.runtime import Runtime
from desktop.core.session.handles import HANDLE_KEY, SESSION_MESSAGE, find_chat, list_chats
from desktop.core.tools import sessions as sessions_module
from tests.core.agent.conftest import make_provider
from tests.core.agent.test_approval import ScriptedApprover
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.typed import present
from tests.waiting import until


def _runtime(server: ScriptedOpenAIServer, tmp_path: Path, **options: Any) -> Runtime:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    config = Config.model_validate({"agents": {"defaults": {"workspace": str(workspace)}}})
    config_dir = tmp_path / "cfg"
    config_dir.mkdir(exist_ok=True)
    return build_runtime(config, make_provider(server.url), **options)


async def _seed(runtime: Runtime, key: str, question: str, answer: str) -> None:
    session = runtime.sessions.get_or_create(key)
    session.add_message("user", question)
    session.add_message("assistant", answer)
    runtime.sessions.save(session)


def _route_by_message(server: ScriptedOpenAIServer, **answers: Reply) -> None:
    """Answer a turn whose conversation has a session message containing a key of ``answers``
    with that reply (once the model has called a tool in it: the plain answer "done"); the
    turns of the other chat follow the script. Two chats' turns overlap, so the script alone
    could hand one chat's reply to the other."""

    def route(body: dict[str, Any]) -> Reply | None:
        for message in body["messages"]:
            text = json.dumps(message.get("content"))
            if message.get("role") != "user" or "[Message from chat" not in text:
                continue
            for word, reply in answers.items():
                if word in text:
                    answered = body["messages"][-1].get("role") == "tool"
                    return Reply("done") if answered else reply
        return None

    server.route = route


def _tool_texts(server: ScriptedOpenAIServer, index: int) -> list[str]:
    body = server.chat_requests()[index].body
    return [str(m["content"]) for m in body["messages"] if m["role"] == "tool"]


async def test_a_chat_lists_reads_and_searches_another(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = _runtime(scripted_server, tmp_path)
    await _seed(runtime, "telegram:42", "Plan the Lisbon trip", "Day one: Alfama.")
    await _seed(runtime, "desktop:other", "Buy oat milk", "Added to the list.")
    handle = next(c.handle for c in list_chats(runtime.sessions) if c.key == "telegram:42")
    scripted_server.push(
        Reply(tool_calls=[("list_sessions", "{}")]),
        Reply(tool_calls=[("read_session", json.dumps({"session_key": f"@{handle}"}))]),
        Reply(tool_calls=[("search_sessions", json.dumps({"query": "oat milk"}))]),
        Reply("Done."),
    )
    try:
        out = await runtime.agent.process_direct(
            f"what did @{handle} plan?", session_key="desktop:me", channel="desktop", chat_id="me"
        )
    finally:
        await runtime.stop()
    assert out == "Done."
    first = scripted_server.chat_requests()[0].body
    assert "read_session" in [t["function"]["name"] for t in first["tools"]], "mention loads it"
    runtime_block = first["messages"][-1]["content"]
    assert f"Mentioned chat @{handle}: session telegram:42" in runtime_block
    listed, read, found = _tool_texts(scripted_server, 3)
    assert f"@{handle}\ttelegram:42\tPlan the Lisbon trip" in listed
    assert "desktop:me" not in listed, "the current chat is not listed"
    assert listed.startswith("<<<untrusted") and read.startswith("<<<untrusted")
    payload = json.loads(present(re.search(r"\{.*\}", read, re.S)).group(0))
    assert [m["content"] for m in payload["messages"]] == [
        "Plan the Lisbon trip",
        "Day one: Alfama.",
    ]
    assert "desktop:other" in found and "oat milk" in found.lower()
    # The handle it used is stored where nanobot 0.3.5 keeps it.
    assert runtime.sessions.get_or_create("telegram:42").metadata[HANDLE_KEY] == handle


async def test_a_message_to_another_chat_starts_a_turn_there(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """send_session_message: the target chat's agent answers in that chat; the saved user
    message carries 0.3.5's envelope and names the sender."""
    runtime = _runtime(scripted_server, tmp_path)
    await _seed(runtime, "desktop:target", "Shopping list", "Empty so far.")
    await _seed(runtime, "desktop:source", "hello", "hi")
    target = find_chat(runtime.sessions, "desktop:target")
    source = find_chat(runtime.sessions, "desktop:source")
    assert target is not None and source is not None
    args = {"to": f"@{target.handle}", "content": "Add eggs.", "expect_reply": False}
    scripted_server.push(
        Reply(tool_calls=[("send_session_message", json.dumps(args))]), Reply("Sent it.")
    )
    _route_by_message(scripted_server, eggs=Reply("Eggs added."))
    runtime.agent.start()
    try:
        out = await runtime.agent.process_direct(
            "tell the list", session_key="desktop:source", channel="desktop", chat_id="source"
        )
        assert out == "Sent it."
        await until(lambda: len(scripted_server.chat_requests()) >= 3, what="the target's turn")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    saved = runtime.sessions.get_or_create("desktop:target").messages
    asked = saved[-2]
    assert asked["role"] == "user" and "Add eggs." in asked["content"]
    assert f"@{source.handle}" in asked["content"]
    envelope = asked[SESSION_MESSAGE]
    assert envelope["source_session_key"] == "desktop:source"
    assert envelope["target_session_key"] == "desktop:target"
    assert saved[-1] == {**saved[-1], "role": "assistant", "content": "Eggs added."}


async def test_a_chat_network_chat_asks_before_reading_other_chats(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """From Telegram, read_session needs the person's yes; denied, nothing is read."""
    approver = ScriptedApprover(Decision.DENY)
    runtime = _runtime(scripted_server, tmp_path, approval=ApprovalPolicy())
    assert runtime.approval is not None
    runtime.approval.add_approver(approver)
    await _seed(runtime, "desktop:private", "My bank PIN hint", "Noted.")
    scripted_server.push(
        Reply(tool_calls=[("read_session", json.dumps({"session_key": "desktop:private"}))]),
        Reply("Could not."),
    )
    try:
        await runtime.agent.process_direct(
            "read it", session_key="telegram:7", channel="telegram", chat_id="7"
        )
    finally:
        await runtime.stop()
    assert approver.requests and "other chats" in approver.requests[0].reason
    (result,) = _tool_texts(scripted_server, 1)
    assert "PIN" not in result and "Denied" in result


async def test_no_reply_in_time_sends_a_notice_back(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """expect_reply with the shortest timeout (5 s, 0.3.5's floor): the target answers in its
    own chat but never writes back, so the sender's chat gets the notice as a new turn."""
    # The window is waited out in full: a hundredth of its real length (the notice still
    # names the 5 s the model asked for).
    monkeypatch.setattr(sessions_module, "REPLY_WINDOW_SCALE", 0.01)
    runtime = _runtime(scripted_server, tmp_path)
    await _seed(runtime, "desktop:quiet", "q", "a")
    await _seed(runtime, "desktop:asker", "q", "a")
    quiet = find_chat(runtime.sessions, "desktop:quiet")
    assert quiet is not None
    args = {"to": quiet.key, "content": "ping", "expect_reply": True, "reply_timeout_seconds": 5}
    scripted_server.push(
        Reply(tool_calls=[("send_session_message", json.dumps(args))]),
        Reply("Waiting."),
        Reply("No answer came."),
    )
    _route_by_message(scripted_server, ping=Reply("pong (here only)"))
    runtime.agent.start()
    try:
        await runtime.agent.process_direct(
            "ping it", session_key="desktop:asker", channel="desktop", chat_id="asker"
        )

        def noticed() -> bool:
            messages = runtime.sessions.get_or_create("desktop:asker").messages
            return any("No reply from chat" in str(m.get("content")) for m in messages)

        await until(noticed, timeout=30, what="the no-reply notice")
        await runtime.agent.idle()
    finally:
        await runtime.stop()


def test_handles_prefer_what_is_stored_and_never_collide(tmp_path: Path) -> None:
    """A handle nanobot stored wins; a second chat claiming the same name gets another."""
    from desktop.core.session.manager import SessionManager

    workspace = tmp_path / "ws"
    workspace.mkdir()
    sessions = SessionManager(workspace, config_dir=tmp_path / "cfg")
    for key in ("cli:a", "cli:b", "cli:c"):
        session = sessions.get_or_create(key)
        session.add_message("user", key)
        if key != "cli:c":
            session.metadata[HANDLE_KEY] = "bodami"
        sessions.save(session)
    sessions = SessionManager(workspace, config_dir=tmp_path / "cfg")  # read from disk
    chats = {c.key: c for c in list_chats(sessions)}
    names = [c.handle for c in chats.values()]
    assert len(set(names)) == 3 and "bodami" in names
    assert all(re.fullmatch(r"[a-z]{4,16}", n) for n in names)
    message = InboundMessage("cli", "u", "x", "y")
    assert message.session_key == "cli:x"


async def test_a_reply_cancels_the_no_reply_notice(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """A asks B and waits; B's turn writes back to A: A's wait is over (no notice comes)."""
    from desktop.core.tools.sessions import SendSessionMessageTool

    runtime = _runtime(scripted_server, tmp_path)
    await _seed(runtime, "desktop:bee", "q", "a")
    await _seed(runtime, "desktop:ay", "q", "a")
    ask = {
        "to": "desktop:bee",
        "content": "ping",
        "expect_reply": True,
        "reply_timeout_seconds": 60,
    }
    answer = {"to": "desktop:ay", "content": "pong", "expect_reply": False}
    scripted_server.push(
        Reply(tool_calls=[("send_session_message", json.dumps(ask))]), Reply("Asked.")
    )
    _route_by_message(
        scripted_server,
        ping=Reply(tool_calls=[("send_session_message", json.dumps(answer))]),  # B's turn
        pong=Reply("Got pong."),  # A's turn for B's message
    )
    tool = runtime.tools.get("send_session_message")
    assert isinstance(tool, SendSessionMessageTool)
    waits: list[Any] = []
    wait_for_reply = tool._wait_for_reply

    def spy(source: Any, target: Any, seconds: int) -> None:
        wait_for_reply(source, target, seconds)
        waits.append(tool._waiting.get((source.key, target.key)))

    tool._wait_for_reply = spy  # type: ignore[method-assign]
    runtime.agent.start()
    try:
        await runtime.agent.process_direct(
            "ask bee", session_key="desktop:ay", channel="desktop", chat_id="ay"
        )
        await until(lambda: len(scripted_server.chat_requests()) >= 5, what="both turns")
        await runtime.agent.idle()
        assert len(waits) == 1 and waits[0] is not None, "A waited for B"
        await until(waits[0].done, what="the wait to end")
        assert waits[0].cancelled() and tool._waiting == {}
    finally:
        await runtime.stop()
