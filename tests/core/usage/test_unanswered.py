"""Model calls that end without an answer are in the ledger too (real LiteLLM over HTTP to the
scripted server): a ``/stop`` mid-stream, a stream cut off on every attempt, a server that only
answers with errors; and the budgets and the runaway guard count what they cost."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from desktop.core.assembly import build_runtime
from desktop.core.bus.events import RunawayStopped, RunEvent, TextDelta, TurnStopped
from desktop.core.config.budgets import Budgets
from desktop.core.config.schema import Config
from desktop.core.providers.base import LLMError
from desktop.core.providers.switchable import usage_scope
from desktop.core.runtime import Runtime
from desktop.core.usage.governor import BudgetRefused
from desktop.core.usage.ledger import UsageLedger
from desktop.core.usage.record import UsageRecord
from tests.core.agent.conftest import make_provider
from tests.core.usage.helpers import records_of
from tests.fakes.openai_server import Fail, Reply, ScriptedOpenAIServer
from tests.waiting import until

LONG = "word " * 600  # streamed slowly: plenty of time to stop it halfway


def _runtime(
    tmp_path: Path, server: ScriptedOpenAIServer, budgets: dict[str, Any] | None = None
) -> tuple[Runtime, list[RunEvent]]:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    config = Config.model_validate(
        {"agents": {"defaults": {"workspace": str(workspace), "timezone": "UTC"}}}
    )
    runtime = build_runtime(
        config,
        make_provider(server.url),
        budgets=(lambda: Budgets.model_validate(budgets)) if budgets is not None else None,
    )
    events: list[RunEvent] = []
    runtime.bus.subscribe(events.append)
    return runtime, events


def _ledger(runtime: Runtime) -> UsageLedger:
    assert runtime.ledger is not None
    return runtime.ledger


def _records(runtime: Runtime) -> list[UsageRecord]:
    return records_of(_ledger(runtime).place)


async def _stopped_midstream(runtime: Runtime, events: list[RunEvent], key: str) -> None:
    """Start a chat turn, let it stream a little, then ``/stop`` it."""
    turn = asyncio.create_task(runtime.agent.process_direct("tell me a story", session_key=key))
    await until(lambda: sum(isinstance(e, TextDelta) for e in events) >= 5)
    assert await runtime.agent.run_command(key, _stop()) == "Stopped."
    assert await turn == "Stopped."
    assert any(isinstance(e, TurnStopped) for e in events)


def _stop() -> Any:
    from desktop.core.agent.commands import parse_command

    command = parse_command("/stop")
    assert command is not None
    return command


async def test_a_call_stopped_midstream_is_recorded_with_an_estimate(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.push(Reply(LONG, chunk=5, delay=0.02, usage=(999, 999)))
    runtime, events = _runtime(tmp_path, scripted_server)
    try:
        await _stopped_midstream(runtime, events, "cli:story")
    finally:
        await runtime.stop()
    [record] = _records(runtime)
    assert (record.source, record.session, record.outcome) == ("chat", "cli:story", "stopped")
    assert record.estimated, "the server never sent its usage: the tokens are estimated"
    streamed = sum(len(e.text) for e in events if isinstance(e, TextDelta))
    # The prompt (system prompt + message) and about what was streamed ("word " ≈ 1 token).
    assert record.prompt_tokens > 100
    assert 0.5 * streamed / 5 <= record.completion_tokens <= streamed / 5 + 5
    assert record.completion_tokens < 600, "only what was streamed before the stop"
    line = json.loads(next(_ledger(runtime).folder.glob("*.jsonl")).read_text())
    assert line["outcome"] == "stopped" and line["estimated"] is True


async def test_a_stream_cut_off_on_every_attempt_is_a_failed_call_with_both_attempts(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Both attempts (make_provider retries once) streamed part of an answer, then the
    connection was reset: each attempt's prompt and output count."""
    cut = Reply("word " * 40, chunk=5, reset_after=10)
    scripted_server.push(cut, cut)
    runtime, _events = _runtime(tmp_path, scripted_server)
    try:
        with pytest.raises(LLMError):
            await runtime.agent.process_direct("hello", session_key="cli:cut")
    finally:
        await runtime.stop()
    assert len(scripted_server.chat_requests()) == 2
    [record] = _records(runtime)
    assert (record.outcome, record.estimated, record.session) == ("failed", True, "cli:cut")
    one_prompt = record.prompt_tokens // 2
    assert one_prompt > 100 and record.prompt_tokens == 2 * one_prompt
    assert 10 <= record.completion_tokens <= 20  # ≈ 9 chunks of "word " per attempt


