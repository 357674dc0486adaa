"""Steering (issue #25 §2): what the person sends while a turn runs is taken in at the turn's
next step — after the tool round it arrives in, or, when it arrives while the final answer is
written, by going on with another model call — as a user message the model sees and the
session keeps; a ``GuidanceTaken`` event says when, inside the turn's one lifecycle. Guidance
can be taken back until then; none is accepted by a chat with no running turn or one whose
answer is saved.

The real runtime (``build_runtime``) on the scripted model server through the real LiteLLM
path; guidance is sent from a bus listener at a named moment of the turn (events are delivered
in order, synchronously), so nothing depends on timing.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from desktop.core.bus.events import (
    GuidanceTaken,
    InboundMessage,
    RunEvent,
    TextDelta,
    ToolCallStarted,
    TurnFinished,
)
from desktop.core.session.manager import SessionManager
from tests.core.agent.test_lifecycle import _record, _runtime, check_lifecycles
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.waiting import until

KEY = "desktop:steer"


def _message(text: str) -> InboundMessage:
    return InboundMessage("desktop", "user", "steer", text, session_key_override=KEY)


def _user_texts(body: dict[str, object]) -> list[str]:
    messages = body["messages"]
    assert isinstance(messages, list)
    return [str(m.get("content")) for m in messages if m.get("role") == "user"]


async def test_guidance_sent_during_a_tool_round_reaches_the_next_model_call(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = _runtime(scripted_server, tmp_path)
    events = _record(runtime)
    accepted: list[str | None] = []

    def steer_on_tool(event: RunEvent) -> None:
        if isinstance(event, ToolCallStarted):
            accepted.append(runtime.agent.steer(KEY, "Only look at the docs folder.", "g1"))

    runtime.bus.subscribe(steer_on_tool)
    scripted_server.push(
        Reply(tool_calls=[("list_dir", '{"path": "."}')]),
        Reply("Looked at the docs folder only."),
    )
    runtime.agent.start()
    try:
        await runtime.bus.publish_inbound(_message("What is in this workspace?"))
        await until(lambda: any(isinstance(e, TurnFinished) for e in events))
    finally:
        await runtime.stop()
    assert accepted == ["g1"]
    requests = scripted_server.chat_requests()
    assert len(requests) == 2
    first, second = (_user_texts(r.body) for r in requests)
    assert "Only look at the docs folder." not in " ".join(first)
    assert second[-1] == "Only look at the docs folder."  # after the tool result, as the person's
    roles = [m["role"] for m in requests[1].body["messages"]][-3:]
    assert roles == ["assistant", "tool", "user"]
    turns = check_lifecycles(events)
    (seen,) = turns.values()
    taken = [e for e in seen if isinstance(e, GuidanceTaken)]
    assert [(t.ids, t.texts) for t in taken] == [(("g1",), ("Only look at the docs folder.",))]
    assert (
        isinstance(seen[-1], TurnFinished) and seen[-1].content == "Looked at the docs folder only."
    )
    sessions = SessionManager(runtime.config.workspace_path)
    saved = sessions.get_or_create(KEY).messages
    assert [m["role"] for m in saved] == ["user", "assistant", "tool", "user", "assistant"]
    assert saved[3]["content"] == "Only look at the docs folder."


async def test_guidance_sent_while_the_answer_is_written_makes_the_turn_go_on(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = _runtime(scripted_server, tmp_path)
    events = _record(runtime)

    sent: list[str | None] = []

    def steer_on_first_text(event: RunEvent) -> None:
        if isinstance(event, TextDelta) and not sent:  # once, while the first answer streams
            sent.append(runtime.agent.steer(KEY, "Make it shorter.", "g2"))

    runtime.bus.subscribe(steer_on_first_text)
    scripted_server.push(Reply("A long answer about everything."), Reply("Short."))
    runtime.agent.start()
    try:
        await runtime.bus.publish_inbound(_message("Tell me about it."))
        await until(lambda: any(isinstance(e, TurnFinished) for e in events))
    finally:
        await runtime.stop()
    assert sent == ["g2"]
    requests = scripted_server.chat_requests()
    assert len(requests) == 2
    tail = requests[1].body["messages"][-2:]
    assert tail == [
        {"role": "assistant", "content": "A long answer about everything."},
        {"role": "user", "content": "Make it shorter."},
    ]
    (seen,) = check_lifecycles(events).values()
    assert isinstance(seen[-1], TurnFinished) and seen[-1].content == "Short."
    assert sum(isinstance(e, GuidanceTaken) for e in seen) == 1


async def test_guidance_can_be_taken_back_and_is_refused_without_a_running_turn(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = _runtime(scripted_server, tmp_path)
    events = _record(runtime)
    assert runtime.agent.steer(KEY, "nobody is running", "g0") is None
    withdrawn: list[str | None] = []

    def steer_then_withdraw(event: RunEvent) -> None:
        if isinstance(event, ToolCallStarted):
            runtime.agent.steer(KEY, "never mind", "g3")
            withdrawn.append(runtime.agent.withdraw_guidance(KEY, "g3"))
            withdrawn.append(runtime.agent.withdraw_guidance(KEY, "g3"))  # gone already

    runtime.bus.subscribe(steer_then_withdraw)
    scripted_server.push(Reply(tool_calls=[("list_dir", '{"path": "."}')]), Reply("Done."))
    runtime.agent.start()
    try:
        await runtime.bus.publish_inbound(_message("List it."))
        await until(lambda: any(isinstance(e, TurnFinished) for e in events))
        await asyncio.sleep(0)
        assert runtime.agent.steer(KEY, "too late", "g4") is None  # the turn has ended
    finally:
        await runtime.stop()
    assert withdrawn == ["never mind", None]
    assert not any(isinstance(e, GuidanceTaken) for e in events)
    assert all(
        "never mind" not in " ".join(_user_texts(r.body)) for r in scripted_server.chat_requests()
    )
