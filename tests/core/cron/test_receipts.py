"""Run receipts for every outcome, with the real scheduler (fake clock) and the real runtime."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from desktop.core.assembly import build_runtime
from desktop.core.bus.events import OutboundMessage, ReminderDue, RunEvent
from desktop.core.channels.base import ChannelUnavailable
from desktop.core.config.schema import Config
from desktop.core.cron.receipts import JobResult, JobSkipped, Receipt, ReceiptLog
from desktop.core.cron.service import CronService
from desktop.core.cron.types import CronJob, CronPayload, CronSchedule
from desktop.core.runtime import Runtime
from tests.conftest import custom_config
from tests.core.agent.conftest import make_provider
from tests.core.cron.test_cron import FakeClock, ms
from tests.core.test_cli import run
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

NOW = "2026-05-01T10:00:00+00:00"


class Handler:
    """A job handler whose behaviour is chosen per job name."""

    async def __call__(self, job: CronJob) -> str | JobResult | None:
        if job.name == "fails":
            raise RuntimeError("the disk is full")
        if job.name == "over budget":
            raise JobSkipped("today's budget for this job is spent", cause="budget")
        if job.name == "shown":
            return JobResult("hello", delivered_to=("desktop",))
        return "done"


def _service(tmp_path: Path, clock: FakeClock) -> CronService:
    return CronService(
        tmp_path / "cron" / "jobs.json", on_job=Handler(), clock=clock, default_tz="UTC"
    )


async def test_each_outcome_leaves_a_receipt(tmp_path: Path) -> None:
    clock = FakeClock(NOW)
    svc = _service(tmp_path, clock)
    await svc.start()
    every = CronSchedule("every", every_ms=60_000)
    ran = svc.add_job("plain", every)
    failed = svc.add_job("fails", every)
    shown = svc.add_job("shown", every)
    skipped = svc.add_job(
        "over budget",
        CronSchedule("at", at_ms=ms("2026-05-01T10:01:00+00:00")),
        delete_after_run=True,
    )
    clock.advance(60)
    await svc.tick()
    await svc.stop()
    log = ReceiptLog(tmp_path / "cron")
    got = {job.name: log.read(job.id) for job in (ran, failed, shown, skipped)}
    assert {name: [r.outcome for r in rs] for name, rs in got.items()} == {
        "plain": ["ran"],
        "fails": ["failed"],
        "shown": ["delivered"],
        "over budget": ["skipped"],
    }
    assert got["fails"][0].reason == "the disk is full"
    assert got["shown"][0].delivered_to == ("desktop",)
    assert got["over budget"][0].cause == "budget"
    due = ms("2026-05-01T10:01:00+00:00")
    assert all(rs[0].due_at_ms == due and not rs[0].late for rs in got.values())
    kept = svc.get_job(skipped.id)
    assert kept is not None and not kept.enabled, "a skipped one-shot reminder is kept, not deleted"
    assert kept.state.last_status == "skipped"
    # Receipts live beside jobs.json; jobs.json keeps only nanobot's keys.
    stored = json.loads(svc.store_path.read_text())
    assert "receipts" not in json.dumps(stored)
    assert sorted(p.name for p in (tmp_path / "cron" / "receipts").glob("*.jsonl")) == sorted(
        f"{j.id}.jsonl" for j in (ran, failed, shown, skipped)
    )


async def test_missed_runs_are_caught_up_once_with_a_late_receipt(tmp_path: Path) -> None:
    clock = FakeClock(NOW)
    first = _service(tmp_path, clock)
    job = first.add_job("plain", CronSchedule("every", every_ms=3_600_000))
    # The app is closed from 10:00 to 13:30: 11:00, 12:00 and 13:00 were missed.
    clock.set("2026-05-01T13:30:00+00:00")
    second = _service(tmp_path, clock)
    await second.start()
    await second.idle()
    await second.stop()
    (receipt,) = ReceiptLog(tmp_path / "cron").read(job.id)
    assert receipt.outcome == "ran" and receipt.late
    assert receipt.due_at_ms == ms("2026-05-01T11:00:00+00:00")
    assert receipt.missed == 3
    assert receipt.at_ms == ms("2026-05-01T13:30:00+00:00")


def test_a_torn_or_damaged_line_costs_only_itself(tmp_path: Path) -> None:
    log = ReceiptLog(tmp_path / "cron")
    log.append(Receipt(job_id="j1", outcome="ran", at_ms=1))
    path = log.path("j1")
    with path.open("ab") as handle:  # a crash mid-write, then garbage from elsewhere
        handle.write(b'{"jobId":"j1","outcome":"deliv')
    log.append(Receipt(job_id="j1", outcome="failed", at_ms=2, reason="x"))
    with path.open("ab") as handle:
        handle.write(b"\xff\xfe not json\n")
    log.append(Receipt(job_id="j1", outcome="delivered", at_ms=3, delivered_to=("desktop",)))
    assert [(r.outcome, r.at_ms) for r in log.read("j1")] == [
        ("ran", 1),
        ("failed", 2),
        ("delivered", 3),
    ]
    assert log.path("../x").parent == log.folder, "odd ids cannot escape the folder"


# ------------------------------------------------------------------ real runtime
def _runtime(server: ScriptedOpenAIServer, tmp_path: Path, clock: FakeClock) -> Runtime:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    config = Config.model_validate(
        {"agents": {"defaults": {"workspace": str(workspace), "timezone": "UTC"}}}
    )
    return build_runtime(config, make_provider(server.url), clock=clock)


class Window:
    """A front end registered like the window's bridge (the ``desktop`` channel)."""

    name = "desktop"

    def __init__(self, runtime: Runtime) -> None:
        self.seen: list[ReminderDue] = []
        runtime.bus.subscribe(self._on_event)
        runtime.channels.register(self)

    def _on_event(self, event: RunEvent) -> None:
        if isinstance(event, ReminderDue):
            self.seen.append(event)

    async def send(self, message: OutboundMessage) -> None:
        pass


