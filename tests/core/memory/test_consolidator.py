"""Consolidator: token-budgeted archiving of old turns, through the real LiteLLM path."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from pathlib import Path
from typing import Any

from desktop.core.agent.context import ContextBuilder
from desktop.core.agent.loop import AgentLoop
from desktop.core.assembly import build_runtime, request_builder
from desktop.core.bus.queue import MessageBus
from desktop.core.config.schema import Config
from desktop.core.memory.consolidator import (
    Consolidator,
    choose_boundary,
    raw_archive,
    render_transcript,
)
from desktop.core.memory.store import MemoryStore
from desktop.core.memory.templates import sync_workspace_templates
from desktop.core.providers.tokens import count_messages, count_tools
from desktop.core.session.manager import Session, SessionManager
from desktop.core.tools.registry import ToolRegistry
from tests.core.agent.conftest import SlowRead, Timeline, make_provider, new_loop
from tests.fakes.openai_server import Fail, Recorded, Reply, ScriptedOpenAIServer, Stall

KEY = "cli:direct"
SUMMARY_MARK = "You archive an older part of a conversation"


# -- helpers ------------------------------------------------------------------------------
def is_summary(body: dict[str, Any]) -> bool:
    """Summary calls carry the consolidation prompt and no tools."""
    first = (body.get("messages") or [{}])[0]
    return "tools" not in body and SUMMARY_MARK in str(first.get("content"))


def summaries(server: ScriptedOpenAIServer) -> list[Recorded]:
    return [r for r in server.chat_requests() if is_summary(r.body)]


def chats(server: ScriptedOpenAIServer) -> list[Recorded]:
    return [r for r in server.chat_requests() if not is_summary(r.body)]


def route_summaries(server: ScriptedOpenAIServer, step: Any = None) -> None:
    """Answer summary calls with numbered bullets (or ``step``); chat calls use the script."""
    counter = iter(range(1, 1000))

    def route(body: dict[str, Any]) -> Any:
        if not is_summary(body):
            return None
        return (
            step
            if step is not None
            else Reply(f"- 2026-05-01: summary number {next(counter)} of the old turns")
        )

    server.route = route


def words(tag: str, n: int) -> str:
    return " ".join(f"{tag} detail {i} about the garden plan" for i in range(n))


def seed(session: Session, turns: int, *, size: int = 12, tool_turn: int | None = 2) -> None:
    """Fill ``session`` with ``turns`` completed turns (one with a tool exchange)."""
    for t in range(turns):
        stamp = f"2026-05-01T10:{t:02d}:00"
        session.messages.append(
            {"role": "user", "content": f"Turn {t}: " + words(f"u{t}", size), "timestamp": stamp}
        )
        if t == tool_turn:
            session.messages.append(
                {
                    "role": "assistant",
                    "content": "",
                    "timestamp": stamp,
                    "tool_calls": [
                        {
                            "id": f"c{t}",
                            "type": "function",
                            "function": {"name": "slow_read", "arguments": '{"n": 1}'},
                        }
                    ],
                }
            )
            session.messages.append(
                {
                    "role": "tool",
                    "tool_call_id": f"c{t}",
                    "name": "slow_read",
                    "content": words("tool", size),
                    "timestamp": stamp,
                }
            )
        session.messages.append(
            {
                "role": "assistant",
                "content": f"Answer {t}: " + words(f"a{t}", size),
                "timestamp": stamp,
            }
        )


def request_tokens(record: Recorded) -> int:
    return count_messages(record.body["messages"]) + count_tools(record.body.get("tools"))


async def drain(loop: AgentLoop) -> None:
    """Wait for the loop's background consolidations."""
    await loop.idle()


