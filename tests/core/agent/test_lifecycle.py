"""Every turn emits one complete lifecycle; stops keep their text; cut-off answers are not saved.

The real runtime (``build_runtime``) on the scripted server, driven through the bus the way
the window and the chat channels drive it.
"""

from __future__ import annotations

import asyncio
import errno
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from desktop.core.assembly import build_runtime
from desktop.core.bus.events import (
    InboundMessage,
    RunEvent,
    TextDelta,
    TurnFailed,
    TurnStarted,
    TurnStopped,
)
from desktop.core.config.schema import Config
from desktop.core.cron.types import CronPayload, CronSchedule
from desktop.core.runtime import Runtime
from desktop.core.session.manager import Session, SessionManager
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import Fail, Reply, ScriptedOpenAIServer
from tests.waiting import until

ENDS = ("turn_finished", "turn_stopped", "turn_failed")


def _runtime(server: ScriptedOpenAIServer, tmp_path: Path) -> Runtime:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    config = Config.model_validate({"agents": {"defaults": {"workspace": str(workspace)}}})
    return build_runtime(config, make_provider(server.url))


def _record(runtime: Runtime) -> list[RunEvent]:
    events: list[RunEvent] = []
    runtime.bus.subscribe(events.append)
    return events


def check_lifecycles(events: list[RunEvent]) -> dict[str, list[RunEvent]]:
    """Each turn: TurnStarted first, exactly one end last, in-turn events in between."""
    turns: dict[str, list[RunEvent]] = defaultdict(list)
    for event in events:
        turn_id = getattr(event, "turn_id", None)
        if turn_id is not None:
            turns[turn_id].append(event)
    for turn_id, seen in turns.items():
        assert isinstance(seen[0], TurnStarted), (turn_id, seen[0])
        ends = [e for e in seen if e.kind in ENDS]
        assert len(ends) == 1 and seen[-1] is ends[0], (turn_id, [e.kind for e in seen])
        assert all(getattr(e, "session_key", None) == seen[0].session_key for e in seen)
    return turns


