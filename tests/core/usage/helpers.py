"""Finding the usage ledger in tests (it lives beside the config, not in the workspace)."""

from __future__ import annotations

from pathlib import Path

from desktop.core.assembly import usage_place
from desktop.core.config.schema import Config
from desktop.core.usage.ledger import UsageLedger, read_file
from desktop.core.usage.place import LedgerPlace
from desktop.core.usage.record import UsageRecord


def place_of(config: Config) -> LedgerPlace:
    """Where a runtime built on ``config`` keeps its ledger."""
    return usage_place(config)


def ledger_of(config: Config) -> UsageLedger:
    """A ledger writing where a runtime built on ``config`` reads."""
    return UsageLedger(place_of(config))


def ledger_files(place: LedgerPlace) -> list[Path]:
    """The month files, oldest first."""
    return sorted(place.folder.glob("ledger-*.jsonl"))


def only_file(place: LedgerPlace) -> Path:
    """The one month file (a test runs within one month)."""
    files = ledger_files(place)
    assert len(files) == 1, files
    return files[0]


def records_of(place: LedgerPlace) -> list[UsageRecord]:
    """Every good record of every month file."""
    return [r for path in ledger_files(place) for r in read_file(path, root=place.root)]
