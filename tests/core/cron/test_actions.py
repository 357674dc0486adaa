"""nanobot's queued job edits (``cron/action.jsonl``) merged into ``jobs.json``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from filelock import FileLock

from desktop.core.cron.service import CronService

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "nanobot_0_3_5" / "action.jsonl"


async def _never(job: Any) -> str:
    return ""


def _jobs_json(path: Path) -> None:
    job = {"id": "keep", "name": "kept", "enabled": True}
    job |= {"schedule": {"kind": "every", "everyMs": 60000}, "payload": {"message": "hi"}}
    job |= {"state": {"nextRunAtMs": 1795643800000}}
    path.write_text(json.dumps({"version": 1, "jobs": [job]}))


def test_queued_edits_from_nanobot_are_merged_by_the_scheduler(tmp_path: Path) -> None:
    """The queue the real nanobot 0.3.5 wrote (two adds, an update, a delete) is applied in
    order as nanobot's owner does, saved to jobs.json, and emptied."""
    cron = tmp_path / "cron"
    cron.mkdir()
    _jobs_json(cron / "jobs.json")
    shutil.copy(FIXTURE, cron / "action.jsonl")
    svc = CronService(cron / "jobs.json", on_job=_never, default_tz="UTC")
    svc.load()
    assert [j.id for j in svc.store.jobs] == ["keep", "c7df19d3"]
    added = svc.store.get("c7df19d3")
    assert added is not None and not added.enabled and added.schedule.every_ms == 3_600_000
    assert added.payload.session_key == "telegram:42" and added.payload.message.startswith("Remind")
    saved = json.loads((cron / "jobs.json").read_text())
    assert [j["id"] for j in saved["jobs"]] == ["keep", "c7df19d3"]
    assert (
        saved["jobs"][1]["enabled"] is False
        and saved["jobs"][1]["schedule"]["everyMs"] == 3_600_000
    )
    assert (cron / "action.jsonl").read_text() == ""
    svc.load()  # nothing queued: nothing changes
    assert [j.id for j in svc.store.jobs] == ["keep", "c7df19d3"]


def test_an_update_replaces_the_job_in_place_and_waits_for_the_lock(tmp_path: Path) -> None:
    cron = tmp_path / "cron"
    cron.mkdir()
    _jobs_json(cron / "jobs.json")
    svc = CronService(cron / "jobs.json", on_job=_never, default_tz="UTC")
    svc.load()
    params = {"id": "keep", "name": "renamed", "enabled": True}
    params |= {"schedule": {"kind": "every", "every_ms": 120000}, "payload": {"message": "hi"}}
    with FileLock(str(cron) + ".lock"):  # nanobot's cron lock, as it holds it while appending
        (cron / "action.jsonl").write_text(
            json.dumps({"action": "update", "params": params}) + "\n"
        )
    svc.load()
    [job] = svc.store.jobs
    assert (job.name, job.schedule.every_ms) == ("renamed", 120000)


def test_unusable_lines_are_kept_aside_not_dropped(tmp_path: Path) -> None:
    cron = tmp_path / "cron"
    cron.mkdir()
    _jobs_json(cron / "jobs.json")
    (cron / "action.jsonl").write_text(
        'not json\n{"action": "del", "params": {"job_id": "keep"}}\n{"no": "action"}\n'
    )
    svc = CronService(cron / "jobs.json", on_job=_never, default_tz="UTC")
    svc.load()
    assert svc.store.jobs == []
    [copy] = list(cron.glob("action.jsonl.corrupt-*"))
    assert copy.read_text().startswith("not json\n")
    assert (cron / "action.jsonl").read_text() == ""