async def test_every_source_emits_one_complete_lifecycle(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """A desktop message, a chat-network message, a failure, a /stop, a cron job and a
    subagent report: one TurnStarted and exactly one end each, with the same turn id."""
    runtime = _runtime(scripted_server, tmp_path)
    events = _record(runtime)
    runtime.agent.start()
    try:
        scripted_server.push(Reply("Hello desktop."))
        await runtime.bus.publish_inbound(InboundMessage("desktop", "me", "a", "hi"))
        await until(lambda: sum(e.kind in ENDS for e in events) == 1)

        scripted_server.push(Reply("Hello telegram."))
        await runtime.bus.publish_inbound(InboundMessage("telegram", "42", "42", "hi"))
        await until(lambda: sum(e.kind in ENDS for e in events) == 2)
        sent = await asyncio.wait_for(runtime.bus.consume_outbound(), 30)
        assert (sent.channel, sent.content) == ("telegram", "Hello telegram.")

        scripted_server.push(Fail(401, "bad key"))
        await runtime.bus.publish_inbound(InboundMessage("desktop", "me", "b", "fail please"))
        await until(lambda: sum(e.kind in ENDS for e in events) == 3)

        # stalls after a few chunks, so /stop always lands mid-stream (a stream that merely
        # trickles can be read to its end first on a loaded machine: CI saw that)
        scripted_server.push(Reply("slow " * 400, chunk=2, stall_after=8, stall_for=60))
        await runtime.bus.publish_inbound(InboundMessage("desktop", "me", "c", "talk long"))
        await until(
            lambda: any(isinstance(e, TextDelta) and e.session_key == "desktop:c" for e in events)
        )
        await runtime.bus.publish_inbound(InboundMessage("desktop", "me", "c", "/stop"))
        await until(lambda: sum(e.kind in ENDS for e in events) == 4)

        payload = CronPayload(
            message="Stretch", session_key="desktop:d", origin_channel="desktop", origin_chat_id="d"
        )
        job = await asyncio.to_thread(
            runtime.cron.add_job, "stretch", CronSchedule("every", every_ms=3_600_000), payload
        )
        scripted_server.push(Reply("Time to stretch!"))
        await runtime.cron.run_now(job.id)

        main = [
            Reply(tool_calls=[("spawn", json.dumps({"task": "say done", "label": "job"}))]),
            Reply("Started."),
            Reply("The job is done."),  # the report turn
        ]
        scripted_server.route = lambda body: (
            Reply("done")
            if "background worker" in str(body["messages"][0].get("content"))
            else main.pop(0)
        )
        await runtime.bus.publish_inbound(InboundMessage("desktop", "me", "e", "background"))
        await until(lambda: sum(e.kind in ENDS for e in events) == 7)
    finally:
        await runtime.stop()
    turns = check_lifecycles(events)
    summary = sorted(
        (seq[0].source, seq[0].session_key, seq[-1].kind)  # type: ignore[union-attr]
        for seq in turns.values()
    )
    assert summary == [
        ("cron", "desktop:d", "turn_finished"),
        ("message", "desktop:a", "turn_finished"),
        ("message", "desktop:b", "turn_failed"),
        ("message", "desktop:c", "turn_stopped"),
        ("message", "desktop:e", "turn_finished"),
        ("message", "telegram:42", "turn_finished"),
        ("subagent", "desktop:e", "turn_finished"),
    ]
    starts = [s[0] for s in turns.values() if isinstance(s[0], TurnStarted)]  # all (checked)
    cron_start = next(start for start in starts if start.source == "cron")
    assert cron_start.content == "Stretch" and cron_start.label == "stretch"


async def test_a_stopped_answer_keeps_its_text_after_a_restart(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Stop mid-stream: the streamed text is the turn's answer on disk (marked stopped), it is
    what TurnStopped carries, and the next request shows it to the model."""
    runtime = _runtime(scripted_server, tmp_path)
    events = _record(runtime)
    # The stream stalls after a few pieces, so the stop surely lands mid-answer.
    scripted_server.push(
        Reply("The first part of a long story " * 50, chunk=3, stall_after=8, stall_for=60)
    )
    turn = asyncio.ensure_future(
        runtime.agent.process_direct("tell me a story", session_key="desktop:s", channel="desktop")
    )
    await until(lambda: sum(isinstance(e, TextDelta) for e in events) >= 5)
    assert await runtime.agent.stop_session("desktop:s") == "Stopped."
    assert await turn == "Stopped."
    [stopped] = [e for e in events if isinstance(e, TurnStopped)]
    assert stopped.partial.startswith("The first part") and len(stopped.partial) >= 15

    reloaded = SessionManager(runtime.config.workspace_path).get_or_create("desktop:s")
    assert [m["role"] for m in reloaded.messages] == ["user", "assistant"]
    assert reloaded.messages[-1]["content"] == stopped.partial
    assert reloaded.messages[-1]["stopped"] is True and not reloaded.has_pending_turn

    scripted_server.push(Reply("Continuing."))
    await runtime.agent.process_direct("go on", session_key="desktop:s", channel="desktop")
    sent = scripted_server.chat_requests()[-1].body["messages"]
    assert {"role": "assistant", "content": stopped.partial} in [
        {k: m.get(k) for k in ("role", "content")} for m in sent
    ]
    await runtime.stop()


async def test_a_cut_off_answer_fails_the_turn_and_is_not_saved(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Every attempt ends mid-answer without a finish reason: the turn fails (Retry), the cut
    text is not in the history, and Retry then gets the whole answer."""
    runtime = _runtime(scripted_server, tmp_path)
    events = _record(runtime)
    for _ in range(2):  # the test provider retries once
        scripted_server.push(Reply("Half of the ans", close_after=3))
    turn = await runtime.agent.run_turn(
        InboundMessage("desktop", "me", "t", "question", session_key_override="desktop:t")
    )
    assert turn.status == "failed" and turn.error is not None
    assert turn.error.kind == "connection"
    [failed] = [e for e in events if isinstance(e, TurnFailed)]
    assert failed.pending and "before the answer was complete" in failed.message
    session = SessionManager(runtime.config.workspace_path).get_or_create("desktop:t")
    assert [m["role"] for m in session.messages] == ["user"] and session.has_pending_turn
    assert not any("Half" in str(m.get("content")) for m in session.messages)
    retry = await asyncio.to_thread(runtime.sessions.get_or_create, "desktop:t")
    pending = retry.take_pending_turn()
    assert pending is not None and pending["content"] == "question"
    scripted_server.push(Reply("The whole answer."))
    again = await runtime.agent.run_turn(
        InboundMessage("desktop", "me", "t", pending["content"], session_key_override="desktop:t")
    )
    assert again.status == "finished" and again.content == "The whole answer."
    await runtime.stop()


async def test_messages_for_a_busy_session_queue_in_order(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Three messages sent at once to one chat are answered one after the other, in order,
    each exactly once."""
    runtime = _runtime(scripted_server, tmp_path)
    events = _record(runtime)

    def route(body: dict[str, Any]) -> Reply:
        last = str(body["messages"][-1]["content"])
        number = last.rsplit("message ", 1)[-1][:1]
        return Reply(f"answer {number}", delay=0.02, chunk=2)

    scripted_server.route = route
    runtime.agent.start()
    try:
        for n in (1, 2, 3):
            await runtime.bus.publish_inbound(InboundMessage("desktop", "me", "q", f"message {n}"))
        await until(lambda: sum(e.kind == "turn_finished" for e in events) == 3)
    finally:
        await runtime.stop()
    turns = check_lifecycles(events)
    order = [seq[0].content for seq in turns.values()]  # type: ignore[union-attr]
    assert order == ["message 1", "message 2", "message 3"]
    answers = [seq[-1].content for seq in turns.values()]  # type: ignore[union-attr]
    assert answers == ["answer 1", "answer 2", "answer 3"]
    starts = [i for i, e in enumerate(events) if e.kind == "turn_started"]
    ends = [i for i, e in enumerate(events) if e.kind == "turn_finished"]
    assert starts[1] > ends[0] and starts[2] > ends[1], "one turn at a time per session"


async def test_a_failed_checkpoint_save_fails_the_turn_and_keeps_the_message(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disk refuses the save of the model's tool call (a checkpoint): the turn fails at
    once with a "could not be saved" error (Retry), the tool does not run, the user message
    stays saved and pending, and Retry works once the disk takes writes again."""
    runtime = _runtime(scripted_server, tmp_path)
    events = _record(runtime)
    sessions = runtime.sessions
    real_save = sessions.save

    def save(session: Session) -> Path:
        if any(m.get("tool_calls") for m in session.messages):  # the checkpoint's save
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_save(session)

    monkeypatch.setattr(sessions, "save", save)
    note = {"path": "note.txt", "content": "written"}
    scripted_server.push(Reply(tool_calls=[("write_file", json.dumps(note))]))
    turn = await runtime.agent.run_turn(
        InboundMessage("desktop", "me", "c", "question", session_key_override="desktop:c")
    )
    assert turn.status == "failed" and turn.error is not None
    assert turn.error.kind == "storage"
    [failed] = [e for e in events if isinstance(e, TurnFailed)]
    assert failed.pending and failed.error_kind == "storage"
    assert "could not be saved (No space left on device)" in failed.message
    assert "Your message is kept" in failed.message
    assert not (runtime.config.workspace_path / "note.txt").exists()  # no tool ran
    assert len(scripted_server.chat_requests()) == 1
    on_disk = SessionManager(runtime.config.workspace_path).get_or_create("desktop:c")
    assert [m["role"] for m in on_disk.messages] == ["user"] and on_disk.has_pending_turn

    monkeypatch.setattr(sessions, "save", real_save)
    retry = await asyncio.to_thread(sessions.get_or_create, "desktop:c")
    pending = retry.take_pending_turn()
    assert pending is not None and pending["content"] == "question"
    scripted_server.push(Reply(tool_calls=[("write_file", json.dumps(note))]))
    scripted_server.push(Reply("Saved the note."))
    again = await runtime.agent.run_turn(
        InboundMessage("desktop", "me", "c", pending["content"], session_key_override="desktop:c")
    )
    assert again.status == "finished" and again.content == "Saved the note."
    assert (runtime.config.workspace_path / "note.txt").read_text() == "written"
    reloaded = SessionManager(runtime.config.workspace_path).get_or_create("desktop:c")
    assert [m["role"] for m in reloaded.messages] == ["user", "assistant", "tool", "assistant"]
    await runtime.stop()


async def test_a_cancel_while_a_stopped_turn_is_saved_waits_for_the_save(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A turn cancelled mid-answer (a shutdown) saves what it streamed; a second cancel while
    that save runs does not leave the save behind, unowned: the turn's task ends after it."""
    import threading

    runtime = _runtime(scripted_server, tmp_path)
    events = _record(runtime)
    scripted_server.push(
        Reply("The first part of a long story " * 50, chunk=3, stall_after=8, stall_for=60)
    )
    sessions = runtime.agent.sessions
    plain_save = sessions.save
    saving, release = threading.Event(), threading.Event()
    hold = threading.Event()  # set once the turn is cancelled: the next save waits

    def save(session: Session) -> None:
        if hold.is_set():
            saving.set()
            assert release.wait(30), "the test never released the save"
        plain_save(session)

    monkeypatch.setattr(sessions, "save", save)
    turn = asyncio.ensure_future(
        runtime.agent.process_direct("tell me a story", session_key="desktop:s", channel="desktop")
    )
    await until(lambda: sum(isinstance(e, TextDelta) for e in events) >= 5)
    hold.set()
    turn.cancel()  # the shutdown's cancel
    await until(saving.is_set)
    turn.cancel()  # and another while the stopped turn is being saved
    await asyncio.sleep(0.3)
    assert not turn.done(), "the turn ended while its save was still running"
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await turn
    reloaded = SessionManager(runtime.config.workspace_path).get_or_create("desktop:s")
    assert reloaded.messages[-1]["role"] == "assistant"
    assert reloaded.messages[-1]["stopped"] is True
    assert reloaded.messages[-1]["content"].startswith("The first part")
    await runtime.stop()
