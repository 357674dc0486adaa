"""Scheduled jobs the spend governor keeps from running are skipped (cause ``budget``), never
recorded as failed, and a reminder's own text still reaches the person; reminders paused in the
window (do not disturb) arrive quietly and their receipts say so. Real runtime, real LiteLLM
path to the scripted server, the real scheduler on a fake clock."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from desktop.core.assembly import build_runtime
from desktop.core.bus.events import BudgetPaused, OutboundMessage, ReminderDue, RunEvent
from desktop.core.config.budgets import Budgets
from desktop.core.config.loader import load_config
from desktop.core.cron.overview import job_rows
from desktop.core.cron.types import CronPayload, CronSchedule
from desktop.core.memory.store import MemoryStore
from desktop.core.runtime import Runtime
from desktop.core.usage.record import UsageRecord
from tests.conftest import custom_config
from tests.core.agent.conftest import make_provider
from tests.core.cron.test_cron import FakeClock, ms
from tests.core.test_cli import run
from tests.fakes.openai_server import Fail, Reply, ScriptedOpenAIServer
from tests.waiting import until

NOW = "2026-05-01T10:00:00+00:00"
OVER_CRON = {"sources": {"cron": {"dailyTokens": 1000}}}


class Window:
    """A front end registered like the window's bridge (the ``desktop`` channel)."""

    name = "desktop"

    def __init__(self, runtime: Runtime) -> None:
        self.seen: list[ReminderDue] = []
        self.events: list[RunEvent] = []
        runtime.bus.subscribe(self._on_event)
        runtime.channels.register(self)

    def _on_event(self, event: RunEvent) -> None:
        self.events.append(event)
        if isinstance(event, ReminderDue):
            self.seen.append(event)

    async def send(self, message: OutboundMessage) -> None:
        pass


def _runtime(
    server: ScriptedOpenAIServer,
    tmp_path: Path,
    clock: FakeClock,
    budgets: dict[str, Any] | None = None,
    **options: Any,
) -> Runtime:
    config = load_config(custom_config(tmp_path, server.url, timezone="UTC"))
    config.workspace_path.mkdir(parents=True, exist_ok=True)
    runtime = build_runtime(
        config,
        make_provider(server.url),
        clock=clock,
        budgets=(lambda: Budgets.model_validate(budgets)) if budgets is not None else None,
        **options,
    )
    return runtime


def _spent(runtime: Runtime, source: str, tokens: int) -> None:
    """A call of ``source`` made earlier today (real time: the governor counts today)."""
    assert runtime.ledger is not None
    runtime.ledger.append(
        UsageRecord(time=time.time() - 1, source=source, model="m", prompt_tokens=tokens)
    )


async def test_a_one_shot_reminder_over_budget_is_skipped_kept_and_its_text_delivered(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, isolated_env: Path
) -> None:
    """Headless (nobody to ask): the cron budget is spent, so the reminder turn's model call is
    refused; the person still gets the reminder's text, the receipt says skipped over budget
    and why, and the one-shot job is kept (disabled), not deleted unseen."""
    clock = FakeClock(NOW)
    runtime = _runtime(scripted_server, tmp_path, clock, OVER_CRON)
    _spent(runtime, "cron", 1200)
    window = Window(runtime)
    job = runtime.cron.add_job(
        "dentist",
        CronSchedule("at", at_ms=ms("2026-05-01T10:01:00+00:00")),
        CronPayload(message="Call the dentist"),
        delete_after_run=True,
    )
    await runtime.start()
    try:
        clock.advance(60)
        await runtime.cron.tick()
        await runtime.cron.idle()
    finally:
        await runtime.stop()
    assert scripted_server.chat_requests() == [], "refused before the call"
    assert [e.text for e in window.seen] == ["Reminder: Call the dentist"]
    (receipt,) = runtime.cron.receipts.read(job.id)
    assert (receipt.outcome, receipt.cause, receipt.delivered_to) == (
        "skipped",
        "budget",
        ("desktop",),
    )
    assert receipt.reason == (
        "Paused by the budget: Cron wants more tokens; today's Cron budget is 1,000 and 1,200 "
        "are spent."
    )
    kept = runtime.cron.get_job(job.id)
    assert kept is not None and not kept.enabled, "kept (disabled), never deleted unseen"
    assert kept.state.last_status == "skipped" and kept.state.last_error == receipt.reason

    # The Reminders page (its rows) and `cron list` show it as skipped over budget, with why.
    [row] = [r for r in job_rows(runtime.cron) if r.id == job.id]
    assert row.last.startswith(
        "skipped (over budget; its text shown on desktop) at 2026-05-01 10:01 UTC — "
        "Paused by the budget: Cron wants more tokens"
    ), row.last
    config_file = tmp_path / "config" / "config.json"
    listed = run(["cron", "list", "--config", str(config_file)], isolated_env)
    assert listed.returncode == 0, listed.stderr
    assert f"Last outcome: {row.last}" in listed.stdout, listed.stdout
    assert "[disabled]" in listed.stdout