def memory_loop(
    server: ScriptedOpenAIServer, tmp_path: Path, **consolidator_options: Any
) -> tuple[AgentLoop, Consolidator]:
    """A loop with a small tool set, wired to a Consolidator the way the factory wires it."""
    workspace = tmp_path / "ws"
    config = Config.model_validate(
        {
            "agents": {
                "defaults": {
                    "workspace": str(workspace),
                    "contextWindowTokens": 4096,
                    "maxTokens": 512,
                }
            }
        }
    )
    sync_workspace_templates(workspace)
    tools = ToolRegistry()
    tools.register(SlowRead(Timeline(), seconds=0))
    provider = make_provider(server.url)
    context = ContextBuilder(workspace)
    sessions = SessionManager(workspace)
    consolidator = Consolidator(
        provider,
        MemoryStore(workspace),
        sessions,
        context_window=4096,
        max_tokens=512,
        build_request=request_builder(context, tools),
        **consolidator_options,
    )
    loop = new_loop(
        config, provider, MessageBus(), sessions, tools, context, consolidation=consolidator
    )
    return loop, consolidator


# -- pure parts ---------------------------------------------------------------------------
def _roles(spec: str) -> list[dict[str, Any]]:
    names = {"u": "user", "a": "assistant", "t": "tool"}
    return [{"role": names[c], "content": "x"} for c in spec]


def test_boundaries_are_user_turn_starts_only() -> None:
    """Ends fall on user messages after the start; the newest turn is never archived."""
    messages = _roles("uattauauatatau")

    def one(message: dict[str, Any]) -> int:
        return 1

    assert choose_boundary(messages, 0, needed=1, max_messages=60, cost=one) == 5
    assert choose_boundary(messages, 0, needed=8, max_messages=60, cost=one) == 13
    assert choose_boundary(messages, 0, needed=10**6, max_messages=60, cost=one) == 13
    assert choose_boundary(messages, 13, needed=10**6, max_messages=60, cost=one) is None
    assert choose_boundary(messages, 0, needed=10**6, max_messages=7, cost=one) == 7
    for end in range(len(messages)):
        got = choose_boundary(messages, end, needed=10**6, max_messages=60, cost=one)
        assert got is None or messages[got]["role"] == "user"


def test_a_turn_longer_than_the_cap_is_taken_whole() -> None:
    """Boundaries never fall inside a turn, so an oversized first turn goes in one piece."""
    messages = _roles("u" + "at" * 40 + "a" + "ua" + "u")
    assert choose_boundary(messages, 0, needed=10**6, max_messages=60, cost=lambda m: 1) == 82


def test_transcript_is_compact_and_raw_archive_is_marked() -> None:
    """One line per message with time and role; long tool output is clipped."""
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "Where is my config?", "timestamp": "2026-05-01T10:00:00.123"},
        {
            "role": "assistant",
            "content": "",
            "timestamp": "2026-05-01T10:00:05",
            "tool_calls": [
                {
                    "id": "c",
                    "type": "function",
                    "function": {"name": "glob", "arguments": '{"pattern": "**/*.json"}'},
                }
            ],
        },
        {"role": "tool", "name": "glob", "tool_call_id": "c", "content": "x" * 5000},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "and this?"},
                {"type": "image_url", "image_url": {}},
            ],
        },
    ]
    text = render_transcript(messages)
    lines = text.splitlines()
    assert lines[0] == "[2026-05-01 10:00] USER: Where is my config?"
    assert lines[1] == '[2026-05-01 10:00] ASSISTANT: [called glob({"pattern": "**/*.json"})]'
    assert (
        lines[2].startswith("[?] TOOL glob: xxx")
        and "more chars]" in lines[2]
        and len(lines[2]) < 700
    )
    assert lines[3] == "[?] USER: and this? [image_url]"
    raw = raw_archive(messages)
    assert raw.startswith("[RAW] 4 messages\n[2026-05-01 10:00] USER: Where is my config?")


