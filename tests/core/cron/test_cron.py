"""Clock-driven tests for the cron store, schedules and service."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from desktop.core.cron.schedule import next_run, validate_schedule
from desktop.core.cron.service import CronService, JobHandler, ProtectedJobError
from desktop.core.cron.types import CronJob, CronSchedule
from tests.typed import present
from tests.waiting import until


def ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso).timestamp() * 1000)


class FakeClock:
    def __init__(self, iso: str) -> None:
        self.t = ms(iso) / 1000

    def __call__(self) -> float:
        return self.t

    def set(self, iso: str) -> None:
        self.t = ms(iso) / 1000

    def advance(self, seconds: float) -> None:
        self.t += seconds


class Recorder:
    def __init__(self, fail: bool = False) -> None:
        self.calls: list[str] = []
        self.fail = fail

    async def __call__(self, job: CronJob) -> str | None:
        self.calls.append(job.id)
        if self.fail:
            raise RuntimeError("boom")
        return f"done {job.id}"


def make(
    tmp_path: Path,
    clock: FakeClock,
    rec: JobHandler | None = None,
    **kw: Any,
) -> CronService:
    return CronService(
        tmp_path / "cron" / "jobs.json",
        on_job=rec or Recorder(),
        clock=clock,
        default_tz="UTC",
        **kw,
    )


# ------------------------------------------------------------------ schedules
def test_next_run_every_and_at() -> None:
    assert next_run(CronSchedule("every", every_ms=60_000), 1_000) == 61_000
    assert next_run(CronSchedule("at", at_ms=5_000), 1_000) == 5_000
    assert next_run(CronSchedule("at", at_ms=5_000), 5_000) is None


@pytest.mark.parametrize(
    "expr,start,expected",
    [
        # spring forward: 02:30 does not exist on 2026-03-29, runs at 03:30 CEST (01:30 UTC)
        (
            "30 2 * * *",
            "2026-03-27T12:00:00+00:00",
            ["2026-03-28T01:30:00+00:00", "2026-03-29T01:30:00+00:00", "2026-03-30T00:30:00+00:00"],
        ),
        (
            "0 9 * * *",
            "2026-03-27T12:00:00+00:00",
            ["2026-03-28T08:00:00+00:00", "2026-03-29T07:00:00+00:00", "2026-03-30T07:00:00+00:00"],
        ),
        # fall back: 02:30 happens twice on 2026-10-25, runs once (first occurrence)
        (
            "30 2 * * *",
            "2026-10-23T12:00:00+00:00",
            ["2026-10-24T00:30:00+00:00", "2026-10-25T00:30:00+00:00", "2026-10-26T01:30:00+00:00"],
        ),
        (
            "0 9 * * *",
            "2026-10-23T12:00:00+00:00",
            ["2026-10-24T07:00:00+00:00", "2026-10-25T08:00:00+00:00", "2026-10-26T08:00:00+00:00"],
        ),
    ],
)
def test_cron_across_dst_berlin(expr: str, start: str, expected: list[str]) -> None:
    sched = CronSchedule("cron", expr=expr, tz="Europe/Berlin")
    after = ms(start)
    got = []
    for _ in expected:
        after = present(next_run(sched, after, "UTC"))
        got.append(after)
    assert got == [ms(e) for e in expected]


def test_cron_uses_default_tz() -> None:
    sched = CronSchedule("cron", expr="0 9 * * *")
    assert next_run(sched, ms("2026-06-01T00:00:00+00:00"), "America/New_York") == ms(
        "2026-06-01T13:00:00+00:00"
    )


def test_validate_schedule_errors_and_warnings() -> None:
    with pytest.raises(ValueError, match="5 fields"):
        validate_schedule(CronSchedule("cron", expr="0 9 * *"))
    with pytest.raises(ValueError, match="invalid cron"):
        validate_schedule(CronSchedule("cron", expr="99 9 * * *"))
    with pytest.raises(ValueError, match="unknown timezone"):
        validate_schedule(CronSchedule("cron", expr="0 9 * * *", tz="Mars/Olympus"))
    with pytest.raises(ValueError, match="greater than 0"):
        validate_schedule(CronSchedule("every", every_ms=0))
    warnings = validate_schedule(CronSchedule("at", at_ms=1_000), now_ms=2_000)
    assert warnings and "past" in warnings[0]
    assert validate_schedule(CronSchedule("at", at_ms=3_000), now_ms=2_000) == []


# ------------------------------------------------------------------ service, by kind
async def test_every_job_with_fake_clock(tmp_path: Path) -> None:
    clock, rec = FakeClock("2026-05-01T10:00:00+00:00"), Recorder()
    svc = make(tmp_path, clock, rec)
    await svc.start()
    job = svc.add_job("ping", CronSchedule("every", every_ms=60_000), message="hi")
    clock.advance(59)
    await svc.tick()
    assert rec.calls == []
    clock.advance(1)
    await svc.tick()
    assert rec.calls == [job.id]
    assert job.state.last_status == "ok"
    assert job.state.next_run_at_ms == ms("2026-05-01T10:02:00+00:00")
    clock.advance(60)
    await svc.tick()
    assert rec.calls == [job.id, job.id]
    await svc.stop()


async def test_cron_job_fires_at_berlin_time_across_dst(tmp_path: Path) -> None:
    clock, rec = FakeClock("2026-03-28T12:00:00+00:00"), Recorder()
    svc = make(tmp_path, clock, rec)
    await svc.start()
    job = svc.add_job("morning", CronSchedule("cron", expr="0 9 * * *", tz="Europe/Berlin"))
    assert job.state.next_run_at_ms == ms("2026-03-29T07:00:00+00:00")
    clock.set("2026-03-29T06:59:59+00:00")
    await svc.tick()
    assert rec.calls == []
    clock.set("2026-03-29T07:00:00+00:00")
    await svc.tick()
    assert rec.calls == [job.id]
    assert job.state.next_run_at_ms == ms("2026-03-30T07:00:00+00:00")
    await svc.stop()


async def test_at_job_deleted_after_run(tmp_path: Path) -> None:
    clock, rec = FakeClock("2026-05-01T10:00:00+00:00"), Recorder()
    svc = make(tmp_path, clock, rec)
    await svc.start()
    job = svc.add_job(
        "once", CronSchedule("at", at_ms=ms("2026-05-01T10:05:00+00:00")), delete_after_run=True
    )
    clock.set("2026-05-01T10:05:00+00:00")
    await svc.tick()
    assert rec.calls == [job.id]
    assert svc.get_job(job.id) is None
    stored = json.loads(svc.store_path.read_text())
    assert stored["jobs"] == []
    await svc.stop()


async def test_at_job_disabled_after_run_without_delete(tmp_path: Path) -> None:
    clock, rec = FakeClock("2026-05-01T10:00:00+00:00"), Recorder(fail=True)
    svc = make(tmp_path, clock, rec)
    await svc.start()
    job = svc.add_job("once", CronSchedule("at", at_ms=ms("2026-05-01T10:05:00+00:00")))
    clock.set("2026-05-01T10:06:00+00:00")
    await svc.tick()
    await svc.tick()
    assert rec.calls == [job.id]
    kept = svc.get_job(job.id)
    assert kept is not None and not kept.enabled and kept.state.next_run_at_ms is None
    assert kept.state.last_status == "error" and kept.state.last_error == "boom"
    assert svc.list_jobs(include_disabled=False) == []
    await svc.stop()


async def test_history_is_capped_and_run_now_keeps_schedule(tmp_path: Path) -> None:
    clock, rec = FakeClock("2026-05-01T10:00:00+00:00"), Recorder()
    svc = make(tmp_path, clock, rec)
    job = svc.add_job("x", CronSchedule("every", every_ms=3_600_000))
    before = job.state.next_run_at_ms
    for _ in range(12):
        assert await svc.run_now(job.id) == f"done {job.id}"
    assert len(job.state.history) == 10
    assert job.state.next_run_at_ms == before
    svc.enable_job(job.id, False)
    assert job.state.next_run_at_ms is None
    svc.enable_job(job.id, True)
    assert job.state.next_run_at_ms == ms("2026-05-01T11:00:00+00:00")


# ------------------------------------------------------------------ missed runs
async def test_missed_runs_catch_up_once(tmp_path: Path) -> None:
    clock, rec = FakeClock("2026-05-01T10:00:00+00:00"), Recorder()
    svc = make(tmp_path, clock, rec)
    every = svc.add_job("every", CronSchedule("every", every_ms=60_000))
    at = svc.add_job("at", CronSchedule("at", at_ms=ms("2026-05-01T10:02:00+00:00")))
    future = svc.add_job("later", CronSchedule("at", at_ms=ms("2026-05-02T00:00:00+00:00")))
    # closed for 5.5 minutes: `every` missed 5 runs, `at` missed its one time
    clock.set("2026-05-01T10:05:30+00:00")
    rec2 = Recorder()
    svc2 = make(tmp_path, clock, rec2)
    await svc2.start()
    await svc2.idle()
    assert sorted(rec2.calls) == sorted([every.id, at.id])
    e = svc2.get_job(every.id)
    assert present(e).state.history[-1].late is True
    assert present(e).state.next_run_at_ms == ms("2026-05-01T10:06:30+00:00")
    a = svc2.get_job(at.id)
    assert present(a).state.history[-1].late and not present(a).enabled
    assert present(svc2.get_job(future.id)).state.next_run_at_ms == ms("2026-05-02T00:00:00+00:00")
    await svc2.tick()
    assert len(rec2.calls) == 2
    stored = json.loads(svc2.store_path.read_text())
    hist = next(j for j in stored["jobs"] if j["id"] == every.id)["state"]["runHistory"]
    assert hist[-1]["late"] is True
    await svc2.stop()


# ------------------------------------------------------------------ protected, corrupt
async def test_protected_jobs_refused(tmp_path: Path) -> None:
    clock = FakeClock("2026-05-01T10:00:00+00:00")
    svc = make(tmp_path, clock, protected={"dream", "heartbeat"})
    svc.add_job("Dream", CronSchedule("every", every_ms=7_200_000), job_id="dream")
    with pytest.raises(ProtectedJobError, match="system job"):
        svc.remove_job("dream")
    assert svc.get_job("dream") is not None
    assert present(svc.enable_job("dream", False)).enabled is False
    other = svc.add_job("mine", CronSchedule("every", every_ms=1000))
    assert svc.remove_job(other.id) is True
    assert svc.remove_job("nope") is False
    with pytest.raises(ValueError, match="already exists"):
        svc.add_job("again", CronSchedule("every", every_ms=1000), job_id="dream")


async def test_corrupt_store_set_aside_and_start_empty(tmp_path: Path) -> None:
    path = tmp_path / "cron" / "jobs.json"
    path.parent.mkdir()
    path.write_text("{not json", encoding="utf-8")
    svc = make(tmp_path, FakeClock("2026-05-01T10:00:00+00:00"))
    await svc.start()
    assert svc.list_jobs() == []
    assert svc.warning and "corrupt-" in svc.warning
    copies = list(path.parent.glob("jobs.json.corrupt-*"))
    assert len(copies) == 1 and copies[0].read_text() == "{not json"
    assert copies[0].name.startswith("jobs.json.corrupt-2")
    svc.add_job("x", CronSchedule("every", every_ms=1000))
    assert copies[0].read_text() == "{not json"
    assert json.loads(path.read_text())["jobs"][0]["name"] == "x"
    await svc.stop()


# ------------------------------------------------------------------ format
NANOBOT_FIXTURE: dict[str, Any] = {
    "version": 1,
    "futureTopLevel": {"a": 1},
    "jobs": [
        {
            "id": "abc12345",
            "name": "weekday standup",
            "enabled": True,
            "schedule": {
                "kind": "cron",
                "atMs": None,
                "everyMs": None,
                "expr": "0 9 * * 1-5",
                "tz": "Europe/Berlin",
            },
            "payload": {
                "kind": "agent_turn",
                "message": "Standup!",
                "deliver": True,
                "channel": "telegram",
                "to": "42",
                "channelMeta": {"thread": 7},
                "sessionKey": "telegram:42",
                "originChannel": "telegram",
                "originChatId": "42",
                "originMetadata": {},
                "futurePayloadKey": "keep",
            },
            "state": {
                "nextRunAtMs": 1893488400000,
                "lastRunAtMs": 1777000000000,
                "lastStatus": "ok",
                "lastError": None,
                "runHistory": [
                    {
                        "runAtMs": 1777000000000,
                        "status": "ok",
                        "durationMs": 12,
                        "error": None,
                        "runId": "r1",
                        "futureRunKey": 1,
                    }
                ],
                "futureStateKey": True,
            },
            "createdAtMs": 1776000000000,
            "updatedAtMs": 1777000000000,
            "deleteAfterRun": False,
            "futureJobKey": [1, 2],
        }
    ],
}


async def test_written_store_uses_nanobot_field_names(tmp_path: Path) -> None:
    clock = FakeClock("2026-05-01T10:00:00+00:00")
    svc = make(tmp_path, clock)
    svc.add_job(
        "remind",
        CronSchedule("at", at_ms=ms("2026-05-01T11:00:00+00:00")),
        message="tea",
        delete_after_run=True,
    )
    written = json.loads(svc.store_path.read_text())
    fixture_job = NANOBOT_FIXTURE["jobs"][0]
    assert set(written) == {"version", "jobs"} and written["version"] == 1
    job = written["jobs"][0]
    known = {k for k in fixture_job if not k.startswith("future")}
    assert set(job) == known
    for part in ("schedule", "payload", "state"):
        assert set(job[part]) == {k for k in fixture_job[part] if not k.startswith("future")}
    assert job["schedule"]["atMs"] == ms("2026-05-01T11:00:00+00:00")
    assert job["deleteAfterRun"] is True and job["payload"]["message"] == "tea"


async def test_nanobot_fixture_round_trip_preserves_unknown_keys(tmp_path: Path) -> None:
    path = tmp_path / "cron" / "jobs.json"
    path.parent.mkdir()
    path.write_text(json.dumps(NANOBOT_FIXTURE), encoding="utf-8")
    clock = FakeClock("2026-05-01T10:00:00+00:00")
    svc = make(tmp_path, clock, protected={"dream"})
    job = svc.get_job("abc12345")
    assert present(job).payload.session_key == "telegram:42" and present(job).payload.to == "42"
    assert (
        present(job).schedule.expr == "0 9 * * 1-5" and present(job).state.history[0].run_id == "r1"
    )
    svc.enable_job("abc12345", True)  # forces a save
    saved = json.loads(path.read_text())
    assert saved["futureTopLevel"] == {"a": 1}
    sj = saved["jobs"][0]
    assert sj["futureJobKey"] == [1, 2]
    assert sj["payload"]["futurePayloadKey"] == "keep"
    assert sj["payload"]["channelMeta"] == {"thread": 7}
    assert sj["state"]["futureStateKey"] is True
    assert sj["state"]["runHistory"][0] == NANOBOT_FIXTURE["jobs"][0]["state"]["runHistory"][0]
    assert CronJob.from_json(sj).to_json() == sj


async def test_atomic_writes_leave_no_temp_files(tmp_path: Path) -> None:
    clock = FakeClock("2026-05-01T10:00:00+00:00")
    svc = make(tmp_path, clock)
    ids = [svc.add_job(f"j{i}", CronSchedule("every", every_ms=1000)).id for i in range(5)]
    for i in ids[:3]:
        svc.remove_job(i)
    assert sorted(p.name for p in svc.store_path.parent.iterdir()) == ["jobs.json"]


# ------------------------------------------------------------------ real timer
async def test_real_timer_fires_job(tmp_path: Path) -> None:
    fired = asyncio.Event()
    calls: list[str] = []

    async def on_job(job: CronJob) -> str:
        calls.append(job.id)
        fired.set()
        return "ok"

    svc = CronService(tmp_path / "jobs.json", on_job=on_job, default_tz="UTC")
    await svc.start()
    import time as _time

    job = svc.add_job(
        "soon", CronSchedule("at", at_ms=int((_time.time() + 0.2) * 1000)), delete_after_run=True
    )
    await asyncio.wait_for(fired.wait(), timeout=30)
    await until(lambda: svc.get_job(job.id) is None, what="the job deleted after its run")
    assert calls == [job.id]
    await svc.stop()


async def test_jobs_changed_from_worker_threads_still_fire(tmp_path: Path) -> None:
    """The job API runs in worker threads (the cron tool, the GUI); the timer must survive it.

    Regression: re-arming from a thread cancelled the only timer and could not arm a new one
    (no event loop in the worker), so nothing fired again until a restart.
    """
    import time as _time

    fired: list[str] = []
    both = asyncio.Event()

    async def on_job(job: CronJob) -> str:
        fired.append(job.name)
        if len(fired) == 2:
            both.set()
        return "ok"

    svc = CronService(tmp_path / "jobs.json", on_job=on_job, default_tz="UTC")
    await svc.start()
    try:
        soon = CronSchedule("at", at_ms=int((_time.time() + 0.5) * 1000))
        await asyncio.to_thread(svc.add_job, "from-thread", soon, delete_after_run=True)
        # Another change from a thread after the first (list/enable/remove all re-arm).
        await asyncio.to_thread(svc.list_jobs)
        later = CronSchedule("at", at_ms=int((_time.time() + 1.0) * 1000))
        other = await asyncio.to_thread(svc.add_job, "second", later, delete_after_run=True)
        await asyncio.to_thread(svc.enable_job, other.id, True)
        await asyncio.wait_for(both.wait(), timeout=10)
    finally:
        await svc.stop()
    assert sorted(fired) == ["from-thread", "second"]
