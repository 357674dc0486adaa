"""``cron/action.jsonl``: job edits nanobot queues when it does not own the scheduler.

A nanobot 0.3.5 process whose scheduler is not running (``nanobot agent``, a second
gateway) does not write ``jobs.json``; it appends one JSON object per edit to
``action.jsonl`` beside it, under the cron lock:

* ``{"action": "add" | "update", "params": <the whole job>}`` — the job with its dataclass
  field names (snake_case: ``every_ms``, ``next_run_at_ms``, ``session_key``…);
* ``{"action": "del", "params": {"job_id": "<id>"}}``.

The scheduler's owner applies them in file order when it reloads the jobs: ``del`` removes
the job with that id; any other action replaces the job with the same id in place, or adds
it at the end; a line without ``action`` is skipped. Then the queue is emptied. This module
does the same, under the same lock (:class:`~desktop.core.cron.store.JobStore` holds it),
with two differences that keep data safe: ``jobs.json`` is saved *before* the queue is
emptied (a crash between the two re-applies the same edits, which changes nothing), and a
queue with lines that cannot be used is first copied aside (``action.jsonl.corrupt-<time>``)
with a notice instead of being dropped.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path

from desktop.core.cron.types import CronJob
from desktop.core.utils.atomic import atomic_write_text
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.validate import (
    Unusable,
    notify,
    read_bytes_limited,
    set_aside_file,
    summarize,
)
from desktop.core.utils.validate_fields import BadRecord

log = logging.getLogger(__name__)

ACTIONS_FILE = "action.jsonl"
MAX_ACTIONS_BYTES = 16 * 1024 * 1024


def pending(path: Path) -> bool:
    """Whether ``path`` (an ``action.jsonl``) holds anything to apply."""
    try:
        return path.is_file() and path.stat().st_size > 0
    except OSError:
        return False


def apply_actions(jobs: list[CronJob], raw: bytes) -> tuple[list[CronJob], int, list[str]]:
    """Apply queued actions to ``jobs``.

    Returns:
        The new job list, how many actions were applied, and the problems of lines that
        could not be used.
    """
    by_id = {job.id: job for job in jobs}
    applied = 0
    problems: list[str] = []
    for number, line in enumerate(raw.decode("utf-8", "replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            problems.append(Phrase(QT_TR_NOOP("line {number} is not JSON"), number=number))
            continue
        if not isinstance(record, dict) or "action" not in record:
            continue
        params = record.get("params") or {}
        if record["action"] == "del":
            job_id = params.get("job_id") if isinstance(params, dict) else None
            if isinstance(job_id, str) and job_id:
                by_id.pop(job_id, None)
            applied += 1
            continue
        try:
            job = CronJob.from_json(params, [], f"line {number}")
        except (BadRecord, TypeError, ValueError) as exc:
            said = exc.args[0] if len(exc.args) == 1 else str(exc)
            problems.append(Phrase(QT_TR_NOOP("line {number}: {error}"), number=number, error=said))
            continue
        if not job.id:
            problems.append(Phrase(QT_TR_NOOP("line {number}: a job without an id"), number=number))
            continue
        by_id[job.id] = job
        applied += 1
    return list(by_id.values()), applied, problems


def merge_queue(
    path: Path,
    jobs: list[CronJob],
    save: Callable[[list[CronJob]], None],
    *,
    tell: Callable[[str], object] = notify,
) -> list[CronJob] | None:
    """Apply ``path``'s actions to ``jobs``, save through ``save(jobs)``, empty the queue.

    The caller holds the cron lock. Returns the new job list, or ``None`` when there was
    nothing to apply (the queue is left as it is when it cannot be read). What went wrong is
    told to ``tell`` (a phrase; by default logged once as a notice).
    """
    root = path.parent.parent  # the workspace: no link below it is followed
    try:
        raw = read_bytes_limited(path, MAX_ACTIONS_BYTES, root=root)
    except (OSError, Unusable) as exc:
        template = QT_TR_NOOP("{path} cannot be read ({error}); the queued job edits wait")
        tell(
            Phrase(
                template,
                path=str(path),
                error=exc.reason if isinstance(exc, Unusable) else str(exc),
            )
        )
        return None
    if not raw:
        return None
    merged, applied, problems = apply_actions(jobs, raw)
    if problems:
        try:
            copy = set_aside_file(path, "corrupt", root=root)
        except OSError as exc:
            template = QT_TR_NOOP(
                "{path} has unusable lines and cannot be copied aside ({error}); kept as is"
            )
            tell(Phrase(template, path=str(path), error=str(exc)))
            return None
        template = QT_TR_NOOP("{path}: {problems}; the queue was kept as {name}")
        listed = summarize(problems[:3])  # no "and N more" here, as before
        tell(Phrase(template, path=str(path), problems=listed, name=copy.name))
    save(merged)
    atomic_write_text(path, "", root=root)
    log.info("applied %d queued job edit(s) from %s", applied, path)
    return merged
