"""The Automations view's core: search parsing, status, filters, sort, rename, delete + undo,
and the terminal command, over a real scheduler and store (fake clock)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop.core.cron.automations import (
    Filter,
    Query,
    counts,
    parse_query,
    rename_job,
    run_command,
    sort_rows,
    status_text,
    visible_rows,
)
from desktop.core.cron.overview import JobRow, delete_reminder, job_rows, undo_delete
from desktop.core.cron.receipts import JobResult
from desktop.core.cron.service import CronService
from desktop.core.cron.types import CronJob, CronSchedule
from tests.core.cron.test_cron import FakeClock, make, ms

MINUTE = 60_000


def test_parse_query_terms_quotes_and_unknown_keys() -> None:
    assert parse_query("") == Query() and parse_query("  ").empty
    assert parse_query('Tea name:"Morning Tea" schedule:cron status:Paused') == Query(
        words=("tea",), names=("morning tea",), schedules=("cron",), statuses=("paused",)
    )
    # An unknown key is a plain word; a key still being typed constrains nothing.
    assert parse_query("url:http name:") == Query(words=("url:http",))
    # A quote left open runs to the end (the person is still typing).
    assert parse_query('name:"morning te') == Query(names=("morning te",))
    assert parse_query("status:sleepy").unknown == ("sleepy",)


class Handler:
    """Fails the jobs named ``boom``, leaves ``lost`` undelivered, else delivers."""

    async def __call__(self, job: CronJob) -> JobResult:
        if job.name == "boom":
            raise RuntimeError("the model is down")
        if job.name == "lost":
            return JobResult("hi", undelivered="no front end was open")
        return JobResult("ok", delivered_to=("desktop",))


def _service(tmp_path: Path, clock: FakeClock) -> CronService:
    return make(tmp_path, clock, Handler(), protected={"dream"})


def _rows(cron: CronService) -> dict[str, JobRow]:
    return {row.name: row for row in job_rows(cron)}


async def test_status_filters_search_and_sort_over_real_runs(tmp_path: Path) -> None:
    clock = FakeClock("2026-05-01T10:00:00+00:00")
    cron = _service(tmp_path, clock)
    await cron.start()
    try:
        tea = cron.add_job("Tea", CronSchedule("every", every_ms=MINUTE), message="green tea")
        boom = cron.add_job("boom", CronSchedule("every", every_ms=2 * MINUTE))
        lost = cron.add_job("lost", CronSchedule("every", every_ms=3 * MINUTE))
        standup = cron.add_job("Standup", CronSchedule("cron", expr="0 9 * * 1-5"))
        cron.enable_job(standup.id, False)
        cron.register_system_job("dream", CronSchedule("every", every_ms=120 * MINUTE))
        await cron.run_now(tea.id)
        await cron.run_now(boom.id)
        clock.advance(60)
        await cron.run_now(lost.id)
    finally:
        await cron.stop()
    now = int(clock() * 1000)
    rows = _rows(cron)
    assert status_text(rows["Tea"], now) == "Active"
    assert status_text(rows["boom"], now) == "Active · last run failed"
    assert status_text(rows["lost"], now) == "Active · delivery failed"
    assert status_text(rows["Standup"], now) == "Paused"
    assert status_text(rows["dream"], now) == "System"

    listed = list(rows.values())
    assert counts(listed, now) == {
        "all": 5,
        "active": 3,
        "paused": 1,
        "attention": 2,
        "system": 1,
    }

    def names(which: Filter = "all", search: str = "", at: int = now) -> list[str]:
        return [
            r.name for r in visible_rows(listed, which=which, search=search, by="name", now_ms=at)
        ]

    assert names(which="attention") == ["boom", "lost"]
    assert names(which="paused") == ["Standup"]
    assert names(which="system") == ["dream"]
    assert names(search="GREEN") == ["Tea"], "plain words search the message too"
    assert names(search="schedule:cron") == ["Standup"]
    assert names(search="schedule:every status:attention") == ["boom", "lost"]
    assert names(search="status:failed") == ["boom"]
    assert names(search="status:disabled") == ["Standup"]
    assert names(search="name:o status:active") == ["boom", "lost"]
    assert names(search="status:nonsense") == []
    # Last run newest first (never-run last); next run soonest first (paused last).
    assert [r.name for r in sort_rows(listed, "last")][:3] == ["lost", "boom", "Tea"]
    assert [r.name for r in sort_rows(listed, "next")] == [
        "Tea",
        "boom",
        "lost",
        "dream",
        "Standup",
    ]

    # The scheduler was not running for three hours: every enabled job is overdue.
    clock.advance(3 * 3600)
    later = int(clock() * 1000)
    assert status_text(rows["Tea"], later) == "Active · overdue"
    assert counts(listed, later)["attention"] == 4
    assert names("system", "status:overdue", later) == ["dream"]


def test_a_failure_recorded_by_nanobot_needs_attention(tmp_path: Path) -> None:
    """nanobot ran the job (no receipt of ours) and wrote ``lastStatus: error``."""
    clock = FakeClock("2026-05-01T10:00:00+00:00")
    cron = _service(tmp_path, clock)
    job = cron.add_job("news", CronSchedule("every", every_ms=MINUTE))
    data = json.loads(cron.store_path.read_text())
    data["jobs"][0]["state"].update(
        lastRunAtMs=ms("2026-05-01T09:59:00+00:00"), lastStatus="error", lastError="quota"
    )
    cron.store_path.write_text(json.dumps(data))
    (row,) = job_rows(cron)
    assert row.id == job.id and row.problems == ("failed",)
    assert row.last_ms == ms("2026-05-01T09:59:00+00:00")


def test_rename_keeps_the_schedule_and_refuses_system_jobs(tmp_path: Path) -> None:
    clock = FakeClock("2026-05-01T10:00:00+00:00")
    cron = _service(tmp_path, clock)
    job = cron.add_job("tea", CronSchedule("every", every_ms=MINUTE), message="Tea")
    cron.register_system_job("dream", CronSchedule("every", every_ms=120 * MINUTE))
    renamed = rename_job(cron, job.id, "  Afternoon   tea ")
    assert renamed.name == "Afternoon tea"
    stored = next(j for j in json.loads(cron.store_path.read_text())["jobs"] if j["id"] == job.id)
    assert stored["name"] == "Afternoon tea"
    assert stored["schedule"]["everyMs"] == MINUTE
    assert stored["state"]["nextRunAtMs"] == job.state.next_run_at_ms
    assert stored["payload"]["message"] == "Tea"
    with pytest.raises(ValueError, match="empty"):
        rename_job(cron, job.id, "   ")
    with pytest.raises(ValueError, match="system job"):
        rename_job(cron, "dream", "Sleep")
    with pytest.raises(ValueError, match="no job"):
        rename_job(cron, "gone", "x")
    with pytest.raises(ValueError, match="at most"):
        rename_job(cron, job.id, "x" * 201)


async def test_delete_then_undo_brings_the_job_back_exactly(tmp_path: Path) -> None:
    clock = FakeClock("2026-05-01T10:00:00+00:00")
    cron = _service(tmp_path, clock)
    await cron.start()
    try:
        job = cron.add_job("tea", CronSchedule("cron", expr="0 9 * * *"), message="Tea")
        await cron.run_now(job.id)
    finally:
        await cron.stop()
    before = cron.get_job(job.id)
    assert before is not None and before.state.history
    deleted = delete_reminder(cron, job.id)
    assert deleted is not None and cron.get_job(job.id) is None
    clock.advance(3600)
    undo_delete(cron, deleted)
    after = cron.get_job(job.id)
    assert after is not None and after.to_json() == before.to_json()
    assert [r.outcome for r in cron.receipts.read(job.id)] == ["delivered"]


def test_run_command_quotes_paths() -> None:
    assert run_command("ab12cd34") == "nanobot-desktop cron run ab12cd34"
    assert (
        run_command("dream", config_path=Path("/home/me/my config.json"))
        == "nanobot-desktop cron run --config '/home/me/my config.json' dream"
    )
