"""``/compact``, idle compaction and ``unifiedSession`` on a real runtime (real LiteLLM path,
scripted model server); the session file in nanobot 0.3.5's shape.

Idle compaction runs on an injected clock: the tests move it on, they never wait minutes.
"""

from __future__ import annotations

import asyncio
import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from desktop.core.agent.idle_compaction import IdleClock
from desktop.core.assembly import build_runtime, config_dir
from desktop.core.bus.events import InboundMessage, OutboundMessage
from desktop.core.config.schema import Config
from desktop.core.memory.store import MemoryStore
from desktop.core.runtime import Runtime
from desktop.core.session.compaction import CONTINUATION_TEXT, HIDDEN_KEY, SUMMARY_KEY
from desktop.core.session.manager import SessionManager
from desktop.core.session.unified import UNIFIED_SESSION_KEY
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.waiting import until

KEY = "desktop:trip"


class FakeClock:
    """Wall time that moves only when the test says; ``sleep`` waits for it."""

    def __init__(self) -> None:
        self.now = datetime.now()
        self._moved: list[asyncio.Event] = []
        self.sleepers = 0

    def time(self) -> datetime:
        return self.now

    async def sleep(self, seconds: float) -> None:
        target = self.now + timedelta(seconds=seconds)
        self.sleepers += 1
        try:
            while self.now < target:
                moved = asyncio.Event()
                self._moved.append(moved)
                await moved.wait()
        finally:
            self.sleepers -= 1

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)
        moved, self._moved = self._moved, []
        for event in moved:
            event.set()

    def idle_clock(self) -> IdleClock:
        return IdleClock(now=self.time, sleep=self.sleep)


def _config(server: ScriptedOpenAIServer, tmp_path: Path, **defaults: Any) -> Config:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    return Config.model_validate(
        {
            "agents": {"defaults": {"workspace": str(workspace), **defaults}},
            "providers": {"custom": {"apiBase": server.url}},
        }
    )


def _runtime(
    server: ScriptedOpenAIServer, tmp_path: Path, clock: FakeClock | None = None, **defaults: Any
) -> Runtime:
    return build_runtime(
        _config(server, tmp_path, **defaults),
        make_provider(server.url),
        idle_clock=clock.idle_clock() if clock else None,
    )


def _file(runtime: Runtime, key: str) -> list[dict[str, Any]]:
    path = runtime.sessions.path_for(key)
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


async def _turn(runtime: Runtime, text: str, key: str = KEY) -> None:
    """A window turn (its answer is the next scripted reply)."""
    message = InboundMessage("desktop", "me", key.split(":", 1)[1], text, session_key_override=key)
    await runtime.agent.run_turn(message)


async def _command(runtime: Runtime, text: str, key: str = KEY) -> OutboundMessage:
    message = InboundMessage("desktop", "me", key.split(":", 1)[1], text, session_key_override=key)
    await runtime.agent.dispatch(message)
    return await runtime.bus.consume_outbound()


