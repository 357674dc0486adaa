"""A chat's rounds and compactions read back from the usage ledger (the context view's data)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from desktop.core.assembly import build_runtime
from desktop.core.bus.events import InboundMessage
from desktop.core.config.schema import Config
from desktop.core.usage.record import UsageRecord
from desktop.core.usage.rounds import (
    Compaction,
    Round,
    load_session_context,
    session_context,
)
from tests.core.agent.conftest import make_provider
from tests.core.usage.helpers import place_of
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


def _record(
    t: float, source: str, prompt: int, session: str = "desktop:a", **kw: Any
) -> UsageRecord:
    return UsageRecord(
        time=t,
        source=source,
        model="m",
        prompt_tokens=prompt,
        completion_tokens=1,
        session=session,
        **kw,
    )


def test_summary_calls_in_a_row_are_one_compaction_and_other_work_is_left_out() -> None:
    """Consolidation calls with no round between them are one compaction; subagent, title and
    other sessions' calls are not rounds of this chat's context."""
    records = [
        _record(5, "chat", 300, cached_tokens=200),
        _record(1, "chat", 100),
        _record(6, "consolidation", 50),
        _record(7, "consolidation", 40),
        _record(8, "subagent", 999),
        _record(9, "title", 999),
        _record(10, "chat", 120, session="desktop:b"),
        _record(11, "chat", 80, cached_tokens=500),  # more cached than sent: clamped
    ]
    context = session_context(records, "desktop:a")
    assert [r.prompt_tokens for r in context.rounds] == [100, 300, 80]
    assert [r.cached_tokens for r in context.rounds] == [0, 200, 80]
    assert context.compactions == (Compaction(6, 2, 2, 50 + 1 + 40 + 1),)
    assert context.cached_reported


async def test_the_ledger_gives_each_round_as_the_server_reported_it_and_marks_compact(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Real turns through LiteLLM: every round's input, output and cached tokens are what the
    server sent, and ``/compact`` shows as a compaction between the rounds around it."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    config = Config.model_validate({"agents": {"defaults": {"workspace": str(workspace)}}})
    scripted_server.push(
        Reply(tool_calls=[("list_dir", "{}")], usage=(1200, 40), cached=0),
        Reply("Two files.", usage=(1400, 25), cached=1024),
        Reply("Porto it is.", usage=(1600, 30), cached=1280),
        Reply("- Listed files; chose Porto.", usage=(900, 60)),  # the /compact summary
        Reply("Hello again.", usage=(700, 12), cached=512),
    )
    runtime = build_runtime(config, make_provider(scripted_server.url))
    loop = runtime.agent
    loop.start()
    try:
        async with asyncio.timeout(60):
            for text, answer in [
                ("what is here?", "Two files."),
                ("pick a city", "Porto it is."),
                ("/compact", "Context compacted."),
                ("hi", "Hello again."),
            ]:
                await loop.bus.publish_inbound(InboundMessage("telegram", "u1", "c1", text))
                while (reply := await loop.bus.consume_outbound()).metadata.get("progress"):
                    pass
                assert reply.content == answer
        context = await asyncio.to_thread(load_session_context, place_of(config), "telegram:c1")
    finally:
        await runtime.stop()
    assert [(r.prompt_tokens, r.completion_tokens, r.cached_tokens) for r in context.rounds] == [
        (1200, 40, 0),
        (1400, 25, 1024),
        (1600, 30, 1280),
        (700, 12, 512),
    ]
    assert all(isinstance(r, Round) and r.outcome == "ok" for r in context.rounds)
    assert [(c.after, c.calls, c.tokens) for c in context.compactions] == [(3, 1, 960)]
