"""The usage ledger: one JSON line per model call, appended, never rewritten.

Where: ``<config folder>/usage/<workspace id>/ledger-YYYY-MM.jsonl`` (the UTC month of the
call; :mod:`desktop.core.usage.place` finds the folder and moves a ledger earlier versions kept
in the workspace). Per workspace because spend belongs to what the agent does there: the app
and ``nanobot-desktop gateway`` on the same workspace add to the same file (under the folder's
``.ledger.lock``), and a second workspace keeps its own account. Beside the config, not in the
workspace, so that no command the model runs can forge or delete it. One file per month so
that "today" and "this month" read one or two small files however long the app has been used,
and a closed month is never opened for writing again.

How a record is written (:meth:`UsageLedger.append`): under the lock, a file whose last byte
is not a newline (a crash cut an append short) first gets one, so the fragment stays a line of
its own and the new record is never glued onto it; then the record is written on an
``O_APPEND`` descriptor and flushed to disk. Nothing already in the file is ever changed, so a
crash can cost at most the record being written. The month totals are then counted in the
checkpoint (:mod:`desktop.core.usage.checkpoint`), so a ledger that vanishes is noticed. A
record that cannot be written is kept in memory (:attr:`UsageLedger.unwritten`, still counted
by the budgets) and written before the next one.

Reading (:func:`read_records`) is tolerant: a damaged line, or a record whose figures no model
call can have (:func:`~desktop.core.usage.record.implausible`: negative or enormous tokens or cost, a time far in the
future), is copied aside once (``ledger-….jsonl.damaged-…``, see
:mod:`desktop.core.utils.validate_aside`) and not counted. Files are opened through
:mod:`desktop.core.utils.ownfiles` (no link followed, no FIFO waited on).

Calls that ended without an answer are recorded too, so budgets and the runaway guard count
what they cost: ``"outcome": "stopped"`` (cancelled: ``/stop``, a cancelled background run) or
``"failed"``, with the server's usage when it sent some, else an estimate of the prompt and the
output streamed (``"estimated": true``), or zero tokens when nothing reached the server. Both
keys are left out for an answered call, so its line is the same as before they existed, and a
reader that does not know them counts the tokens all the same.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from desktop.core.providers.switchable import ModelCall
from desktop.core.usage import checkpoint
from desktop.core.usage.place import LedgerPlace
from desktop.core.usage.record import UsageRecord, parse_line
from desktop.core.utils import ownfiles
from desktop.core.utils.validate import JsonLine, Unusable, read_jsonl
from desktop.core.utils.validate_aside import set_aside_lines

log = logging.getLogger(__name__)


def ledger_file(folder: Path, when: float) -> Path:
    """The month file a call made at ``when`` goes to."""
    return Path(folder) / f"ledger-{checkpoint.month_of(when)}.jsonl"


def month_files(folder: Path, since: float, until: float) -> list[Path]:
    """The month files that can hold calls made between ``since`` and ``until``."""
    files: list[Path] = []
    day = datetime.fromtimestamp(since, UTC).replace(day=1, hour=0, minute=0, second=0)
    end = datetime.fromtimestamp(until, UTC)
    while day <= end:
        files.append(ledger_file(folder, day.timestamp()))
        day = (
            day.replace(year=day.year + 1, month=1)
            if day.month == 12
            else day.replace(month=day.month + 1)
        )
    return files


def read_file(path: Path, *, root: Path) -> list[UsageRecord]:
    """Every good record of one ledger file (below ``root``: nothing followed); damaged,
    forged and garbage lines are copied aside and skipped."""
    try:
        lines = read_jsonl(path, root=root)
    except Unusable as exc:
        log.warning("usage ledger %s cannot be read: %s", path, exc.reason)
        return []
    records: list[UsageRecord] = []
    bad: list[JsonLine] = []
    now = time.time()
    for line in lines:
        record = parse_line(line.value, now) if line.ok else None
        if record is None:
            bad.append(line)
        else:
            records.append(record)
    if bad:
        try:
            copy = set_aside_lines(path, bad, "damaged", root=root)
            log.warning(
                "usage ledger %s: %d damaged or implausible line(s) kept in %s and not counted",
                path,
                len(bad),
                copy,
            )
        except OSError:
            log.exception("keeping the damaged lines of %s aside failed", path)
    return records


def read_records(place: LedgerPlace, since: float, until: float) -> list[UsageRecord]:
    """The calls made between ``since`` and ``until`` (blocking: call it in a thread)."""
    found: list[UsageRecord] = []
    for path in month_files(place.folder, since, until):
        found.extend(r for r in read_file(path, root=place.root) if since <= r.time < until)
    return found


def read_months(
    place: LedgerPlace, since: float, until: float
) -> tuple[list[UsageRecord], list[checkpoint.Gap]]:
    """The calls made between ``since`` and ``until``, and what the ledger of those months
    lost compared with the checkpoint (blocking: call it in a thread)."""
    marks = checkpoint.load(place)  # before the ledger: an append meanwhile is no gap
    found: list[UsageRecord] = []
    gaps: list[checkpoint.Gap] = []
    for path in month_files(place.folder, since, until):
        records = read_file(path, root=place.root)
        found.extend(r for r in records if since <= r.time < until)
        exists = ownfiles.entry_kind(path, root=place.root) == "file"
        month = path.stem.removeprefix("ledger-")
        lost = checkpoint.gap(place, month, checkpoint.count(records), exists=exists, marks=marks)
        if lost is not None:
            gaps.append(lost)
    return found, gaps


class UsageLedger:
    """Appends :class:`UsageRecord` lines to the workspace's ledger.

    Args:
        place: Where the ledger is (:func:`desktop.core.usage.place.locate`).

    Attributes:
        unwritten: Records whose append failed, oldest first; written before the next record,
            and counted by the budgets meanwhile.
    """

    def __init__(self, place: LedgerPlace) -> None:
        self.place = place
        self.folder = place.folder
        self.unwritten: list[UsageRecord] = []
        self._guard = threading.Lock()

    def append(self, record: UsageRecord) -> Path:
        """Write ``record`` at the end of its month file, durably (blocking). Returns the file.

        Records an earlier append could not write go first.

        Raises:
            OSError: It could not be written (it is kept in :attr:`unwritten`).
            filelock.Timeout: Another process held the lock too long (kept likewise).
        """
        with self._guard:
            queue = [*self.unwritten, record]
            self.unwritten = []
            try:
                with self.place.lock():
                    while queue:
                        path = self._write(queue[0])
                        queue.pop(0)
            finally:
                self.unwritten = queue
        return path

    def _write(self, record: UsageRecord) -> Path:
        path = ledger_file(self.folder, record.time)
        root = self.place.root
        before, after = ownfiles.append(path, record.to_line(), root=root)
        try:
            checkpoint.after_append(
                self.place, record, before, after, lambda: read_file(path, root=root)
            )
        except OSError as exc:  # the record is on disk: only the second copy is behind
            log.warning("the usage checkpoint could not be updated: %s", exc)
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
        except Exception as exc:  # noqa: BLE001 - a lock timeout too: the call stays counted
            log.error(
                "writing the usage ledger failed (%s); the call is kept in memory, counted by "
                "the budgets, and written with the next one",
                exc,
            )
