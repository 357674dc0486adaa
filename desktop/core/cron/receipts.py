"""Run receipts: what became of every cron run, kept append-only beside ``jobs.json``.

``jobs.json`` keeps only a job's last ten runs (nanobot's ``runHistory``) and loses them with
the job. Receipts keep the whole story, one JSON line per event, in
``<workspace>/cron/receipts/<job id>.jsonl``. nanobot reads only ``jobs.json`` and
``action.jsonl`` in that folder, so it ignores these files harmlessly.

A receipt's :attr:`Receipt.outcome` is one of :data:`OUTCOMES`:

* ``delivered`` -- the job ran and its answer reached the places in ``deliveredTo``
  (``quiet``: the window showed it without a pop-up, because reminders were paused there --
  the tray's "Pause reminders", a do-not-disturb: reminders still run and count as unread);
* ``ran`` -- the job ran and had nothing to deliver (Dream, the heartbeat);
* ``failed`` -- the job failed (``reason`` says why; a reminder's own text may still have
  been delivered, see ``deliveredTo``);
* ``undelivered`` -- the job ran but its answer reached no one; it is kept in the inbox
  (:class:`KeptReminders`) and shown at the next start;
* ``skipped`` -- the job did not run: the handler raised :class:`JobSkipped`. ``cause``
  ``budget``: the spend governor kept its model call from running (over a budget and kept
  paused, or stopped as a runaway); a reminder's own text is still delivered then, and
  ``deliveredTo`` says where. ``paused``: the job waits for the person (Dream while its last
  proposal awaits review). Neither is the Reminders page's "Pause" (the job is disabled and
  does not run at all) nor the tray's "Pause reminders" (they run and arrive quietly, above);
* ``done`` / ``snoozed`` -- the person answered the notification of run ``runId``.

``late`` marks a catch-up run for a time missed while the app was closed (``dueAtMs`` is that
time, ``missed`` how many runs it stands for).

Each record is written whole: one ``write`` of one line on a file opened for appending, then
``fsync``, under an inter-process lock (the app, a gateway and ``cron run`` may all write). A
line torn by a crash is closed off before the next record, so it costs only itself; readers
skip damaged lines (:func:`~desktop.core.utils.validate.read_jsonl`). Files and the lock are
opened below the workspace without following a link (:mod:`desktop.core.utils.ownfiles`):
a link or FIFO left where a receipt file belongs is never read, written through, or waited on.
"""

from __future__ import annotations

import contextvars
import hashlib
import json
import logging
import re
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from desktop.core.bus.events import DESKTOP_CHANNEL
from desktop.core.utils import ownfiles
from desktop.core.utils.ownfiles import OwnLock
from desktop.core.utils.validate import Unusable, notify, read_jsonl

log = logging.getLogger(__name__)

Outcome = Literal["delivered", "ran", "failed", "undelivered", "skipped", "done", "snoozed"]
OUTCOMES: tuple[str, ...] = (
    "delivered",
    "ran",
    "failed",
    "undelivered",
    "skipped",
    "done",
    "snoozed",
)
#: Outcomes that describe a run (the others answer one).
RUN_OUTCOMES = frozenset({"delivered", "ran", "failed", "undelivered", "skipped"})
RECEIPTS_DIR = "receipts"
KEPT_FILE = "undelivered.jsonl"
LOCK_TIMEOUT_S = 10.0
_SAFE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")

#: The receipt id of the run in progress in this task (a reminder carries it, so the person's
#: Snooze or Done can point at the run it answers).
CURRENT_RUN: contextvars.ContextVar[str] = contextvars.ContextVar("cron_run", default="")


def new_id() -> str:
    """A fresh receipt id."""
    return uuid.uuid4().hex[:12]


