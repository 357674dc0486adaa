"""jobs.json shared with other processes, nanobot's real file, and runs that overlap ticks."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path

from desktop.core.cron.delivery import job_target
from desktop.core.cron.service import CronService
from desktop.core.cron.types import CronJob, CronSchedule
from tests.core.cron.test_cron import FakeClock, Recorder, make
from tests.typed import present
from tests.waiting import until

NANOBOT_JOBS = (
    Path(__file__).parents[2] / "fixtures" / "nanobot_0_3_5" / "workspace" / "cron" / "jobs.json"
)


def test_a_job_added_by_another_process_is_seen_and_kept(tmp_path: Path) -> None:
    """Two services (app + CLI) on one file: neither overwrites the other's job."""
    clock = FakeClock("2026-05-01T10:00:00+00:00")
    app = make(tmp_path, clock)
    mine = app.add_job("mine", CronSchedule("every", every_ms=60_000))
    code = (
        "import sys; from desktop.core.cron.service import CronService;"
        "from desktop.core.cron.types import CronSchedule;"
        "s = CronService(sys.argv[1], on_job=None);"
        "print(s.add_job('theirs', CronSchedule('every', every_ms=120_000)).id)"
    )
    theirs = subprocess.run(
        [sys.executable, "-c", code, str(app.store_path)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    assert {j.id for j in app.list_jobs()} == {mine.id, theirs}
    app.enable_job(mine.id, False)  # a save from the app keeps their job
    on_disk = {j["id"]: j["enabled"] for j in json.loads(app.store_path.read_text())["jobs"]}
    assert on_disk == {mine.id: False, theirs: True}


def test_the_lock_file_is_nanobots(tmp_path: Path) -> None:
    """The inter-process lock is ``<workspace>/cron.lock``, the file nanobot locks too."""
    app = make(tmp_path, FakeClock("2026-05-01T10:00:00+00:00"))
    app.add_job("x", CronSchedule("every", every_ms=1000))
    assert (tmp_path / "cron.lock").exists()


async def test_a_long_run_is_not_started_twice(tmp_path: Path) -> None:
    """An every-minute job whose run takes longer than a minute runs once at a time."""
    clock = FakeClock("2026-05-01T10:00:00+00:00")
    release = asyncio.Event()
    calls: list[str] = []

    async def slow(job: CronJob) -> str:
        calls.append(job.id)
        await release.wait()
        return "done"

    svc = make(tmp_path, clock, slow)
    job = svc.add_job("slow", CronSchedule("every", every_ms=60_000))
    other = svc.add_job("other", CronSchedule("every", every_ms=60_000))
    clock.advance(60)
    first = asyncio.ensure_future(svc.tick())
    await until(lambda: len(calls) == 2, what="both jobs started")
    calls_before = list(calls)
    clock.advance(120)
    second = asyncio.ensure_future(svc.tick())
    await asyncio.sleep(0.2)  # the test: a second tick that started nothing in 0.2 s
    assert calls_before == [job.id, other.id] and calls == calls_before, (
        "claimed jobs are not re-run"
    )
    release.set()
    await asyncio.gather(first, second)
    assert present(svc.get_job(job.id)).state.last_status == "ok"


async def test_nanobot_jobs_json_loads_and_round_trips(tmp_path: Path) -> None:
    """A jobs.json written by nanobot 0.3.5 (its CronService) loads; untouched jobs are saved byte-for-byte in value."""
    target = tmp_path / "cron" / "jobs.json"
    target.parent.mkdir()
    shutil.copy(NANOBOT_JOBS, target)
    original = json.loads(target.read_text())
    clock = FakeClock("2026-11-21T22:00:00+00:00")
    svc = make(tmp_path, clock, Recorder(), protected={"dream", "heartbeat"})
    jobs = {j.name: j for j in svc.list_jobs()}
    assert set(jobs) == {"water plants", "standup", "dentist", "dream", "heartbeat"}
    assert svc.is_protected("dream") and svc.is_protected("heartbeat")
    assert not svc.is_protected(jobs["standup"].id)
    assert jobs["standup"].schedule.tz == "Europe/Berlin" and jobs["dentist"].delete_after_run
    assert job_target(jobs["water plants"].payload) == ("telegram", "42", "telegram:42")
    svc.enable_job(jobs["dentist"].id, False)
    saved = json.loads(target.read_text())
    assert saved["version"] == original["version"]
    before = {j["id"]: j for j in original["jobs"]}
    for job in saved["jobs"]:
        if job["id"] != jobs["dentist"].id:
            assert job == before[job["id"]]
    assert [j["id"] for j in saved["jobs"]] == [j["id"] for j in original["jobs"]]


async def test_start_runs_nanobots_system_jobs_through_the_handler(tmp_path: Path) -> None:
    """Overdue system jobs from a nanobot store run once at start, like any missed job."""
    target = tmp_path / "cron" / "jobs.json"
    target.parent.mkdir()
    shutil.copy(NANOBOT_JOBS, target)
    rec = Recorder()
    svc = CronService(
        target, on_job=rec, clock=FakeClock("2026-11-23T00:00:00+00:00"), default_tz="UTC"
    )
    await svc.start()
    await svc.idle()
    await svc.stop()
    assert set(rec.calls) >= {"dream", "heartbeat"}
    assert all(present(svc.get_job(i)).state.history[-1].late for i in ("dream", "heartbeat"))


def test_our_jobs_have_exactly_nanobots_keys(tmp_path: Path) -> None:
    """Jobs we write carry the same keys, at every level, as the ones nanobot 0.3.5 wrote."""
    from desktop.core.cron.types import CronPayload

    svc = make(tmp_path, FakeClock("2026-05-01T10:00:00+00:00"))
    svc.add_job(
        "x",
        CronSchedule("cron", expr="0 9 * * 1-5", tz="Europe/Berlin"),
        CronPayload(
            message="m", session_key="telegram:42", origin_channel="telegram", origin_chat_id="42"
        ),
    )
    svc.register_system_job("dream", CronSchedule("every", every_ms=7_200_000))
    ours = {j["id"]: j for j in json.loads(svc.store_path.read_text())["jobs"]}
    theirs = {j["name"]: j for j in json.loads(NANOBOT_JOBS.read_text())["jobs"]}
    for mine, reference in (
        (ours["dream"], theirs["dream"]),
        (next(j for i, j in ours.items() if i != "dream"), theirs["standup"]),
    ):
        assert set(mine) == set(reference)
        for part in ("schedule", "payload", "state"):
            assert set(mine[part]) == set(reference[part]), part
        assert mine["payload"]["kind"] == reference["payload"]["kind"]


async def test_start_does_not_wait_for_the_catch_up(tmp_path: Path) -> None:
    """A slow missed job runs in the background: start() returns at once, idle() waits for it."""
    clock = FakeClock("2026-05-01T10:00:00+00:00")
    release = asyncio.Event()

    async def slow(job: CronJob) -> str:
        await release.wait()
        return "late but done"

    first = make(tmp_path, clock)
    job = first.add_job("missed", CronSchedule("every", every_ms=60_000))
    clock.advance(600)
    svc = make(tmp_path, clock, slow)
    # start() returns although the job is blocked (were it waited for, this would time out:
    # nothing releases it before); the bound is generous for a loaded machine.
    await asyncio.wait_for(svc.start(), 30)
    assert present(svc.get_job(job.id)).state.last_run_at_ms is None
    release.set()
    await asyncio.wait_for(svc.idle(), 30)
    assert present(svc.get_job(job.id)).state.history[-1].late is True
    await svc.stop()


def test_a_hand_written_job_without_next_run_is_scheduled(tmp_path: Path) -> None:
    """A job with ``"state": {}`` gets its next run even when a system job was registered first."""
    target = tmp_path / "cron" / "jobs.json"
    target.parent.mkdir()
    at = "2026-05-01T12:00:00+00:00"
    from tests.core.cron.test_cron import ms

    target.write_text(
        json.dumps(
            {
                "version": 1,
                "jobs": [
                    {
                        "id": "hand",
                        "name": "hand",
                        "schedule": {"kind": "at", "atMs": ms(at)},
                        "payload": {"message": "hi"},
                        "state": {},
                    }
                ],
            }
        )
    )
    svc = make(tmp_path, FakeClock("2026-05-01T10:00:00+00:00"))
    svc.register_system_job("dream", CronSchedule("every", every_ms=7_200_000))
    assert present(svc.get_job("hand")).state.next_run_at_ms == ms(at)