async def test_compact_replaces_the_old_turns_with_a_summary_checkpoint(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Two turns, then /compact: one summary call; the file keeps every message and gets the
    hidden checkpoint after them, ``_last_summary`` and ``last_consolidated`` at the
    checkpoint; the summary is in history.jsonl; the next request sends the summary and the
    checkpoint instead of the old turns."""
    runtime = _runtime(scripted_server, tmp_path)
    try:
        scripted_server.push(Reply("Visit Ribeira."), Reply("Try francesinha."))
        await _turn(runtime, "Plan a day in Porto.")
        await _turn(runtime, "And dinner?")
        scripted_server.push(Reply("- Planned a Porto day: Ribeira, francesinha for dinner."))
        reply = await _command(runtime, "/compact")
        assert reply.content == "Context compacted."
        assert reply.metadata["command"] == "/compact"
        summary_call = scripted_server.chat_requests()[-1].body["messages"]
        assert "Plan a day in Porto." in summary_call[-1]["content"]

        lines = _file(runtime, KEY)
        header, messages = lines[0], lines[1:]
        assert [m["content"] for m in messages] == [
            "Plan a day in Porto.",
            "Visit Ribeira.",
            "And dinner?",
            "Try francesinha.",
            CONTINUATION_TEXT,
        ]
        assert messages[-1]["role"] == "user" and messages[-1][HIDDEN_KEY] is True
        assert header["last_consolidated"] == 4
        stored = header["metadata"][SUMMARY_KEY]
        assert stored["text"] == "- Planned a Porto day: Ribeira, francesinha for dinner."
        assert datetime.fromisoformat(stored["last_active"])
        history = MemoryStore(runtime.config.workspace_path).entries_after(0)
        assert history[-1].content == stored["text"]

        scripted_server.push(Reply("Sure."))
        await _turn(runtime, "What about Sunday?")
        sent = scripted_server.chat_requests()[-1].body["messages"]
        assert "Ribeira, francesinha" in sent[0]["content"]  # the summary, in the system prompt
        assert "Plan a day in Porto." not in json.dumps(sent)
        assert [m["role"] for m in sent[1:]] == ["user", "user"]
        assert sent[1]["content"] == CONTINUATION_TEXT
        assert "What about Sunday?" in sent[2]["content"]
    finally:
        await runtime.stop()


async def test_the_summary_stays_in_the_prompt_after_dream_took_it_from_history(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Once Dream has consumed the history entry, ``# Recent History`` no longer shows the
    summary: the system prompt's ``[Archived Context Summary]`` (nanobot's section) does;
    while Recent History shows it whole, it is not repeated."""
    runtime = _runtime(scripted_server, tmp_path)
    try:
        scripted_server.push(Reply("Ok."), Reply("- DOOR-SUMMARY: the blue door."))
        await _turn(runtime, "Remember the blue door.")
        await _command(runtime, "/compact")
        scripted_server.push(Reply("Yes."), Reply("Blue."))
        await _turn(runtime, "Still there?")
        system = scripted_server.chat_requests()[-1].body["messages"][0]["content"]
        assert system.count("DOOR-SUMMARY") == 1 and "[Archived Context Summary]" not in system
        store = MemoryStore(runtime.config.workspace_path)
        store.dream_cursor = store.last_cursor  # Dream has distilled it
        await _turn(runtime, "Which door?")
        system = scripted_server.chat_requests()[-1].body["messages"][0]["content"]
        assert "[Archived Context Summary]" in system
        assert "DOOR-SUMMARY: the blue door." in system
    finally:
        await runtime.stop()


async def test_compact_with_nothing_new_says_so_without_a_model_call(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """A chat with nothing since its last checkpoint is left as it is."""
    runtime = _runtime(scripted_server, tmp_path)
    try:
        reply = await _command(runtime, "/compact")
        assert reply.content == "Nothing to compact yet."
        scripted_server.push(Reply("Hi."), Reply("- Said hi."))
        await _turn(runtime, "Hello")
        assert (await _command(runtime, "/compact")).content == "Context compacted."
        calls = len(scripted_server.chat_requests())
        assert (await _command(runtime, "/compact")).content == "Nothing to compact yet."
        assert len(scripted_server.chat_requests()) == calls
        assert [m["content"] for m in _file(runtime, KEY)[1:]].count(CONTINUATION_TEXT) == 1
    finally:
        await runtime.stop()


async def test_a_second_compaction_takes_in_the_first_summary(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """The previous summary goes into the next summary call; the new one replaces it."""
    runtime = _runtime(scripted_server, tmp_path)
    try:
        scripted_server.push(Reply("Ok."), Reply("- FIRST-SUMMARY"))
        await _turn(runtime, "Remember the blue door.")
        await _command(runtime, "/compact")
        scripted_server.push(Reply("Fine."), Reply("- SECOND-SUMMARY"))
        await _turn(runtime, "And the red key.")
        assert (await _command(runtime, "/compact")).content == "Context compacted."
        transcript = scripted_server.chat_requests()[-1].body["messages"][-1]["content"]
        assert "FIRST-SUMMARY" in transcript and "And the red key." in transcript
        assert CONTINUATION_TEXT not in transcript  # the checkpoint is not conversation
        assert "Remember the blue door." not in transcript  # already summarised
        header = _file(runtime, KEY)[0]
        assert header["metadata"][SUMMARY_KEY]["text"] == "- SECOND-SUMMARY"
        assert header["last_consolidated"] == 5
    finally:
        await runtime.stop()


async def test_an_idle_chat_is_compacted_after_the_configured_minutes(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """idleCompactAfterMinutes=15: nothing at 14 minutes, compacted after 15; no timer is
    left once nothing waits."""
    clock = FakeClock()
    runtime = _runtime(scripted_server, tmp_path, clock, idleCompactAfterMinutes=15)
    idle = runtime.idle
    assert idle is not None
    await runtime.start()
    try:
        scripted_server.push(Reply("Visit Ribeira."))
        await _turn(runtime, "Plan a day in Porto.")
        await until(lambda: KEY in idle.waiting and clock.sleepers == 1, what="the timer")
        calls = len(scripted_server.chat_requests())
        clock.advance(minutes=14)
        await until(lambda: clock.sleepers == 1, what="the timer sleeping on")
        assert idle.compacted == [] and len(scripted_server.chat_requests()) == calls

        scripted_server.push(Reply("- Planned a Porto day."))
        clock.advance(minutes=2)
        await until(lambda: idle.compacted == [KEY], what="the idle compaction")
        header, *messages = _file(runtime, KEY)
        assert messages[-1]["content"] == CONTINUATION_TEXT
        assert header["metadata"][SUMMARY_KEY]["text"] == "- Planned a Porto day."
        await until(lambda: clock.sleepers == 0, what="the timer to end")
        assert idle.waiting == {}
    finally:
        await runtime.stop()


async def test_a_session_idle_before_start_is_compacted_at_start(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """A session another program left an hour ago is found in the files and compacted; one
    with nothing new is not, nor one idle for days (a finished chat): one model call."""
    config = _config(scripted_server, tmp_path, idleCompactAfterMinutes=15)
    sessions = SessionManager(config.workspace_path, config_dir=config_dir(config))
    hour_ago = datetime.now() - timedelta(hours=1)
    old = sessions.get_or_create("telegram:42")
    old.add_message("user", "Book the train.")
    old.add_message("assistant", "Booked for 9:10.")
    old.updated_at = hour_ago
    sessions.save(old)
    finished = sessions.get_or_create("telegram:44")
    finished.add_message("user", "Last year's question.")
    finished.updated_at = datetime.now() - timedelta(days=2)
    sessions.save(finished)
    empty = sessions.get_or_create("telegram:43")
    empty.updated_at = hour_ago
    sessions.save(empty)
    clock = FakeClock()
    runtime = build_runtime(
        config, make_provider(scripted_server.url), idle_clock=clock.idle_clock()
    )
    assert runtime.idle is not None
    idle = runtime.idle
    scripted_server.push(Reply("- Booked the 9:10 train."))
    await runtime.start()
    try:
        await until(lambda: idle.compacted == ["telegram:42"], what="the compaction")
        await until(lambda: not idle.waiting and clock.sleepers == 0, what="nothing left")
        assert len(scripted_server.chat_requests()) == 1
        header = _file(runtime, "telegram:42")[0]
        assert header["metadata"][SUMMARY_KEY]["text"] == "- Booked the 9:10 train."
    finally:
        await runtime.stop()


async def test_idle_compaction_off_arms_nothing(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """idleCompactAfterMinutes=0 (nanobot's "disabled"): no scan, no timer."""
    clock = FakeClock()
    runtime = _runtime(scripted_server, tmp_path, clock, idleCompactAfterMinutes=0)
    assert runtime.idle is not None
    await runtime.start()
    try:
        scripted_server.push(Reply("Hi."))
        await _turn(runtime, "Hello")
        assert runtime.idle.waiting == {} and clock.sleepers == 0
    finally:
        await runtime.stop()


async def test_unified_session_puts_every_channel_in_one_session(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """unifiedSession: a Telegram and a Slack message continue one session
    (``unified:default``); each answer goes back where its message came from, the session
    remembers the last channel; a window chat stays its own."""
    runtime = _runtime(scripted_server, tmp_path, unifiedSession=True)
    try:
        scripted_server.push(Reply("Noted: blue."), Reply("You said blue."), Reply("Hi."))
        await runtime.agent.dispatch(InboundMessage("telegram", "u1", "111", "My colour is blue."))
        first = await runtime.bus.consume_outbound()
        await runtime.agent.dispatch(InboundMessage("slack", "u1", "C9", "What is my colour?"))
        second = await runtime.bus.consume_outbound()
        assert (first.channel, first.chat_id, first.content) == ("telegram", "111", "Noted: blue.")
        assert (second.channel, second.chat_id, second.content) == ("slack", "C9", "You said blue.")
        sent = scripted_server.chat_requests()[-1].body["messages"]
        assert "My colour is blue." in json.dumps(sent)  # the Telegram turn, seen from Slack

        header, *messages = _file(runtime, UNIFIED_SESSION_KEY)
        assert header["key"] == UNIFIED_SESSION_KEY
        assert [m["content"] for m in messages] == [
            "My colour is blue.",
            "Noted: blue.",
            "What is my colour?",
            "You said blue.",
        ]
        assert header["metadata"]["last_channel"] == "slack:C9"
        assert not runtime.sessions.path_for("telegram:111").exists()

        await _turn(runtime, "Hello")
        assert len(_file(runtime, KEY)) == 3  # the window chat: its own file
        assert len(_file(runtime, UNIFIED_SESSION_KEY)) == 5
    finally:
        await runtime.stop()


def test_the_checkpoint_is_not_one_of_the_persons_messages() -> None:
    """Editing "the person's n-th message" (as the window counts its rows) skips the hidden
    checkpoint, as the window does."""
    from desktop.core.session.edits import find_person_message

    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "Plan a day in Porto."},
        {"role": "assistant", "content": "Visit Ribeira."},
        {"role": "user", "content": CONTINUATION_TEXT, HIDDEN_KEY: True},
        {"role": "user", "content": "And dinner?"},
        {"role": "assistant", "content": "Try francesinha."},
        {"role": "user", "content": "And dinner?"},
    ]
    assert find_person_message(messages, 1, "And dinner?") == 3