async def test_a_call_the_server_refused_is_recorded_with_zero_tokens(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.push(Fail(500), Fail(500))
    runtime, _events = _runtime(tmp_path, scripted_server)
    try:
        with pytest.raises(LLMError):
            await runtime.agent.process_direct("hello", session_key="cli:down")
    finally:
        await runtime.stop()
    [record] = _records(runtime)
    assert (record.outcome, record.tokens, record.estimated) == ("failed", 0, False)
    assert record.cost_usd == 0.0 and record.session == "cli:down"
    line = next(_ledger(runtime).folder.glob("*.jsonl")).read_text()
    assert '"estimated"' not in line  # only written when true


async def test_answered_calls_keep_their_line_as_before(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.push(Reply("Hi.", usage=(60, 40)))
    runtime, _events = _runtime(tmp_path, scripted_server)
    try:
        assert await runtime.agent.process_direct("hello") == "Hi."
    finally:
        await runtime.stop()
    line = json.loads(next(_ledger(runtime).folder.glob("*.jsonl")).read_text())
    assert "outcome" not in line and "estimated" not in line
    [record] = _records(runtime)
    assert (record.outcome, record.tokens, record.estimated) == ("ok", 100, False)


async def test_the_hard_cap_counts_a_stopped_call(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Chat with a hard cap of 100 tokens a day: a stopped answer's estimate passes it, so the
    next message is refused before any call (without the record it would go through)."""
    scripted_server.push(Reply(LONG, chunk=5, delay=0.02))
    budgets = {"sources": {"chat": {"dailyTokens": 100}}, "chatHardCap": True}
    runtime, events = _runtime(tmp_path, scripted_server, budgets)
    try:
        await _stopped_midstream(runtime, events, "cli:capped")
        with pytest.raises(BudgetRefused):
            await runtime.agent.process_direct("and again", session_key="cli:capped")
    finally:
        await runtime.stop()
    assert len(scripted_server.chat_requests()) == 1


async def test_the_runaway_guard_counts_failed_calls_of_a_run(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """A cron run whose first call failed after streaming a lot is already far past its usual
    size: its next call is refused as a runaway."""
    budgets = {"runawayMultiple": 3, "runawayMinTokens": 0}
    runtime, events = _runtime(tmp_path, scripted_server, budgets)
    _ledger(runtime).extend(
        UsageRecord(time=time.time() - 1, source="cron", model="m", prompt_tokens=50, run=f"e{i}")
        for i in range(3)
    )  # usual run: 50 tokens
    cut = Reply("word " * 400, chunk=20, reset_after=15)
    scripted_server.push(cut, cut)
    messages = [{"role": "user", "content": "summarize the news " * 50}]
    try:
        with usage_scope(source="cron", job="news", run="r1"):
            with pytest.raises(LLMError) as failed:
                await runtime.provider.chat_stream(messages)
            assert not isinstance(failed.value, BudgetRefused)
            with pytest.raises(BudgetRefused):
                await runtime.provider.chat_stream(messages)
    finally:
        await runtime.stop()
    assert len(scripted_server.chat_requests()) == 2  # the two attempts of the first call
    [stopped] = [e for e in events if isinstance(e, RunawayStopped)]
    assert stopped.run == "r1" and stopped.usual_tokens == 50 and stopped.tokens > 150
    [record] = [r for r in _records(runtime) if r.run == "r1"]
    assert record.outcome == "failed" and record.job == "news"


async def test_an_attempt_cut_off_before_the_retry_that_answered_is_counted_too(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """The first attempt streamed part of an answer and was cut off; the retry answered. The
    answer is counted with the server's usage, the broken attempt beside it (estimated)."""
    scripted_server.push(Reply("word " * 40, chunk=5, reset_after=10), Reply("Hi.", usage=(60, 40)))
    runtime, _events = _runtime(tmp_path, scripted_server)
    try:
        assert await runtime.agent.process_direct("hello", session_key="cli:retry") == "Hi."
    finally:
        await runtime.stop()
    answered, cut = sorted(_records(runtime), key=lambda r: r.outcome != "ok")
    assert (answered.outcome, answered.tokens, answered.estimated) == ("ok", 100, False)
    assert (cut.outcome, cut.estimated, cut.session) == ("failed", True, "cli:retry")
    assert cut.prompt_tokens > 100 and 5 <= cut.completion_tokens <= 12