async def test_a_reminder_shown_in_the_window_is_delivered_there(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    clock = FakeClock(NOW)
    runtime = _runtime(scripted_server, tmp_path, clock)
    window = Window(runtime)
    job = runtime.cron.add_job("tea", CronSchedule("every", every_ms=60_000), message="Tea")
    scripted_server.push(Reply("Tea time."))
    await runtime.start()
    try:
        clock.advance(60)
        await runtime.cron.tick()
    finally:
        await runtime.stop()
    assert [e.text for e in window.seen] == ["Tea time."]
    (receipt,) = runtime.cron.receipts.read(job.id)
    assert (receipt.outcome, receipt.delivered_to) == ("delivered", ("desktop",))
    assert runtime.cron.kept.pending() == []


async def test_an_undelivered_reminder_is_kept_and_shown_after_a_restart(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    clock = FakeClock(NOW)
    first = _runtime(scripted_server, tmp_path, clock)  # nothing can show it (no window)

    class Socket:  # the app's socket for `nanobot-desktop agent` is registered as "cli"
        name = "cli"

        async def send(self, message: OutboundMessage) -> None:
            pass

    first.channels.register(Socket())
    job = first.cron.add_job(
        "pills", CronSchedule("every", every_ms=60_000), CronPayload(message="Take the pills")
    )
    scripted_server.push(Reply("Time for your pills."))
    await first.start()
    try:
        clock.advance(60)
        await first.cron.tick()
    finally:
        await first.stop()
    (receipt,) = first.cron.receipts.read(job.id)
    assert receipt.outcome == "undelivered" and "kept" in (receipt.reason or "")
    assert [r.text for r in first.cron.kept.pending()] == ["Time for your pills."]

    second = _runtime(scripted_server, tmp_path, clock)  # the next start, with a window
    window = Window(second)
    await second.start()
    try:
        assert second.reminders is not None
        assert await second.reminders.deliver_kept() == 1
    finally:
        await second.stop()
    assert [(e.text, e.job_id, e.session_key, e.run_id, e.message) for e in window.seen] == [
        ("Time for your pills.", job.id, "desktop:reminders", receipt.id, "Take the pills")
    ]  # its own text too: a snooze of it brings that back

    third = _runtime(scripted_server, tmp_path, clock)
    Window(third)
    assert third.reminders is not None
    assert await third.reminders.deliver_kept() == 0, "shown once, not at every start"
    await third.stop()


async def test_a_chat_network_that_refuses_leaves_the_reminder_kept(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    clock = FakeClock(NOW)
    runtime = _runtime(scripted_server, tmp_path, clock)

    class Telegram:
        name = "telegram"

        async def send(self, message: OutboundMessage) -> None:
            raise ChannelUnavailable("the bot token was revoked")

    runtime.channels.register(Telegram())
    payload = CronPayload(
        message="standup", session_key="telegram:42", origin_channel="telegram", origin_chat_id="42"
    )
    job = runtime.cron.add_job("standup", CronSchedule("every", every_ms=60_000), payload)
    scripted_server.push(Reply("Standup now."))
    try:
        await runtime.cron.run_now(job.id)
    finally:
        await runtime.stop()
    (receipt,) = runtime.cron.receipts.read(job.id)
    assert receipt.outcome == "undelivered"
    assert "telegram chat could not be reached" in (receipt.reason or "")
    (kept,) = runtime.cron.kept.pending()
    assert (kept.text, kept.channel, kept.chat_id) == ("Standup now.", "telegram", "42")


# ------------------------------------------------------------------ the CLI
def test_cron_list_shows_the_last_outcome(tmp_path: Path, isolated_env: Path) -> None:
    config = custom_config(tmp_path, "http://127.0.0.1:9/v1", timezone="Europe/Berlin")
    cron_dir = tmp_path / "workspace" / "cron"
    clock = FakeClock(NOW)
    svc = CronService(cron_dir / "jobs.json", on_job=Handler(), clock=clock, default_tz="UTC")
    failed = svc.add_job("fails", CronSchedule("every", every_ms=3_600_000))
    ran = svc.add_job("plain", CronSchedule("every", every_ms=3_600_000))
    log = ReceiptLog(cron_dir)
    log.append(
        Receipt(
            job_id=failed.id,
            outcome="failed",
            at_ms=ms("2026-05-01T09:00:00+00:00"),
            reason="the disk is full",
        )
    )
    log.append(
        Receipt(
            job_id=ran.id,
            outcome="delivered",
            at_ms=ms("2026-05-01T09:30:00+00:00"),
            due_at_ms=ms("2026-05-01T06:00:00+00:00"),
            late=True,
            missed=4,
            delivered_to=("desktop", "telegram"),
        )
    )
    listed = run(["cron", "list", "--config", str(config)], isolated_env)
    assert listed.returncode == 0, listed.stderr
    blocks: dict[str, Any] = {
        block.removeprefix("- ").split(" (id: ")[0]: block for block in listed.stdout.split("\n- ")
    }
    assert "Last outcome: failed at 2026-05-01 11:00 CEST — the disk is full" in blocks["fails"], (
        listed.stdout
    )
    assert (
        "Last outcome: delivered to desktop, telegram at 2026-05-01 11:30 CEST "
        "(late: due 2026-05-01 08:00 CEST, 4 runs missed)" in blocks["plain"]
    ), listed.stdout
    assert "Last outcome" not in blocks["dream"], "no receipt, no outcome line"
