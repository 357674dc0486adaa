"""The spend governor on a real runtime: a background run paused before the call and the person
asked, the headless refusal, chat warnings and the hard cap, and the runaway stop."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from desktop.core.assembly import build_runtime
from desktop.core.bus.events import (
    BudgetPaused,
    BudgetResolved,
    BudgetWarning,
    RunawayStopped,
    RunEvent,
    TurnFailed,
)
from desktop.core.config.budgets import Budgets
from desktop.core.config.schema import Config
from desktop.core.memory.store import MemoryStore
from desktop.core.runtime import Runtime
from desktop.core.usage.governor import BudgetRefused
from desktop.core.usage.record import UsageRecord
from tests.core.agent.conftest import make_provider
from tests.core.usage.helpers import ledger_of, place_of, records_of
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.waiting import until


def _config(tmp_path: Path) -> Config:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    return Config.model_validate(
        {"agents": {"defaults": {"workspace": str(workspace), "timezone": "UTC"}}}
    )


def _spent(config: Config, source: str, runs: list[int], **extra: Any) -> None:
    """Calls made earlier today: one record of ``tokens`` per run."""
    now = time.time() - 1
    ledger_of(config).extend(
        UsageRecord(
            time=now,
            source=source,
            model="m",
            prompt_tokens=tokens - 100,
            completion_tokens=100,
            run=f"earlier-{i}",
            **extra,
        )
        for i, tokens in enumerate(runs)
    )


def _dream_script(server: ScriptedOpenAIServer, usage: tuple[int, int] = (10, 5)) -> None:
    def route(body: dict[str, Any]) -> Reply:
        if not body.get("tools"):
            return Reply("[MEMORY] Ada lives in Lisbon", usage=usage)
        if body["messages"][-1]["role"] == "user":
            edit = {
                "path": "memory/MEMORY.md",
                "old_text": "- fact 1\n",
                "new_text": "- fact 1\n- Ada lives in Lisbon\n",
            }
            return Reply(tool_calls=[("edit_file", json.dumps(edit))], usage=usage)
        return Reply("Updated MEMORY.md.", usage=usage)

    server.route = route


def _runtime(
    config: Config, server: ScriptedOpenAIServer, budgets: dict[str, Any], *, ask: bool
) -> tuple[Runtime, list[RunEvent]]:
    runtime = build_runtime(
        config,
        make_provider(server.url),
        budgets=lambda: Budgets.model_validate(budgets),
        ask_budgets=ask,
    )
    events: list[RunEvent] = []
    runtime.bus.subscribe(events.append)
    (config.workspace_path / "memory" / "MEMORY.md").write_text("- fact 1\n")
    MemoryStore(config.workspace_path).append_history("Ada moved to Lisbon.")
    return runtime, events


def _of(events: list[RunEvent], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


async def test_dream_over_its_budget_is_paused_before_the_call_and_the_person_decides(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    config = _config(tmp_path)
    _spent(config, "dream", [6000, 6000, 6000])
    _dream_script(scripted_server)
    budgets = {"sources": {"dream": {"dailyTokens": 20000}}}
    runtime, events = _runtime(config, scripted_server, budgets, ask=True)
    governor = runtime.governor
    assert governor is not None
    try:
        # Keep paused: nothing is sent to the model, Dream keeps its batch for later.
        run = asyncio.create_task(runtime.memory.dream().run())
        await until(lambda: _of(events, BudgetPaused))
        paused = _of(events, BudgetPaused)[0]
        assert paused.asked and paused.source == "dream" and paused.scope == "dream"
        assert paused.period == "day" and paused.limit_tokens == 20000
        assert paused.spent_tokens == 18000 and paused.estimate_tokens == 6000
        assert paused.message == (
            "Dream wants ~6,000 tokens; today's Dream budget is 20k and 18k are spent"
        )
        assert scripted_server.chat_requests() == [] and not run.done()
        assert governor.answer(paused.request_id, "keep")
        result = await run
        assert result.status == "paused" and "budget" in result.message
        assert scripted_server.chat_requests() == []
        state = config.workspace_path / "memory" / ".dream_state"
        assert not state.exists() or '"1"' not in state.read_text()  # no failure counted
        assert _of(events, BudgetResolved) == [BudgetResolved(paused.request_id, "keep")]

        # Run once: the whole run goes ahead (phase 2's calls are not asked again).
        run = asyncio.create_task(runtime.memory.dream().run())
        await until(lambda: len(_of(events, BudgetPaused)) == 2)
        second = _of(events, BudgetPaused)[1]
        assert governor.answer(second.request_id, "run")
        result = await run
        assert result.status == "changed", result
        assert len(_of(events, BudgetPaused)) == 2
        assert len(scripted_server.chat_requests()) == 3
        assert not governor.answer(second.request_id, "keep")  # already answered
    finally:
        await runtime.stop()
    records = records_of(place_of(config))
    assert sum(r.source == "dream" and r.run.startswith("earlier") for r in records) == 3
    assert sum(r.source == "dream" and not r.run.startswith("earlier") for r in records) == 3


async def test_headless_the_run_is_refused_at_once_and_reported(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    config = _config(tmp_path)
    _spent(config, "heartbeat", [500])
    _dream_script(scripted_server)
    budgets = {"overall": {"dailyTokens": 400}}  # the overall budget is passed already
    runtime, events = _runtime(config, scripted_server, budgets, ask=False)
    try:
        async with asyncio.timeout(30):
            result = await runtime.memory.dream().run()
    finally:
        await runtime.stop()
    assert result.status == "paused"
    [paused] = _of(events, BudgetPaused)
    assert not paused.asked and paused.scope == "overall" and paused.spent_tokens == 500
    assert scripted_server.chat_requests() == []


async def test_chat_warns_at_the_threshold_and_stops_only_with_a_hard_cap(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    config = _config(tmp_path)
    _spent(config, "chat", [850], session="desktop:x")
    scripted_server.default = Reply("Hi.", usage=(60, 40))
    budgets: dict[str, Any] = {"sources": {"chat": {"dailyTokens": 1000}}, "chatWarnAt": 0.8}
    runtime, events = _runtime(config, scripted_server, budgets, ask=True)
    try:
        assert await runtime.agent.process_direct("hello") == "Hi."
        assert await runtime.agent.process_direct("again") == "Hi."  # 950, then 1050: no block
        [warning] = _of(events, BudgetWarning)  # once per budget and day
        assert not warning.refused and warning.scope == "chat"
        assert warning.message == "85% of the chat token budget for today is spent."
        assert len(scripted_server.chat_requests()) == 2

        budgets["chatHardCap"] = True
        with pytest.raises(BudgetRefused):
            await runtime.agent.process_direct("and once more")
        [failed] = _of(events, TurnFailed)
        assert failed.message == (
            "The spend cap is reached: today's Chat budget is 1,000 and 1,050 are spent. "
            "Raise it in Settings › Usage & budgets."
        )
        assert len(scripted_server.chat_requests()) == 2  # refused before the call
        assert _of(events, BudgetWarning)[-1].refused
    finally:
        await runtime.stop()


async def test_runaway_background_run_is_stopped_and_reported(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    config = _config(tmp_path)
    _spent(config, "dream", [1000, 1000, 1200])  # usual: 1,000 tokens
    _dream_script(scripted_server, usage=(1400, 200))
    budgets = {"runawayMultiple": 2, "runawayMinTokens": 0}
    runtime, events = _runtime(config, scripted_server, budgets, ask=True)
    try:
        async with asyncio.timeout(30):
            result = await runtime.memory.dream().run()
    finally:
        await runtime.stop()
    # Phase 1 (1,600) is under 2×; phase 2's first call brings it to 3,200: no third call.
    assert len(scripted_server.chat_requests()) == 2
    [stopped] = _of(events, RunawayStopped)
    assert stopped.source == "dream" and stopped.tokens == 3200 and stopped.usual_tokens == 1000
    assert stopped.message == "Stopped a dream run: it used 3,200 tokens, 3× its usual 1,000."
    assert result.status == "failed" and result.stop_reason == "error"
    assert stopped.message in result.message and result.changes == 1  # its edit is kept
    assert not _of(events, BudgetPaused)


async def test_a_small_run_is_never_a_runaway_below_the_floor(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Same run as above, default floor (20k tokens): 3× a small usual size goes on."""
    config = _config(tmp_path)
    _spent(config, "dream", [1000, 1000, 1200])
    _dream_script(scripted_server, usage=(1400, 200))
    runtime, events = _runtime(config, scripted_server, {"runawayMultiple": 2}, ask=True)
    try:
        async with asyncio.timeout(30):
            result = await runtime.memory.dream().run()
    finally:
        await runtime.stop()
    assert result.status == "changed" and len(scripted_server.chat_requests()) == 3
    assert not _of(events, RunawayStopped)
