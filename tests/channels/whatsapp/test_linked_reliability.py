"""The linked-device channel's approvals in the chat and its restart without duplicate answers
(a real runtime; neonize's real event types; a fake at its client boundary)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from desktop.core.agent.approval import ApprovalPolicy
from desktop.core.runtime import Runtime
from tests.channels.whatsapp.conftest import journal, until, user_text
from tests.channels.whatsapp.neonize_fake import FakeWhatsApp, install, message
from tests.channels.whatsapp.test_linked import ALICE_JID, channel_api, start
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


@pytest.fixture
def whatsapp(monkeypatch: pytest.MonkeyPatch) -> FakeWhatsApp:
    world = FakeWhatsApp()
    install(monkeypatch, world)
    return world


async def test_an_approval_is_asked_and_answered_in_the_chat(
    whatsapp: FakeWhatsApp, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    command = {"command": "echo approved-by-alice"}
    scripted_server.push(Reply(tool_calls=[("exec", json.dumps(command))]), Reply("Done."))
    runtime = await start(tmp_path, scripted_server, approval=ApprovalPolicy())
    kind = channel_api().message
    try:
        await whatsapp.client.fire(kind, message("run the echo", msg_id="q1"))
        await until(lambda: any("exec" in t for t in whatsapp.texts()), what="the question")
        assert 'Reply "allow"' in whatsapp.texts()[-1]
        assert {s.to for s in whatsapp.sent} == {ALICE_JID}
        await whatsapp.client.fire(kind, message("allow", msg_id="q2"))
        await until(lambda: whatsapp.texts()[-1:] == ["Done."], what="the final answer")
    finally:
        await runtime.stop()
    requests = scripted_server.chat_requests()
    assert len(requests) == 2, "the keyword reply started no turn of its own"
    assert "approved-by-alice" in json.dumps(requests[1].body["messages"])


def _dispatches(runtime: Runtime) -> int:
    key = f"whatsapp:{ALICE_JID}"
    return sum(1 for t in runtime.agent.background if f"dispatch:{key}" in t.get_name())


async def test_a_received_but_unanswered_message_is_answered_once_after_a_restart(
    whatsapp: FakeWhatsApp, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    gate = threading.Event()

    def route(body: dict[str, Any]) -> Reply:
        text = user_text(body)
        if text == "busy":
            gate.wait(30)
        return Reply(f"echo: {text}")

    scripted_server.route = route
    kind = channel_api().message
    first = await start(tmp_path, scripted_server)
    try:
        await whatsapp.client.fire(kind, message("busy", msg_id="b1"))
        await until(lambda: scripted_server.chat_requests(), what="the first turn at the model")
        await whatsapp.client.fire(kind, message("queued", msg_id="b2"))
        await until(lambda: _dispatches(first) == 2, what="the queued message waits its turn")
        assert [e["content"] for e in journal(tmp_path)] == ["queued"]
    finally:
        await first.stop()  # the app ends before the queued message's turn
        gate.set()
    second = await start(tmp_path, scripted_server)
    try:
        await until(lambda: "echo: queued" in whatsapp.texts(), what="answered after restart")
        await until(lambda: journal(tmp_path) == [], what="the journal emptied")
        await whatsapp.client.fire(kind, message("queued", msg_id="b2"))  # delivered again
        await until(lambda: second.bus.inbound.empty(), what="the agent took what was sent")
        await second.agent.idle()
    finally:
        await second.stop()
    asked = [user_text(r.body) for r in scripted_server.chat_requests()]
    assert asked.count("queued") == 1 and whatsapp.texts().count("echo: queued") == 1
