"""Damage corpus for ``cron/jobs.json``: every field of job, schedule, payload, state and run
records with every wrong type, the version, the top level, and the file's shape.

For every case: loading never raises, the good jobs are kept exactly, the file is copied
byte-exact beside itself when anything had to be dropped (with a warning and a notice), every
job can be described (``cron list``) and scheduled, and the next save writes a clean file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktop.core.cron.service import CronService
from desktop.core.cron.spec import describe_job
from desktop.core.cron.store import JobStore
from desktop.core.cron.types import CronJob, CronSchedule
from tests.core.robust.corpus import (
    FRAGMENTS,
    SCRUBBED,
    UNPARSEABLE,
    aside_bytes,
    asides,
    make_fifo,
    nested_with,
    notices,
)

PAYLOAD = {
    "kind": "agent_turn",
    "message": "Hello",
    "deliver": False,
    "channel": None,
    "to": None,
    "channelMeta": {},
    "sessionKey": "desktop:reminders",
    "originChannel": "desktop",
    "originChatId": "reminders",
    "originMetadata": {},
}
RUN = {"runAtMs": 1000, "status": "ok", "durationMs": 5, "error": None, "runId": "r1"}
STATE = {
    "nextRunAtMs": None,
    "lastRunAtMs": 1000,
    "lastStatus": "ok",
    "lastError": None,
    "runHistory": [RUN],
}


def _job(job_id: str, schedule: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": job_id,
        "name": f"Job {job_id}",
        "enabled": True,
        "schedule": {"kind": "every", "atMs": None, "everyMs": None, "expr": None, "tz": None}
        | schedule,
        "payload": dict(PAYLOAD),
        "state": json.loads(json.dumps(STATE)),
        "createdAtMs": 1,
        "updatedAtMs": 2,
        "deleteAfterRun": False,
    }


GOOD1 = _job("good1", {"everyMs": 3_600_000})
GOOD2 = _job("good2", {"kind": "cron", "expr": "0 9 * * *", "tz": "Europe/Berlin"})
TARGETS = {
    "every": _job("target", {"everyMs": 60_000}),
    "at": _job("target", {"kind": "at", "atMs": 4_102_444_800_000}),
    "cron": _job("target", {"kind": "cron", "expr": "30 8 * * 1-5"}),
}

T_TEXT = {"null", "text", "empty_text"}
T_MS = {"null", "zero"}
T_FLAG = {"null", "true", "false"}
T_OBJECT = {"null", "object"}
ID_OK = {"text", "zero", "negative", "huge_int"}
# (target, path in the job) -> fragments that load the job unchanged in meaning.
FIELDS: dict[tuple[str, tuple[Any, ...]], set[str]] = {
    ("every", ("id",)): ID_OK,
    ("every", ("name",)): T_TEXT,
    ("every", ("enabled",)): T_FLAG,
    ("every", ("schedule",)): set(),
    ("every", ("payload",)): T_OBJECT,
    ("every", ("state",)): T_OBJECT,
    ("every", ("createdAtMs",)): T_MS,
    ("every", ("updatedAtMs",)): T_MS,
    ("every", ("deleteAfterRun",)): T_FLAG,
    ("every", ("schedule", "kind")): set(),
    ("every", ("schedule", "everyMs")): set(),
    ("every", ("schedule", "atMs")): T_MS,
    ("every", ("schedule", "expr")): T_TEXT,
    ("every", ("schedule", "tz")): {"null"},
    ("at", ("schedule", "atMs")): {"zero"},
    ("cron", ("schedule", "expr")): set(),
    ("cron", ("schedule", "tz")): {"null"},
    **{("every", ("payload", key)): T_TEXT for key in ("kind", "message", "channel", "to")},
    ("every", ("payload", "deliver")): T_FLAG,
    ("every", ("payload", "channelMeta")): T_OBJECT,
    ("every", ("payload", "sessionKey")): T_TEXT,
    ("every", ("payload", "originChannel")): T_TEXT,
    ("every", ("payload", "originChatId")): T_TEXT,
    ("every", ("payload", "originMetadata")): T_OBJECT,
    ("every", ("state", "nextRunAtMs")): T_MS,
    ("every", ("state", "lastRunAtMs")): T_MS,
    ("every", ("state", "lastStatus")): T_TEXT,
    ("every", ("state", "lastError")): T_TEXT,
    ("every", ("state", "runHistory")): {"null"},
    **{("every", ("state", "runHistory", 0, key)): T_MS for key in ("runAtMs", "durationMs")},
    **{("every", ("state", "runHistory", 0, key)): T_TEXT for key in ("status", "error", "runId")},
    ("every", ("state", "runHistory", 0, "late")): T_FLAG,
}


def _document(target: dict[str, Any]) -> dict[str, Any]:
    return {"version": 1, "jobs": [GOOD1, target, GOOD2]}


def _with_fragment(target: dict[str, Any], path: tuple[Any, ...], fragment: str) -> bytes:
    marker = "__FIELD_MARKER__"
    job = json.loads(json.dumps(target))
    node: Any = job
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = marker
    text = json.dumps(_document(job), indent=2)
    return text.replace(json.dumps(marker), fragment).encode()


def _path(ws: Path) -> Path:
    return ws / "cron" / "jobs.json"


def _write(ws: Path, data: bytes) -> Path:
    path = _path(ws)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _clean(job: dict[str, Any]) -> dict[str, Any]:
    """How a good job reads back (the store's own serialization)."""
    return CronJob.from_json(json.loads(json.dumps(job))).to_json()


async def _check_service(ws: Path) -> list[str]:
    """A real service: load, describe, register system jobs, start and stop the timer."""

    async def never(job: object) -> None:
        raise AssertionError("no job is due in these tests")

    service = CronService(_path(ws), on_job=never, default_tz="UTC", clock=lambda: 1.0)
    jobs = service.list_jobs()
    for job in jobs:
        assert describe_job(job, protected=service.is_protected(job.id), tz="UTC")
    service.register_system_job("dream", CronSchedule("every", every_ms=7_200_000))
    await service.start()
    await service.stop()
    return [job.id for job in service.list_jobs()]


@pytest.mark.parametrize("fragment", list(FRAGMENTS))
@pytest.mark.parametrize(
    ("target", "path"),
    list(FIELDS),
    ids=[f"{t}:{'.'.join(map(str, p))}" for t, p in FIELDS],
)
async def test_job_field_of_every_wrong_type(
    tmp_path: Path,
    target: str,
    path: tuple[Any, ...],
    fragment: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """One job with a bad field: the good jobs are kept, the damage is copied aside."""
    original = _with_fragment(TARGETS[target], path, FRAGMENTS[fragment])
    file = _write(tmp_path, original)
    store = JobStore(file)
    store.refresh()
    ids = [job.id for job in store.jobs]
    if fragment in UNPARSEABLE:
        assert ids == [] and store.warning
        assert aside_bytes(file) == original
        assert "dream" in await _check_service(tmp_path)
        return
    good = {job.id: job.to_json() for job in store.jobs}
    assert good["good1"] == _clean(GOOD1) and good["good2"] == _clean(GOOD2)
    if fragment in FIELDS[(target, path)] and fragment not in SCRUBBED:
        assert len(ids) == 3 and store.warning is None and not asides(file)
    else:
        assert store.warning and "jobs.json" in store.warning
        assert aside_bytes(file) == original, "the file as it was is kept byte-exact"
        assert any("jobs.json" in n for n in notices(caplog))
    after = await _check_service(tmp_path)
    assert {"good1", "good2", "dream"} <= set(after)
    again = JobStore(file)
    again.refresh()
    assert again.warning is None, "the save wrote a clean file"
    assert len(asides(file)) <= 1


@pytest.mark.parametrize("fragment", list(FRAGMENTS))
@pytest.mark.parametrize("field", ["version", "jobs"])
async def test_top_level_fields(tmp_path: Path, field: str, fragment: str) -> None:
    """A bad version is replaced; a ``jobs`` that is not a list of jobs keeps nothing of it."""
    original = nested_with(_document(TARGETS["every"]), (field,), FRAGMENTS[fragment])
    file = _write(tmp_path, original)
    store = JobStore(file)
    store.refresh()
    if field == "version" and fragment not in UNPARSEABLE:
        assert [job.id for job in store.jobs] == ["good1", "target", "good2"]
    assert store.warning and aside_bytes(file) == original
    await _check_service(tmp_path)


def test_duplicate_ids_keep_the_first(tmp_path: Path) -> None:
    """A second job with the same id is set aside."""
    second = _job("good1", {"everyMs": 1000})
    original = json.dumps({"version": 1, "jobs": [GOOD1, second]}).encode()
    file = _write(tmp_path, original)
    store = JobStore(file)
    store.refresh()
    assert [job.to_json() for job in store.jobs] == [_clean(GOOD1)]
    assert aside_bytes(file) == original


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"{not json",
        b"\xff\xfe{}",
        b"[]",
        b'"jobs"',
        b"null",
        b"\xef\xbb\xbf" + json.dumps(_document(TARGETS["every"])).encode(),
        b'{"jobs": [' + b"0," * (9 * 1024 * 1024) + b"0]}",
    ],
    ids=["empty", "not_json", "not_utf8", "array", "string", "null", "bom", "too_large"],
)
async def test_whole_file_shapes(tmp_path: Path, content: bytes) -> None:
    """Whole files that cannot be used start the scheduler empty; the bytes are kept."""
    file = _write(tmp_path, content)
    store = JobStore(file)
    store.refresh()
    if content.startswith(b"\xef\xbb\xbf"):
        assert [job.id for job in store.jobs] == ["good1", "target", "good2"]
    elif content:
        assert store.jobs == [] and store.warning and aside_bytes(file) == content
    assert "dream" in await _check_service(tmp_path)


@pytest.mark.parametrize("shape", ["folder", "fifo", "cron_is_a_file"])
async def test_store_path_that_is_not_a_file(
    tmp_path: Path, shape: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A folder or FIFO at ``jobs.json`` (or a file at ``cron/``) is moved aside; jobs work."""
    file = _path(tmp_path)
    if shape == "cron_is_a_file":
        file.parent.write_text("a file named cron")
    else:
        file.parent.mkdir()
        if shape == "folder":
            file.mkdir()
            (file / "inside").write_text("kept")
        else:
            make_fifo(file)
    assert "dream" in await _check_service(tmp_path)
    assert notices(caplog)
    moved = asides(file.parent if shape == "cron_is_a_file" else file)
    assert len(moved) == 1
    if shape == "folder":
        assert (moved[0] / "inside").read_text() == "kept"
    assert json.loads(file.read_text())["jobs"][0]["id"] == "dream"