async def test_while_the_window_asks_the_reminder_arrives_at_once(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """With a front end that answers budget pauses, the reminder's own text is delivered when
    the question is asked, not half an hour later. Keep paused: skipped, shown once. Run once:
    the answer follows the text, and the run is delivered."""
    clock = FakeClock(NOW)
    runtime = _runtime(scripted_server, tmp_path, clock, OVER_CRON, ask_budgets=True)
    _spent(runtime, "cron", 1200)
    window = Window(runtime)
    governor = runtime.governor
    assert governor is not None
    kept = runtime.cron.add_job("tea", CronSchedule("every", every_ms=3_600_000), message="Tea")
    ran = runtime.cron.add_job("walk", CronSchedule("every", every_ms=3_600_000), message="Walk")
    scripted_server.push(Reply("Time for a walk!"))
    try:
        first = asyncio.ensure_future(runtime.cron.run_now(kept.id))
        await until(lambda: window.seen)
        assert [e.text for e in window.seen] == ["Reminder: Tea"]
        assert not first.done(), "the question is still open"
        [paused] = [e for e in window.events if isinstance(e, BudgetPaused)]
        assert paused.job == kept.id and paused.asked
        assert governor.answer(paused.request_id, "keep")
        await first
        assert [e.text for e in window.seen] == ["Reminder: Tea"], "shown once"
        (receipt,) = runtime.cron.receipts.read(kept.id)
        assert (receipt.outcome, receipt.cause, receipt.delivered_to) == (
            "skipped",
            "budget",
            ("desktop",),
        )

        second = asyncio.ensure_future(runtime.cron.run_now(ran.id))
        await until(lambda: len(window.seen) == 2)
        assert window.seen[-1].text == "Reminder: Walk"
        [_, paused] = [e for e in window.events if isinstance(e, BudgetPaused)]
        assert governor.answer(paused.request_id, "run")
        await second
        assert [e.text for e in window.seen[1:]] == ["Reminder: Walk", "Time for a walk!"]
        (receipt,) = runtime.cron.receipts.read(ran.id)
        assert (receipt.outcome, receipt.delivered_to, receipt.cause) == (
            "delivered",
            ("desktop",),
            None,
        )
    finally:
        await runtime.stop()
    assert len(scripted_server.chat_requests()) == 1


async def test_system_jobs_kept_from_running_by_a_budget_are_skipped_not_failed(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Dream and the heartbeat over their budgets (headless): skipped with the governor's
    reason; no call is made."""
    clock = FakeClock(NOW)
    budgets = {"sources": {"dream": {"dailyTokens": 100}, "heartbeat": {"dailyTokens": 100}}}
    runtime = _runtime(scripted_server, tmp_path, clock, budgets)
    workspace = runtime.config.workspace_path
    _spent(runtime, "dream", 500)
    _spent(runtime, "heartbeat", 500)
    MemoryStore(workspace).append_history("Ada moved to Lisbon.")
    (workspace / "HEARTBEAT.md").write_text("- check the mail\n")
    await runtime.start()
    try:
        for job_id in ("dream", "heartbeat"):
            await runtime.cron.run_now(job_id)
    finally:
        await runtime.stop()
    assert scripted_server.chat_requests() == []
    for job_id, name in (("dream", "Dream"), ("heartbeat", "Heartbeat")):
        receipt, _answer = runtime.cron.receipts.last_run(job_id)
        assert receipt is not None
        assert (receipt.outcome, receipt.cause) == ("skipped", "budget"), receipt
        assert f"{name} wants" in (receipt.reason or "") and "budget" in (receipt.reason or "")
        job = runtime.cron.get_job(job_id)
        assert job is not None and job.state.last_status == "skipped"


async def test_a_dream_whose_model_call_failed_is_a_failed_run(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Dream keeps the batch for later when its call fails; the run itself failed (it was
    recorded as "ran" with the failure only in the text)."""
    clock = FakeClock(NOW)
    runtime = _runtime(scripted_server, tmp_path, clock)
    MemoryStore(runtime.config.workspace_path).append_history("Ada moved to Lisbon.")
    scripted_server.push(Fail(500), Fail(500))
    await runtime.start()
    try:
        await runtime.cron.run_now("dream")
    finally:
        await runtime.stop()
    receipt, _answer = runtime.cron.receipts.last_run("dream")
    assert receipt is not None and receipt.outcome == "failed", receipt
    assert "the analysis call failed" in (receipt.reason or "")


async def test_reminders_paused_in_the_window_arrive_quietly_and_the_receipt_says_so(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Do not disturb: the reminder still runs and reaches the window, which shows it without
    a pop-up; the receipt never claims more."""
    clock = FakeClock(NOW)
    paused = [True]
    runtime = _runtime(scripted_server, tmp_path, clock, reminders_paused=lambda: paused[0])
    window = Window(runtime)
    job = runtime.cron.add_job("tea", CronSchedule("every", every_ms=60_000), message="Tea")
    scripted_server.push(Reply("Tea time."), Reply("Tea time again."))
    await runtime.start()
    try:
        await runtime.cron.run_now(job.id)
        paused[0] = False
        await runtime.cron.run_now(job.id)
    finally:
        await runtime.stop()
    assert [e.text for e in window.seen] == ["Tea time.", "Tea time again."]
    quiet, loud = runtime.cron.receipts.read(job.id)
    assert (quiet.outcome, quiet.delivered_to, quiet.quiet) == ("delivered", ("desktop",), True)
    assert (loud.outcome, loud.quiet) == ("delivered", False)
    [row] = [r for r in job_rows(runtime.cron) if r.id == job.id]
    assert row.past[1].startswith(
        "delivered quietly to desktop (no pop-up: reminders are paused) at "
    ), row.past
    assert row.past[0].startswith("delivered to desktop at "), row.past
    lines = runtime.cron.receipts.path(job.id).read_text().splitlines()
    assert '"quiet":true' in lines[0] and '"quiet"' not in lines[1]


async def test_a_one_shot_reminder_cut_short_by_closing_the_app_runs_at_the_next_start(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """The app closes while a one-shot reminder's turn streams: the job is not deleted (it
    used to be: the run counted as done), and the next start runs it, late, to the person."""
    clock = FakeClock(NOW)
    first = _runtime(scripted_server, tmp_path, clock)
    Window(first)
    job = first.cron.add_job(
        "dentist",
        CronSchedule("at", at_ms=ms("2026-05-01T10:01:00+00:00")),
        CronPayload(message="Call the dentist"),
        delete_after_run=True,
    )
    scripted_server.push(Reply("word " * 400, chunk=5, delay=0.02))
    clock.advance(60)
    await first.start()  # it is due: the start runs it (in the background)
    await until(lambda: scripted_server.chat_requests())
    await first.stop()  # closing the app while the turn streams
    (cut,) = first.cron.receipts.read(job.id)
    assert cut.outcome == "failed" and cut.late
    assert cut.reason == "cancelled (the app was closing); it runs again at the next start"
    kept = first.cron.get_job(job.id)
    assert kept is not None and kept.enabled
    assert kept.state.next_run_at_ms == ms("2026-05-01T10:01:00+00:00")

    clock.advance(600)
    second = _runtime(scripted_server, tmp_path, clock)
    window = Window(second)
    scripted_server.push(Reply("Call the dentist now."))
    await second.start()
    try:
        await second.cron.idle()
    finally:
        await second.stop()
    assert [e.text for e in window.seen] == ["Call the dentist now."]
    _cut, done = second.cron.receipts.read(job.id)
    assert (done.outcome, done.late, done.delivered_to) == ("delivered", True, ("desktop",))
    assert second.cron.get_job(job.id) is None, "delivered: now it is done"


async def test_a_reminder_over_budget_with_no_one_to_show_it_is_kept_for_the_next_start(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    clock = FakeClock(NOW)
    runtime = _runtime(scripted_server, tmp_path, clock, OVER_CRON)
    _spent(runtime, "cron", 1200)
    job = runtime.cron.add_job("pills", CronSchedule("every", every_ms=60_000), message="Pills")
    try:
        await runtime.cron.run_now(job.id)  # no window, no terminal
    finally:
        await runtime.stop()
    (receipt,) = runtime.cron.receipts.read(job.id)
    assert (receipt.outcome, receipt.cause, receipt.delivered_to) == ("skipped", "budget", ())
    assert receipt.reason is not None and receipt.reason.endswith(
        "are spent; its own text reached no one: no window or terminal was open to show it; "
        "it is kept and shown at the next start."
    )
    assert [r.text for r in runtime.cron.kept.pending()] == ["Reminder: Pills"]


async def test_dream_waiting_for_a_review_is_skipped_as_paused_not_ran(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """In review mode the first scheduled Dream stores a proposal (ran); the next one does not
    run while that proposal waits for the person: skipped (paused), saying so."""

    def route(body: dict[str, Any]) -> Reply:
        if not body.get("tools"):
            return Reply("[MEMORY] Ada lives in Lisbon")
        if body["messages"][-1]["role"] == "user":
            edit = {
                "path": "memory/MEMORY.md",
                "old_text": "- fact 1\n",
                "new_text": "- fact 1\n- Ada lives in Lisbon\n",
            }
            return Reply(tool_calls=[("edit_file", json.dumps(edit))])
        return Reply("Updated MEMORY.md.")

    scripted_server.route = route
    clock = FakeClock(NOW)
    runtime = _runtime(scripted_server, tmp_path, clock, dream_review=lambda: True)
    workspace = runtime.config.workspace_path
    (workspace / "memory").mkdir(exist_ok=True)
    (workspace / "memory" / "MEMORY.md").write_text("- fact 1\n")
    MemoryStore(workspace).append_history("Ada moved to Lisbon.")
    await runtime.start()
    try:
        await runtime.cron.run_now("dream")
        await runtime.cron.run_now("dream")
    finally:
        await runtime.stop()
    proposed, pending = runtime.cron.receipts.read("dream")
    assert proposed.outcome == "ran"
    assert (pending.outcome, pending.cause) == ("skipped", "paused")
    assert "still waiting for your review" in (pending.reason or "")
    [row] = [r for r in job_rows(runtime.cron) if r.id == "dream"]
    assert row.last.startswith("skipped (paused) at "), row.last
