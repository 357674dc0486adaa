"""The usage ledger: one JSON line per model call, appended, never rewritten.

Where: ``<workspace>/usage/ledger-YYYY-MM.jsonl`` (the UTC month of the call). In the
workspace because spend belongs to what the agent does there: the app and ``nanobot-desktop
gateway`` on the same workspace add to the same file (under ``usage/.ledger.lock``), and a
second workspace keeps its own account. One file per month so that "today" and "this month"
read one or two small files however long the app has been used, and a closed month is never
opened for writing again. nanobot ignores the folder (the memory repository's ``.gitignore``
ignores everything but the memory files).

How a record is written (:meth:`UsageLedger.append`): under the lock, a file whose last byte
is not a newline (a crash cut an append short) first gets one, so the fragment stays a line of
its own and the new record is never glued onto it; then the record is written in one
``write`` on an ``O_APPEND`` descriptor and flushed to disk. Nothing already in the file is
ever changed, so a crash can cost at most the record being written.

Reading (:func:`read_records`) is tolerant: a damaged line is copied aside once
(``ledger-….jsonl.corrupt-…``, see :mod:`desktop.core.utils.validate_aside`) and skipped.

Calls that ended without an answer are recorded too, so budgets and the runaway guard count
what they cost: ``"outcome": "stopped"`` (cancelled: ``/stop``, a cancelled background run) or
``"failed"``, with the server's usage when it sent some, else an estimate of the prompt and the
output streamed (``"estimated": true``), or zero tokens when nothing reached the server. Both
keys are left out for an answered call, so its line is the same as before they existed, and a
reader that does not know them counts the tokens all the same.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from filelock import FileLock

from desktop.core.providers.switchable import ModelCall
from desktop.core.utils.validate import Unusable, read_jsonl
from desktop.core.utils.validate_aside import set_aside_lines

log = logging.getLogger(__name__)

FOLDER = "usage"
LOCK_NAME = ".ledger.lock"
LOCK_TIMEOUT_S = 10.0
VERSION = 1


@dataclass(frozen=True)
class UsageRecord:
    """One model call in the ledger.

    Attributes:
        time: When the call started (seconds since the epoch).
        source: What the call was for (see :class:`~desktop.core.providers.switchable.UsageTag`).
        session: The session key (``""`` when none).
        channel: The chat channel (``""`` when none).
        job: The cron job id (``""`` when none).
        phase: Dream's phase (1 or 2), else 0.
        run: Id shared by the calls of one background run (``""`` when none).
        model: The model asked.
        prompt_tokens: Prompt tokens the server reported.
        completion_tokens: Completion tokens the server reported.
        cached_tokens: Of the prompt tokens, those served from the cache.
        cost_usd: Price from LiteLLM's bundled price map; ``None`` when the model is not in it.
        duration_s: Wall time of the call.
        outcome: ``ok`` (answered), ``stopped`` (cancelled) or ``failed``.
        estimated: The tokens are an estimate (the server never reported them).
    """

    time: float
    source: str
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cost_usd: float | None = None
    duration_s: float = 0.0
    session: str = ""
    channel: str = ""
    job: str = ""
    phase: int = 0
    run: str = ""
    outcome: str = "ok"
    estimated: bool = False

    @property
    def tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    @classmethod
    def from_call(cls, call: ModelCall) -> UsageRecord:
        """The record of one call (answered, stopped or failed)."""
        tag, usage = call.tag, call.usage
        return cls(
            time=call.started,
            source=tag.source,
            model=call.model,
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            cached_tokens=usage.cached_tokens,
            cost_usd=usage.cost_usd,
            duration_s=round(call.duration_s, 3),
            session=tag.session,
            channel=tag.channel,
            job=tag.job,
            phase=tag.phase,
            run=tag.run,
            outcome=call.outcome,
            estimated=call.estimated,
        )

    def to_line(self) -> bytes:
        """The JSON line (newline included); ``time`` as ISO 8601 UTC for people reading it."""
        data: dict[str, Any] = {"v": VERSION, **asdict(self)}
        data["time"] = datetime.fromtimestamp(self.time, UTC).isoformat(timespec="milliseconds")
        if self.outcome == "ok":
            del data["outcome"]
        if not self.estimated:
            del data["estimated"]
        return json.dumps(data, ensure_ascii=False).encode("utf-8") + b"\n"

    @classmethod
    def from_json(cls, value: Any) -> UsageRecord | None:
        """A record from a parsed line (``None`` when it is not one)."""
        if not isinstance(value, dict):
            return None
        try:
            when = datetime.fromisoformat(str(value["time"])).timestamp()
            cost = value.get("cost_usd")
            return cls(
                time=when,
                source=str(value.get("source") or "agent"),
                model=str(value.get("model") or ""),
                prompt_tokens=_count(value.get("prompt_tokens")),
                completion_tokens=_count(value.get("completion_tokens")),
                cached_tokens=_count(value.get("cached_tokens")),
                cost_usd=float(cost) if isinstance(cost, int | float) and cost >= 0 else None,
                duration_s=float(value.get("duration_s") or 0.0),
                session=str(value.get("session") or ""),
                channel=str(value.get("channel") or ""),
                job=str(value.get("job") or ""),
                phase=_count(value.get("phase")),
                run=str(value.get("run") or ""),
                outcome=str(value.get("outcome") or "ok"),
                estimated=value.get("estimated") is True,
            )
        except (KeyError, TypeError, ValueError):
            return None


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return max(0, int(value))


def ledger_folder(workspace: Path) -> Path:
    """``<workspace>/usage``."""
    return Path(workspace) / FOLDER


def ledger_file(workspace: Path, when: float) -> Path:
    """The month file a call made at ``when`` goes to."""
    month = datetime.fromtimestamp(when, UTC).strftime("%Y-%m")
    return ledger_folder(workspace) / f"ledger-{month}.jsonl"


def month_files(workspace: Path, since: float, until: float) -> list[Path]:
    """The month files that can hold calls made between ``since`` and ``until``."""
    files: list[Path] = []
    day = datetime.fromtimestamp(since, UTC).replace(day=1, hour=0, minute=0, second=0)
    end = datetime.fromtimestamp(until, UTC)
    while day <= end:
        files.append(ledger_file(workspace, day.timestamp()))
        day = (
            day.replace(year=day.year + 1, month=1)
            if day.month == 12
            else day.replace(month=day.month + 1)
        )
    return files


def read_file(path: Path) -> list[UsageRecord]:
    """Every good record of one ledger file; damaged lines are copied aside and skipped."""
    try:
        lines = read_jsonl(path)
    except Unusable as exc:
        log.warning("usage ledger %s cannot be read: %s", path, exc.reason)
        return []
    records: list[UsageRecord] = []
    bad = []
    for line in lines:
        record = UsageRecord.from_json(line.value) if line.ok else None
        if record is None:
            bad.append(line)
        else:
            records.append(record)
    if bad:
        try:
            copy = set_aside_lines(path, bad, "damaged")
            log.warning("usage ledger %s: %d damaged line(s) kept in %s", path, len(bad), copy)
        except OSError:
            log.exception("keeping the damaged lines of %s aside failed", path)
    return records


def read_records(workspace: Path, since: float, until: float) -> list[UsageRecord]:
    """The calls made between ``since`` and ``until`` (blocking: call it in a thread)."""
    found: list[UsageRecord] = []
    for path in month_files(workspace, since, until):
        found.extend(r for r in read_file(path) if since <= r.time < until)
    return found


class UsageLedger:
    """Appends :class:`UsageRecord` lines to the workspace's ledger.

    Args:
        workspace: The workspace folder.
    """

    def __init__(self, workspace: Path) -> None:
        self.workspace = Path(workspace)
        self.folder = ledger_folder(self.workspace)
        self._lock = FileLock(str(self.folder / LOCK_NAME), timeout=LOCK_TIMEOUT_S)

    def append(self, record: UsageRecord) -> Path:
        """Write ``record`` at the end of its month file, durably (blocking). Returns the file."""
        path = ledger_file(self.workspace, record.time)
        line = record.to_line()
        self.folder.mkdir(parents=True, exist_ok=True)
        with self._lock:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                size = os.fstat(fd).st_size
                if size and not _ends_with_newline(path, size):
                    line = b"\n" + line  # isolate a fragment left by a crash
                written = os.write(fd, line)
                if written != len(line):  # a full disk: finish the line or leave a fragment
                    os.write(fd, line[written:])
                (getattr(os, "fdatasync", None) or os.fsync)(fd)
            finally:
                os.close(fd)
        return path

    def extend(self, records: Iterable[UsageRecord]) -> None:
        """Append several records (blocking)."""
        for record in records:
            self.append(record)

    async def record(self, call: ModelCall) -> None:
        """The call listener: append the call's record off the event loop (answered or not)."""
        record = UsageRecord.from_call(call)
        try:
            await asyncio.to_thread(self.append, record)
        except OSError:
            log.exception("writing the usage ledger failed (the call is not counted)")


def _ends_with_newline(path: Path, size: int) -> bool:
    with path.open("rb") as handle:
        handle.seek(size - 1)
        return handle.read(1) == b"\n"
