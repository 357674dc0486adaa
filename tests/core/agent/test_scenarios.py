"""Whole-agent scenarios with the real tool set (build_runtime) on the scripted server."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from desktop.core.assembly import build_runtime
from desktop.core.bus.events import InboundMessage, RunEvent, ToolCallFinished, ToolCallStarted
from desktop.core.config.schema import Config
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


def _config(tmp_path: Path, **tools: Any) -> Config:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    return Config.model_validate(
        {"agents": {"defaults": {"workspace": str(workspace)}}, "tools": tools}
    )


def _last_user_text(body: dict[str, Any]) -> str:
    content = body["messages"][-1]["content"]
    return content if isinstance(content, str) else json.dumps(content)


async def test_exec_never_overlaps_and_reads_do(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Real tools: two read_file calls overlap in time; exec overlaps nothing."""
    config = _config(tmp_path)
    big = config.workspace_path / "big.txt"
    big.write_text("x\n" * 400_000)
    scripted_server.push(
        Reply(
            tool_calls=[
                ("grep", '{"pattern": "y", "path": "."}'),
                ("read_file", '{"path": "big.txt", "limit": 5}'),
                ("exec", '{"command": "sleep 0.3; echo done"}'),
                ("list_dir", "{}"),
            ]
        ),
        Reply("Finished."),
    )
    runtime = build_runtime(config, make_provider(scripted_server.url))
    loop = runtime.agent
    spans: dict[str, list[float]] = {}

    def record(event: RunEvent) -> None:
        if isinstance(event, ToolCallStarted):
            spans[event.name] = [time.monotonic()]
        elif isinstance(event, ToolCallFinished):
            spans[event.name].append(time.monotonic())
            assert event.ok, event.result_preview

    loop.bus.subscribe(record)
    try:
        assert await loop.process_direct("go") == "Finished."
    finally:
        await runtime.stop()
    (gs, ge), (rs, re_), (xs, xe), (ls, _le) = (
        spans[n] for n in ("grep", "read_file", "exec", "list_dir")
    )
    assert gs < re_ and rs < ge, "the two read-only calls ran together"
    assert xs >= max(ge, re_) and ls >= xe, "exec ran alone, in order"
    results = [
        m for m in scripted_server.chat_requests()[1].body["messages"] if m["role"] == "tool"
    ]
    assert "done" in results[2]["content"]


async def test_message_tool_answer_is_not_sent_twice(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """A turn that answered through `message` does not also send its final text."""
    scripted_server.push(
        Reply(tool_calls=[("message", '{"content": "Here you go: 42"}')]), Reply("Sent.")
    )
    runtime = build_runtime(_config(tmp_path), make_provider(scripted_server.url))
    loop = runtime.agent
    await loop.dispatch(InboundMessage("telegram", "u1", "chat9", "what is the answer?"))
    sent = loop.bus.outbound.get_nowait()
    assert (sent.channel, sent.chat_id, sent.content) == ("telegram", "chat9", "Here you go: 42")
    assert loop.bus.outbound.empty()
    await runtime.stop()


async def test_subagent_round_trip(scripted_server: ScriptedOpenAIServer, tmp_path: Path) -> None:
    """spawn → the subagent works with its own tools → its report is summarised in the origin chat."""
    config = _config(tmp_path)
    (config.workspace_path / "notes.txt").write_text("alpha\nbeta\n")

    def route(body: dict[str, Any]) -> Reply | None:
        system = body["messages"][0]["content"]
        last = _last_user_text(body)
        tools = {t["function"]["name"] for t in body.get("tools", [])}
        if "background worker" in system:  # the subagent
            assert "spawn" not in tools and "message" not in tools and "read_file" in tools
            if body["messages"][-1]["role"] == "user":
                return Reply(tool_calls=[("read_file", '{"path": "notes.txt"}')])
            return Reply("notes.txt has 2 lines: alpha, beta.")
        if "Background task" in last:
            return Reply("Your background count finished: notes.txt has 2 lines.")
        if body["messages"][-1]["role"] == "user":
            return Reply(
                tool_calls=[
                    ("spawn", '{"task": "Count the lines of notes.txt", "label": "count lines"}')
                ]
            )
        return Reply("I started a background task.")

    scripted_server.route = route
    runtime = build_runtime(config, make_provider(scripted_server.url))
    loop = runtime.agent
    loop.start()
    try:
        await loop.bus.publish_inbound(
            InboundMessage("telegram", "u1", "c1", "count lines in the background")
        )
        first = await asyncio.wait_for(loop.bus.consume_outbound(), 60)
        assert first.content == "I started a background task."
        summary = await asyncio.wait_for(loop.bus.consume_outbound(), 60)
        assert (summary.channel, summary.chat_id) == ("telegram", "c1")
        assert summary.content == "Your background count finished: notes.txt has 2 lines."
    finally:
        await runtime.stop()
    session = loop.sessions.get_or_create("telegram:c1")
    reports = [m for m in session.messages if m.get("subagent")]
    assert len(reports) == 1 and "notes.txt has 2 lines: alpha, beta." in reports[0]["content"]


async def test_mcp_tool_in_a_turn(scripted_server: ScriptedOpenAIServer, tmp_path: Path) -> None:
    """An MCP tool of the official time server, called by the model inside a turn."""
    config = _config(
        tmp_path,
        mcpServers={"time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]}},
    )
    scripted_server.push(
        Reply(tool_calls=[("mcp_time_get_current_time", '{"timezone": "Asia/Tokyo"}')]),
        Reply("It is evening in Tokyo."),
    )
    runtime = build_runtime(config, make_provider(scripted_server.url))
    loop = runtime.agent
    try:
        assert await loop.process_direct("time in Tokyo?") == "It is evening in Tokyo."
        first, second = (r.body for r in scripted_server.chat_requests())
        names = [t["function"]["name"] for t in first["tools"]]
        assert names[-2:] == [
            "mcp_time_convert_time",
            "mcp_time_get_current_time",
        ]  # after builtins
        result = next(m for m in second["messages"] if m["role"] == "tool")
        assert "Asia/Tokyo" in result["content"] and "+09:00" in result["content"]
    finally:
        await runtime.stop()
    assert runtime.mcp.statuses()  # closed cleanly; statuses still readable


async def test_subagent_limit_and_stop(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """At most N subagents run at once; /stop in the origin chat cancels them."""
    from desktop.core.tools.base import ToolContext

    scripted_server.default = Reply("slow", delay=5.0, chunk=1)  # subagents stream forever-ish
    config = _config(tmp_path)
    config.agents.defaults.max_concurrent_subagents = 2
    runtime = build_runtime(config, make_provider(scripted_server.url))
    loop = runtime.agent
    ctx = ToolContext(workspace=config.workspace_path, session_key="cli:direct")
    try:
        await runtime.subagents.spawn("one", "one", ctx)
        await runtime.subagents.spawn("two", "two", ctx)
        result = await loop.tools.execute("spawn", {"task": "three"}, ctx)
        assert result.is_error and "limit 2" in result.text
        assert await loop.process_direct("/stop") == "Stopped."
        assert runtime.subagents.running == {}
    finally:
        await runtime.stop()