# -- scenarios on the scripted server -----------------------------------------------------
async def test_session_over_budget_is_consolidated_before_the_turn(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Old turns are summarised at user-turn boundaries; the next request fits the budget."""
    route_summaries(scripted_server)
    scripted_server.push(Reply("Fresh answer."))
    loop, consolidator = memory_loop(scripted_server, tmp_path)
    session = loop.sessions.get_or_create(KEY)
    seed(session, 40, size=4)  # 82 messages: more than one 60-message round
    loop.sessions.save(session)
    before = consolidator.estimate(session)
    assert before > consolidator.budget == 4096 - 512 - 1024

    assert await loop.process_direct("What should I plant next?") == "Fresh answer."

    # Summaries were requested and archived, one history entry each, in order.
    asked = summaries(scripted_server)
    assert 2 <= len(asked) <= 5
    entries = MemoryStore(tmp_path / "ws").entries()
    assert [e.content for e in entries] == [
        f"- 2026-05-01: summary number {i} of the old turns" for i in range(1, len(asked) + 1)
    ]
    first_transcript = asked[0].body["messages"][1]["content"]
    assert "[2026-05-01 10:00] USER: Turn 0:" in first_transcript
    assert "[called slow_read(" in first_transcript  # the tool exchange went in whole
    assert asked[0].body["max_tokens"] <= 512
    for record in asked:  # each round: at most 60 messages, whole turns
        lines = record.body["messages"][1]["content"].splitlines()
        assert len(lines) <= 60 and "] USER: Turn " in lines[0]
        assert request_tokens(record) <= consolidator.budget

    # last_consolidated advanced to the start of a user turn, and was saved.
    reloaded = SessionManager(tmp_path / "ws").get_or_create(KEY)
    assert reloaded.last_consolidated > 0
    assert reloaded.messages[reloaded.last_consolidated]["role"] == "user"
    assert reloaded.messages[-2]["content"] == "What should I plant next?"

    # The chat request fits the budget, starts with a user turn, and carries the summaries.
    (chat,) = chats(scripted_server)
    assert request_tokens(chat) <= consolidator.budget
    assert request_tokens(chat) < before
    sent = chat.body["messages"]
    assert sent[1]["role"] == "user" and "Turn 0:" not in json.dumps(sent)
    assert "# Recent History" in sent[0]["content"] and "summary number 1" in sent[0]["content"]
    assert sent[-1]["content"].endswith("What should I plant next?")

    await drain(loop)
    await loop.stop()


async def test_rounds_are_bounded(scripted_server: ScriptedOpenAIServer, tmp_path: Path) -> None:
    """With tiny rounds, at most ``max_rounds`` summaries are made per consolidation."""
    route_summaries(scripted_server)
    loop, consolidator = memory_loop(
        scripted_server, tmp_path, max_rounds=3, max_messages_per_round=2
    )
    session = loop.sessions.get_or_create(KEY)
    seed(session, 12, tool_turn=None)
    assert await consolidator.maybe_consolidate(session) is True
    assert len(summaries(scripted_server)) == 3
    assert session.last_consolidated == 6  # three rounds of one two-message turn each
    assert [e.cursor for e in consolidator.store.entries()] == [1, 2, 3]


async def test_under_budget_does_nothing(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """A small session makes no summary call and keeps last_consolidated."""
    loop, consolidator = memory_loop(scripted_server, tmp_path)
    session = loop.sessions.get_or_create(KEY)
    seed(session, 2)
    assert await consolidator.maybe_consolidate(session) is False
    assert scripted_server.chat_requests() == []
    assert session.last_consolidated == 0


async def test_failed_summary_archives_raw(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """A 400 from the summary call archives the messages verbatim with a [RAW] marker."""
    route_summaries(
        scripted_server, Fail(400, "context too long", error_type="invalid_request_error")
    )
    scripted_server.push(Reply("Still here."))
    loop, consolidator = memory_loop(scripted_server, tmp_path)
    session = loop.sessions.get_or_create(KEY)
    seed(session, 12)
    loop.sessions.save(session)

    assert await loop.process_direct("next") == "Still here."

    entries = consolidator.store.entries()
    assert entries and all(e.content.startswith("[RAW] ") for e in entries)
    assert "USER: Turn 0: u0 detail 0 about the garden plan" in entries[0].content
    assert "ASSISTANT: Answer 0:" in entries[0].content
    assert session.last_consolidated > 0
    archived = sum(int(e.content.split()[1]) for e in entries)
    assert archived == session.last_consolidated  # every archived message is in a RAW entry
    assert chats(scripted_server)[0].body["messages"][1]["role"] == "user"
    await drain(loop)
    await loop.stop()


async def test_background_consolidation_does_not_delay_the_reply(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """A turn that pushes the session over budget gets its reply first; archiving follows."""
    route_summaries(scripted_server, Stall(1.0, Reply("- 2026-05-01: slow summary")))
    loop, consolidator = memory_loop(scripted_server, tmp_path)
    session = loop.sessions.get_or_create(KEY)
    seed(session, 6)
    loop.sessions.save(session)
    assert consolidator.estimate(session) < consolidator.budget
    scripted_server.push(Reply("Long answer: " + words("long", 60)))

    answer = await loop.process_direct("tell me everything")
    assert answer.startswith("Long answer:")
    # The reply came back while the (1 s) summary was still being written: not waited for.
    assert session.last_consolidated == 0 and loop.background
    assert consolidator.store.entries() == []

    await drain(loop)
    assert session.last_consolidated > 0
    assert consolidator.store.entries()[0].content == "- 2026-05-01: slow summary"
    left = session.messages[session.last_consolidated :]
    assert (
        consolidator.estimate(session) <= consolidator.target
        or len(summaries(scripted_server)) == 5
        or [m["role"] for m in left].count("user") == 1  # only the newest turn is left
    )
    await loop.stop()


async def test_one_consolidation_per_session_at_a_time(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Two concurrent requests for one session: the second waits and finds nothing left to do."""
    route_summaries(scripted_server, Stall(0.3, Reply("- 2026-05-01: done")))
    loop, consolidator = memory_loop(scripted_server, tmp_path)
    session = loop.sessions.get_or_create(KEY)
    seed(session, 12)
    first, second = await asyncio.gather(
        consolidator.maybe_consolidate(session), consolidator.maybe_consolidate(session)
    )
    assert (first, second) == (True, False)
    asked = summaries(scripted_server)
    assert all(b.at - a.at >= 0.25 for a, b in itertools.pairwise(asked))  # never two at once
    cursors = [e.cursor for e in consolidator.store.entries()]
    assert cursors == list(range(1, len(asked) + 1))


async def test_stop_cancels_a_background_consolidation(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """The loop owns its background task: stop() cancels it, leaving the session consistent."""
    route_summaries(scripted_server, Stall(30, Reply("- never")))
    loop, consolidator = memory_loop(scripted_server, tmp_path)
    session = loop.sessions.get_or_create(KEY)
    seed(session, 6)
    scripted_server.push(Reply("Long answer: " + words("long", 60)))
    await loop.process_direct("go")
    while not summaries(scripted_server):
        await asyncio.sleep(0.02)
    task = next(iter(loop.background))
    started = time.monotonic()
    await loop.stop()
    assert task.cancelled() and time.monotonic() - started < 5
    assert session.last_consolidated == 0 and consolidator.store.entries() == []


async def test_new_archives_the_unconsolidated_tail(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """/new (factory wiring) summarises everything after last_consolidated, then clears."""
    route_summaries(scripted_server)
    workspace = tmp_path / "ws"
    config = Config.model_validate({"agents": {"defaults": {"workspace": str(workspace)}}})
    loop = build_runtime(config, make_provider(scripted_server.url)).agent
    assert (workspace / "SOUL.md").is_file() and (workspace / "memory" / "history.jsonl").is_file()
    session = loop.sessions.get_or_create(KEY)
    seed(session, 4)
    session.last_consolidated = 2  # the first turn (user, assistant) was archived earlier
    loop.sessions.save(session)

    reply = await loop.process_direct("/new")
    assert "New conversation started" in reply
    (asked,) = summaries(scripted_server)
    transcript = asked.body["messages"][1]["content"]
    assert "Turn 0:" not in transcript and "Turn 1:" in transcript and "Turn 3:" in transcript
    entries = MemoryStore(workspace).entries()
    assert [e.content for e in entries] == ["- 2026-05-01: summary number 1 of the old turns"]
    reloaded = SessionManager(workspace).get_or_create(KEY)
    assert reloaded.messages == [] and reloaded.last_consolidated == 0
    await loop.stop()


async def test_new_with_failing_model_still_archives(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """/new never loses the tail: a failed summary becomes a [RAW] entry."""
    route_summaries(scripted_server, Fail(500, "down"))
    loop, consolidator = memory_loop(scripted_server, tmp_path)
    session = loop.sessions.get_or_create(KEY)
    seed(session, 2, tool_turn=None)
    await loop.process_direct("/new")
    (entry,) = consolidator.store.entries()
    assert entry.content.startswith("[RAW] 4 messages\n")
    assert "Answer 1:" in entry.content
    assert session.messages == []


async def test_huge_tool_output_keeps_the_summary_request_in_budget(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Transcripts are clipped so the summary call itself fits the window."""
    route_summaries(scripted_server)
    loop, consolidator = memory_loop(scripted_server, tmp_path)
    session = loop.sessions.get_or_create(KEY)
    seed(session, 40, size=4, tool_turn=1)
    session.messages[3]["content"] = "y " * 40_000  # the tool result of turn 1
    await consolidator.maybe_consolidate(session)
    asked = summaries(scripted_server)
    assert asked and all(request_tokens(r) <= consolidator.budget for r in asked)


async def test_legacy_last_consolidated_inside_a_turn(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """A nanobot session whose last_consolidated points mid-turn is archived up to a user turn."""
    route_summaries(scripted_server)
    loop, consolidator = memory_loop(scripted_server, tmp_path)
    session = loop.sessions.get_or_create(KEY)
    seed(session, 12, tool_turn=0)
    session.last_consolidated = 2  # the tool result of turn 0
    await consolidator.maybe_consolidate(session)
    assert session.messages[session.last_consolidated]["role"] == "user"
    first = summaries(scripted_server)[0].body["messages"][1]["content"]
    assert first.startswith("[2026-05-01 10:00] TOOL slow_read:")


async def test_archive_now_keeps_the_chat_and_skips_a_turn_waiting_for_retry(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """The window's "Archive into memory now" (and its /new): the messages not yet in memory
    are summarised into history.jsonl by the real summary call; the chat keeps every message;
    a second archive finds nothing new; a turn waiting for Retry stays out of memory."""
    route_summaries(scripted_server)
    workspace = tmp_path / "ws"
    config = Config.model_validate({"agents": {"defaults": {"workspace": str(workspace)}}})
    loop = build_runtime(config, make_provider(scripted_server.url)).agent
    session = loop.sessions.get_or_create(KEY)
    seed(session, 3, tool_turn=None)
    session.begin_turn("Turn 3: the failed one")  # pending: its model call failed
    loop.sessions.save(session)
    total = len(session.messages)
    try:
        assert await loop.archive_session(KEY) == total - 1
        assert await loop.archive_session(KEY) == 0, "nothing new: no second summary"
    finally:
        await loop.stop()
    (asked,) = summaries(scripted_server)
    transcript = asked.body["messages"][1]["content"]
    assert "Turn 0:" in transcript and "Turn 2:" in transcript and "failed one" not in transcript
    entries = MemoryStore(workspace).entries()
    assert [e.content for e in entries] == ["- 2026-05-01: summary number 1 of the old turns"]
    reloaded = SessionManager(workspace).get_or_create(KEY)
    assert len(reloaded.messages) == total and reloaded.last_consolidated == total - 1
    assert reloaded.has_pending_turn, "Retry still finds its turn"