class JobSkipped(Exception):
    """Raised by a job handler that decided not to run the job.

    Args:
        reason: One sentence for the person.
        cause: ``budget`` or ``paused`` (see the module docstring).
        delivered: What was delivered all the same (a reminder's own text), if anything.
    """

    def __init__(
        self, reason: str, *, cause: str = "paused", delivered: JobResult | None = None
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.cause = cause
        self.delivered = delivered


@dataclass(frozen=True)
class JobResult:
    """What a job handler reports about a run (a plain ``str`` means ``ran``).

    Attributes:
        text: The answer.
        delivered_to: Where it reached the person (``desktop``, ``telegram``, ``terminal``…).
        undelivered: Why it reached no one (``None`` when it did, or had nothing to deliver).
        error: Why the run failed although something was delivered (the model was down).
        quiet: The window showed it without a pop-up (reminders were paused there).
    """

    text: str | None
    delivered_to: tuple[str, ...] = ()
    undelivered: str | None = None
    error: str | None = None
    quiet: bool = False


@dataclass(frozen=True)
class Receipt:
    """One line of a job's receipts file (see the module docstring)."""

    job_id: str
    outcome: str
    at_ms: int
    id: str = field(default_factory=new_id)
    job_name: str = ""
    due_at_ms: int | None = None
    duration_ms: int = 0
    late: bool = False
    missed: int = 0
    delivered_to: tuple[str, ...] = ()
    reason: str | None = None
    cause: str | None = None
    run_id: str | None = None
    quiet: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The camelCase line (empty fields left out)."""
        out: dict[str, Any] = {
            "id": self.id,
            "jobId": self.job_id,
            "outcome": self.outcome,
            "atMs": self.at_ms,
        }
        optional: dict[str, Any] = {
            "jobName": self.job_name,
            "dueAtMs": self.due_at_ms,
            "durationMs": self.duration_ms,
            "late": self.late,
            "missed": self.missed,
            "deliveredTo": list(self.delivered_to),
            "reason": self.reason,
            "cause": self.cause,
            "runId": self.run_id,
            "quiet": self.quiet,
        }
        out.update({k: v for k, v in optional.items() if v not in (None, "", 0, False, [])})
        out.update(self.extra)
        return out

    @classmethod
    def from_json(cls, data: Any) -> Receipt | None:
        """Read one line; ``None`` when it is not a usable receipt."""
        if not isinstance(data, dict):
            return None
        job_id, outcome, at_ms = data.get("jobId"), data.get("outcome"), data.get("atMs")
        if not isinstance(job_id, str) or not isinstance(outcome, str):
            return None
        if not isinstance(at_ms, int) or not _int(at_ms):
            return None
        places = data.get("deliveredTo")
        known = {
            "id",
            "jobId",
            "outcome",
            "atMs",
            "jobName",
            "dueAtMs",
            "durationMs",
            "late",
            "missed",
            "deliveredTo",
            "reason",
            "cause",
            "runId",
            "quiet",
        }
        return cls(
            job_id=job_id,
            outcome=outcome,
            at_ms=at_ms,
            id=_text(data.get("id")) or "",
            job_name=_text(data.get("jobName")) or "",
            due_at_ms=data["dueAtMs"] if _int(data.get("dueAtMs")) else None,
            duration_ms=data["durationMs"] if _int(data.get("durationMs")) else 0,
            late=data.get("late") is True,
            missed=data["missed"] if _int(data.get("missed")) else 0,
            delivered_to=tuple(p for p in places if isinstance(p, str))
            if isinstance(places, list)
            else (),
            reason=_text(data.get("reason")),
            cause=_text(data.get("cause")),
            run_id=_text(data.get("runId")),
            quiet=data.get("quiet") is True,
            extra={k: v for k, v in data.items() if k not in known},
        )


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def append_line(path: Path, record: dict[str, Any], lock: OwnLock) -> None:
    """Append ``record`` as one whole line to ``path`` (see the module docstring)."""
    line = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
    with lock:  # a line torn by a crash is closed off first
        ownfiles.append(path, line, root=lock.root)


def read_records(path: Path, root: Path | None = None) -> list[dict[str, Any]]:
    """The good JSON-object lines of ``path`` (below ``root``, no link followed); damaged ones
    are skipped and reported once."""
    try:
        lines = read_jsonl(path, root=root)
    except (Unusable, OSError) as exc:
        notify(f"{path} could not be read ({exc}); it was left as it is.")
        return []
    bad = [line for line in lines if not line.ok or not isinstance(line.value, dict)]
    if bad:
        notify(f"{path}: {len(bad)} damaged line(s) were skipped; the file was left as it is.")
    return [line.value for line in lines if line.ok and isinstance(line.value, dict)]


def file_name(job_id: str) -> str:
    """A safe file name for ``job_id`` (ids written by hand may hold any character)."""
    if _SAFE_ID.fullmatch(job_id):
        return f"{job_id}.jsonl"
    digest = hashlib.sha256(job_id.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"id-{digest}.jsonl"


class ReceiptLog:
    """Receipts of every job under ``<cron folder>/receipts``.

    Args:
        cron_dir: The folder holding ``jobs.json``.
    """

    def __init__(self, cron_dir: Path) -> None:
        self.folder = cron_dir / RECEIPTS_DIR
        self.root = cron_dir.parent  # the workspace
        self._lock = OwnLock(self.folder / ".lock", root=self.root, timeout=LOCK_TIMEOUT_S)

    def path(self, job_id: str) -> Path:
        """The receipts file of ``job_id``."""
        return self.folder / file_name(job_id)

    def append(self, receipt: Receipt) -> None:
        """Write one receipt (blocking: call it in a thread from the loop)."""
        append_line(self.path(receipt.job_id), receipt.to_json(), self._lock)

    def read(self, job_id: str) -> list[Receipt]:
        """Every receipt of ``job_id``, oldest first."""
        found = (Receipt.from_json(r) for r in read_records(self.path(job_id), self.root))
        return [r for r in found if r is not None and r.job_id == job_id]

    def last_run(self, job_id: str) -> tuple[Receipt | None, Receipt | None]:
        """The last run's receipt and the person's answer to it (``done``/``snoozed``)."""
        receipts = self.read(job_id)
        run = next((r for r in reversed(receipts) if r.outcome in RUN_OUTCOMES), None)
        answer = None
        if run is not None:
            answer = next(
                (
                    r
                    for r in reversed(receipts)
                    if r.run_id == run.id and r.outcome not in RUN_OUTCOMES
                ),
                None,
            )
        return run, answer


@dataclass(frozen=True)
class KeptReminder:
    """A reminder that reached no one, waiting for the next start."""

    id: str
    job_id: str
    job_name: str
    text: str
    session_key: str
    channel: str
    chat_id: str
    at_ms: int
    run_id: str = ""
    message: str = ""


class KeptReminders:
    """The inbox of undelivered reminders: ``<cron folder>/undelivered.jsonl``.

    Append-only: a ``kept`` line per reminder, a ``shown`` line once a front end showed it.
    """

    def __init__(self, cron_dir: Path) -> None:
        self.path = cron_dir / KEPT_FILE
        self.root = cron_dir.parent  # the workspace
        self._lock = OwnLock(
            cron_dir / RECEIPTS_DIR / ".lock", root=self.root, timeout=LOCK_TIMEOUT_S
        )

    def keep(self, reminder: KeptReminder) -> None:
        """Keep ``reminder`` for the next start (blocking)."""
        record = {
            "kept": reminder.id,
            "jobId": reminder.job_id,
            "jobName": reminder.job_name,
            "text": reminder.text,
            "sessionKey": reminder.session_key,
            "channel": reminder.channel,
            "chatId": reminder.chat_id,
            "atMs": reminder.at_ms,
            "runId": reminder.run_id,
            "message": reminder.message,
        }
        append_line(self.path, record, self._lock)

    def mark_shown(self, reminder_id: str, at_ms: int) -> None:
        """Record that ``reminder_id`` reached the person (blocking)."""
        append_line(self.path, {"shown": reminder_id, "atMs": at_ms}, self._lock)

    def pending(self) -> list[KeptReminder]:
        """Kept reminders not shown yet, oldest first."""
        kept: dict[str, KeptReminder] = {}
        shown: set[str] = set()
        for record in read_records(self.path, self.root):
            if isinstance(record.get("shown"), str):
                shown.add(record["shown"])
                continue
            rid, text = record.get("kept"), record.get("text")
            if not isinstance(rid, str) or not isinstance(text, str):
                continue
            kept[rid] = KeptReminder(
                id=rid,
                job_id=_text(record.get("jobId")) or "",
                job_name=_text(record.get("jobName")) or "",
                text=text,
                session_key=_text(record.get("sessionKey")) or "desktop:reminders",
                channel=_text(record.get("channel")) or DESKTOP_CHANNEL,
                chat_id=_text(record.get("chatId")) or "reminders",
                at_ms=record["atMs"] if _int(record.get("atMs")) else 0,
                run_id=_text(record.get("runId")) or "",
                message=_text(record.get("message")) or "",
            )
        return [r for rid, r in kept.items() if rid not in shown]
