"""AgentLoop + AgentRunner scenarios against the scripted server (real LiteLLM path)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from desktop.core.providers.base import LLMError
from desktop.core.session.manager import SessionManager
from desktop.core.session.repair import INTERRUPTED_NOTE, INTERRUPTED_RESULT
from tests.core.agent.conftest import MakeLoop, Timeline
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


def _overlap(a: tuple[str, float, float], b: tuple[str, float, float]) -> bool:
    return a[1] < b[2] and b[1] < a[2]


def _check_invariants(messages: list[dict[str, Any]]) -> None:
    """Every tool_call_id has exactly one result, right after its assistant message."""
    for i, message in enumerate(messages):
        if message.get("role") == "assistant" and message.get("tool_calls"):
            ids = [c["id"] for c in message["tool_calls"]]
            following = []
            for later in messages[i + 1 :]:
                if later.get("role") != "tool":
                    break
                following.append(later["tool_call_id"])
            assert sorted(following) == sorted(ids)
    results = [m["tool_call_id"] for m in messages if m.get("role") == "tool"]
    assert len(results) == len(set(results))


async def test_batches_overlap_read_only_and_isolate_exclusive(
    make_loop: MakeLoop, scripted_server: ScriptedOpenAIServer, timeline: Timeline
) -> None:
    """Two read-only calls overlap; the exclusive call overlaps nothing; order is kept."""
    scripted_server.push(
        Reply(
            tool_calls=[
                ("slow_read", '{"n": 1}'),
                ("slow_read", '{"n": "2"}'),
                ("exclusive_op", "{}"),
                ("slow_read", '{"n": 3}'),
            ]
        ),
        Reply("All done."),
    )
    loop = make_loop()
    answer = await loop.process_direct("do things")
    assert answer == "All done."
    spans = {name: (name, s, e) for name, s, e in timeline.spans}
    assert _overlap(spans["slow_read:1"], spans["slow_read:2"])
    for name in ("slow_read:1", "slow_read:2", "slow_read:3"):
        assert not _overlap(spans["exclusive_op:0"], spans[name])
    assert spans["exclusive_op:0"][1] >= max(spans["slow_read:1"][2], spans["slow_read:2"][2])
    assert spans["slow_read:3"][1] >= spans["exclusive_op:0"][2]
    second = scripted_server.chat_requests()[1].body["messages"]
    tool_results = [m for m in second if m["role"] == "tool"]
    assert [m["content"] for m in tool_results] == ["read 1", "read 2", "read 0", "read 3"]
    session = loop.sessions.get_or_create("cli:direct")
    _check_invariants(session.messages)
    assert not session.has_pending_turn


async def test_max_iterations(make_loop: MakeLoop, scripted_server: ScriptedOpenAIServer) -> None:
    """A model that never stops calling tools is cut off with a clear answer."""
    scripted_server.default = Reply(tool_calls=[("slow_read", '{"n": 1}')])
    loop = make_loop(maxToolIterations=3)
    answer = await loop.process_direct("loop forever")
    assert "maximum number of tool call iterations (3)" in answer
    assert len(scripted_server.chat_requests()) == 3
    _check_invariants(loop.sessions.get_or_create("cli:direct").messages)


async def test_empty_reply_retry_then_no_tools_answer(
    make_loop: MakeLoop, scripted_server: ScriptedOpenAIServer
) -> None:
    """Empty → retry → no-tools 'answer now' call."""
    scripted_server.push(Reply(""), Reply(""), Reply("Best answer."))
    answer = await make_loop().process_direct("hi")
    assert answer == "Best answer."
    requests = scripted_server.chat_requests()
    assert len(requests) == 3
    assert "tools" in requests[1].body and "tools" not in requests[2].body
    assert "Stop using tools" in requests[2].body["messages"][-1]["content"]


async def test_empty_reply_fails_the_turn_and_saves_no_fake_answer(
    make_loop: MakeLoop, scripted_server: ScriptedOpenAIServer
) -> None:
    """Three empty replies fail the turn with a clear message (a banner with Retry); no
    explanation is saved into the history as if the model had said it."""
    scripted_server.default = Reply("")
    loop = make_loop()
    events: list[Any] = []
    loop.bus.subscribe(events.append)
    with pytest.raises(LLMError) as caught:
        await loop.process_direct("hi")
    assert caught.value.kind == "empty_reply" and "no answer" in caught.value.message
    assert len(scripted_server.chat_requests()) == 3
    session = loop.sessions.get_or_create("cli:direct")
    assert [m["role"] for m in session.messages] == ["user"] and session.has_pending_turn
    reloaded = SessionManager(loop.sessions.workspace).get_or_create("cli:direct")
    assert [m["role"] for m in reloaded.messages] == ["user"]
    ends = [e for e in events if e.kind in ("turn_finished", "turn_stopped", "turn_failed")]
    assert [e.kind for e in ends] == ["turn_failed"] and ends[0].error_kind == "empty_reply"


async def test_length_continues(make_loop: MakeLoop, scripted_server: ScriptedOpenAIServer) -> None:
    """finish_reason=length asks for the rest and joins the parts."""
    scripted_server.push(Reply("First half, ", finish_reason="length"), Reply("second half."))
    answer = await make_loop().process_direct("long please")
    assert answer == "First half, second half."


async def test_stop_during_a_long_tool(
    make_loop: MakeLoop, scripted_server: ScriptedOpenAIServer, timeline: Timeline
) -> None:
    """/stop cancels the tool; the session is repaired; the next turn works."""
    scripted_server.push(Reply(tool_calls=[("forever", "{}")]), Reply("after stop"))
    loop = make_loop()
    turn = asyncio.create_task(loop.process_direct("start"))
    await asyncio.wait_for(timeline.started.wait(), 20)
    assert await loop.process_direct("/stop") == "Stopped."
    assert await asyncio.wait_for(turn, 10) == "Stopped."
    session = SessionManager(loop.sessions.workspace).get_or_create("cli:direct")  # from disk
    roles = [m["role"] for m in session.messages]
    assert roles == ["user", "assistant", "tool", "assistant"]
    assert session.messages[2]["content"] == INTERRUPTED_RESULT
    assert session.messages[3]["content"] == INTERRUPTED_NOTE
    assert not session.has_pending_turn
    assert await loop.process_direct("again") == "after stop"


async def test_unknown_command_is_not_a_model_call(
    make_loop: MakeLoop, scripted_server: ScriptedOpenAIServer
) -> None:
    """/x gets help; /help and /status answer locally; a path is not a command."""
    loop = make_loop()
    assert "Unknown command /frobnicate" in await loop.process_direct("/frobnicate now")
    assert "/stop" in await loop.process_direct("/help")
    status = await loop.process_direct("/status")
    assert "Model: openai/scripted" in status and "Messages: 0" in status
    assert scripted_server.chat_requests() == []
    await loop.process_direct("/etc/hosts is a path")
    assert len(scripted_server.chat_requests()) == 1


async def test_new_archives_and_starts_fresh(
    make_loop: MakeLoop, scripted_server: ScriptedOpenAIServer
) -> None:
    """/new hands the old session to the archiver and empties it."""
    archived: list[int] = []

    class Archiver:
        async def maybe_consolidate(self, session: Any) -> bool:
            return False

        async def archive_all(self, session: Any) -> None:
            archived.append(len(session.messages))

    loop = make_loop(consolidation=Archiver())
    await loop.process_direct("remember this")
    reply = await loop.process_direct("/new")
    assert archived == [2] and "New conversation" in reply
    assert loop.sessions.get_or_create("cli:direct").messages == []
    name = loop.sessions.path_for("cli:direct").name
    kept = list(loop.sessions.directory.glob(f"{name}.archived-*"))
    assert len(kept) == 1 and "remember this" in kept[0].read_text()


async def test_request_shape(make_loop: MakeLoop, scripted_server: ScriptedOpenAIServer) -> None:
    """System prompt stable between turns; runtime block on the current message only."""
    loop = make_loop()
    await loop.process_direct("one")
    await loop.process_direct("two")
    first, second = (r.body for r in scripted_server.chat_requests())
    assert first["messages"][0] == second["messages"][0]
    assert first["tools"] == second["tools"]
    assert [t["function"]["name"] for t in first["tools"]] == [
        "exclusive_op",
        "forever",
        "slow_read",
    ]
    current = second["messages"][-1]["content"]
    assert current.startswith(
        "[Runtime Context — metadata only, not instructions]"
    ) and current.endswith("two")
    assert second["messages"][1] == {"role": "user", "content": "one"}
    saved = [
        json.loads(ln) for ln in loop.sessions.path_for("cli:direct").read_text().splitlines()[1:]
    ]
    assert saved[0]["content"] == "one"


async def test_reused_call_ids_get_ids_unique_in_the_whole_chat(
    make_loop: MakeLoop, scripted_server: ScriptedOpenAIServer
) -> None:
    """The server says ``call_0`` in every turn; the loop renames a repeated id, and the new
    id is not one an earlier turn already got (providers reject repeated tool-call ids)."""
    loop = make_loop()
    for n in range(3):
        scripted_server.push(Reply(tool_calls=[("slow_read", json.dumps({"n": n}))]), Reply("ok"))
        assert await loop.process_direct(f"read {n}") == "ok"
    messages = loop.sessions.get_or_create("cli:direct").messages
    _check_invariants(messages)
    ids = [c["id"] for m in messages for c in m.get("tool_calls") or []]
    assert len(ids) == 3 and len(set(ids)) == 3 and ids[0] == "call_0"
    last_request = scripted_server.chat_requests()[-1].body["messages"]
    sent = [
        c["id"] for m in last_request if m["role"] == "assistant" for c in m.get("tool_calls") or []
    ]
    assert sorted(sent) == sorted(ids)


async def test_the_context_figure_is_the_servers_count_and_needs_no_encoding(
    make_loop: MakeLoop, scripted_server: ScriptedOpenAIServer
) -> None:
    """A turn far below its budget is sent whole without loading tiktoken's encoding (≈45 MB):
    the context size shown for it is the prompt tokens the server reported; a server that
    reports no usage gets our estimate."""
    from desktop.core.providers import tokens

    tokens._encoding.cache_clear()
    scripted_server.push(Reply("First.", usage=(1234, 5)))
    loop = make_loop()
    assert await loop.process_direct("hi") == "First."
    assert loop._stats["cli:direct"].last_context_tokens == 1234
    assert tokens._encoding.cache_info().currsize == 0  # never loaded

    scripted_server.push(Reply("Second.", usage=(0, 0)))
    assert await loop.process_direct("again") == "Second."
    estimate = loop._stats["cli:direct"].last_context_tokens
    assert 0 < estimate < 1234
