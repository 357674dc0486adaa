"""The ledger out of the model's reach: where it lives, the move from the workspace, forged
lines, a ledger deleted behind the app's back, and records that could not be written."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from desktop.core.assembly import build_runtime, usage_place
from desktop.core.config.budgets import Budgets
from desktop.core.config.loader import load_config
from desktop.core.runtime import Runtime
from desktop.core.usage import place as place_module
from desktop.core.usage.governor import BudgetRefused
from desktop.core.usage.ledger import UsageLedger, read_file
from desktop.core.usage.place import LedgerPlace, locate, migrate
from desktop.core.usage.record import UsageRecord
from desktop.core.usage.summary import load_summary, render_text
from tests.conftest import write_config
from tests.core.agent.conftest import make_provider
from tests.core.robust.corpus import make_fifo
from tests.core.usage.helpers import ledger_files, records_of
from tests.fakes.openai_server import ScriptedOpenAIServer

REPO = Path(__file__).resolve().parents[3]
MONTH = datetime.now(UTC).strftime("%Y-%m")


@pytest.fixture(autouse=True)
def fresh_moves() -> None:
    """Each test moves its own legacy ledger (the once-per-process memory is cleared)."""
    place_module._migrated.clear()


def _cfg(tmp_path: Path, **defaults: Any) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    return write_config(
        tmp_path / "cfg" / "config.json",
        {"agents": {"defaults": {"workspace": str(ws), "timezone": "UTC", **defaults}}},
    )


def _record(tokens: int, when: float | None = None, **extra: Any) -> UsageRecord:
    return UsageRecord(
        time=when or time.time() - 1, source="chat", model="m", prompt_tokens=tokens, **extra
    )


def _legacy(ws: Path, records: list[UsageRecord]) -> Path:
    """A ledger as earlier versions kept it, in ``<workspace>/usage``."""
    UsageLedger(LedgerPlace.in_workspace(ws)).extend(records)
    return ws / "usage" / f"ledger-{MONTH}.jsonl"


def test_the_ledger_lives_beside_the_config_per_workspace_id(tmp_path: Path) -> None:
    config = load_config(_cfg(tmp_path), environ={})
    place = usage_place(config)
    ws_id = (config.workspace_path / ".nanobot" / "workspace-id").read_text().strip()
    assert place.folder == tmp_path / "cfg" / "usage" / ws_id
    assert place.shared and place.root == tmp_path / "cfg"
    UsageLedger(place).append(_record(5))
    assert [r.prompt_tokens for r in records_of(place)] == [5]
    assert not (config.workspace_path / "usage").exists()


def test_a_legacy_ledger_is_moved_whole_once_and_the_move_is_idempotent(tmp_path: Path) -> None:
    config = load_config(_cfg(tmp_path), environ={})
    ws = config.workspace_path
    old = _legacy(ws, [_record(1), _record(2)])
    aside = old.with_name(old.name + ".damaged-20260101-000000")
    aside.write_bytes(b"garbage\n")
    content = old.read_bytes()
    place = locate(ws, tmp_path / "cfg")
    moved = place.folder / old.name
    assert moved.read_bytes() == content
    assert (place.folder / aside.name).read_bytes() == b"garbage\n"
    assert not (ws / "usage").exists(), "the old folder is gone once empty"
    assert migrate(place) == 0  # again: nothing left to move
    place_module._migrated.clear()
    assert locate(ws, tmp_path / "cfg").folder == place.folder
    assert moved.read_bytes() == content


def test_a_move_cut_short_merges_without_duplicating_a_record(tmp_path: Path) -> None:
    """A crash after the copy and before the removal: the next start appends only the lines
    the new file lacks."""
    config = load_config(_cfg(tmp_path), environ={})
    ws = config.workspace_path
    place = locate(ws, tmp_path / "cfg", move=False)
    old = _legacy(ws, [_record(1), _record(2), _record(3)])
    lines = old.read_bytes().splitlines(keepends=True)
    place.folder.mkdir(parents=True)
    (place.folder / old.name).write_bytes(lines[0] + lines[1])  # a copy, then new appends
    UsageLedger(place).append(_record(4))
    assert migrate(place) == 1
    tokens = [r.prompt_tokens for r in records_of(place)]
    assert sorted(tokens) == [1, 2, 3, 4] and len(tokens) == 4
    assert not old.exists()


MOVER = """
import sys
from pathlib import Path
from desktop.core.usage.place import locate
locate(Path(sys.argv[1]), Path(sys.argv[2]))
"""


def test_two_processes_moving_at_once_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    config = load_config(_cfg(tmp_path), environ={})
    ws = config.workspace_path
    place = locate(ws, tmp_path / "cfg", move=False)
    _legacy(ws, [_record(n) for n in range(1, 51)])
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    movers = [
        subprocess.Popen([sys.executable, "-c", MOVER, str(ws), str(tmp_path / "cfg")], env=env)
        for _ in range(2)
    ]
    for mover in movers:
        assert mover.wait(120) == 0
    assert sorted(r.prompt_tokens for r in records_of(place)) == list(range(1, 51))
    assert not (ws / "usage").exists()


def test_a_planted_link_in_the_old_folder_is_not_followed(tmp_path: Path) -> None:
    config = load_config(_cfg(tmp_path), environ={})
    ws = config.workspace_path
    outside = tmp_path / "outside.jsonl"
    outside.write_text('{"forged": true}\n')
    (ws / "usage").mkdir()
    (ws / "usage" / f"ledger-{MONTH}.jsonl").symlink_to(outside)
    make_fifo(ws / "usage" / "ledger-2020-01.jsonl")
    place = locate(ws, tmp_path / "cfg")
    assert ledger_files(place) == []
    assert outside.read_text() == '{"forged": true}\n'


def test_forged_or_garbage_figures_are_set_aside_and_not_counted(tmp_path: Path) -> None:
    place = LedgerPlace.in_workspace(tmp_path)
    path = UsageLedger(place).append(_record(10))
    good = json.loads(path.read_text())
    forged = [
        {**good, "cost_usd": -5.0},
        {**good, "cost_usd": 1e9},
        {**good, "prompt_tokens": 10**12},
        {**good, "completion_tokens": -100},
        {**good, "time": "2099-01-01T00:00:00.000+00:00"},
    ]
    with path.open("a") as handle:
        handle.writelines(json.dumps(line) + "\n" for line in forged)
    assert [r.prompt_tokens for r in read_file(path, root=place.root)] == [10]
    kept = list(path.parent.glob(f"{path.name}.damaged-*"))
    assert len(kept) == 1 and kept[0].read_text().count("\n") == len(forged)


def _runtime(tmp_path: Path, server: ScriptedOpenAIServer, budgets: dict[str, Any]) -> Runtime:
    config = load_config(_cfg(tmp_path), environ={})
    return build_runtime(
        config, make_provider(server.url), budgets=lambda: Budgets.model_validate(budgets)
    )


CAP = {"sources": {"chat": {"dailyTokens": 40}}, "chatHardCap": True}


async def test_a_forged_enormous_line_cannot_lock_chats_out(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = _runtime(tmp_path, scripted_server, CAP)
    assert runtime.ledger is not None
    path = runtime.ledger.append(_record(5))
    line = json.loads(path.read_text())
    with path.open("a") as handle:
        handle.write(json.dumps({**line, "prompt_tokens": 10**12, "cost_usd": 1e9}) + "\n")
    try:
        assert await runtime.agent.process_direct("hello") == "Hello from the scripted server."
    finally:
        await runtime.stop()


async def test_a_planted_lock_or_ledger_in_the_workspace_cannot_stop_the_counting(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """A symlinked ``usage/.ledger.lock`` once stopped every call being counted (a hard cap
    was passed) and a linked ledger made the app append to a file elsewhere: the ledger is no
    longer in the workspace, and the cap holds."""
    ws = tmp_path / "ws"
    outside = tmp_path / "outside"
    outside.mkdir()
    (ws / "usage").mkdir(parents=True)
    (ws / "usage" / ".ledger.lock").symlink_to(outside / "x.lock")
    (ws / "usage" / f"ledger-{MONTH}.jsonl").symlink_to(outside / "ledger.jsonl")
    runtime = _runtime(tmp_path, scripted_server, CAP)
    try:
        for text in ("one", "two", "three"):
            await runtime.agent.process_direct(text)
        with pytest.raises(BudgetRefused):
            await runtime.agent.process_direct("four")
    finally:
        await runtime.stop()
    assert list(outside.iterdir()) == []


async def test_a_deleted_ledger_still_counts_and_is_reported(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Chat capped at 40 tokens a day, 15 per call: the third call is refused even though the
    ledger was deleted after the first (its checkpoint still counts that call)."""
    runtime = _runtime(tmp_path, scripted_server, CAP)
    assert runtime.ledger is not None
    place = runtime.ledger.place
    try:
        await runtime.agent.process_direct("one")
        for path in ledger_files(place):
            path.unlink()
        await runtime.agent.process_direct("two")
        await runtime.agent.process_direct("three")
        with pytest.raises(BudgetRefused):
            await runtime.agent.process_direct("four")
    finally:
        await runtime.stop()
    assert len(scripted_server.chat_requests()) == 3
    summary = await asyncio.to_thread(load_summary, place, zone="UTC")
    assert summary.month.calls == 2
    [warning] = summary.warnings
    assert "lost 1 call (15 tokens, $0.00)" in warning  # deleted, then written again
    assert "still count toward the budgets" in warning
    assert f"Warning: {warning}" in render_text(summary)


async def test_a_record_that_cannot_be_written_is_counted_and_written_later(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = _runtime(tmp_path, scripted_server, CAP)
    assert runtime.ledger is not None
    place = runtime.ledger.place
    place.folder.mkdir(parents=True, exist_ok=True)
    hidden = place.folder.with_name("elsewhere")
    place.folder.rename(hidden)
    place.folder.symlink_to(hidden, target_is_directory=True)  # refused: never followed
    try:
        await runtime.agent.process_direct("one")
        await runtime.agent.process_direct("two")
        assert len(runtime.ledger.unwritten) == 2
        await runtime.agent.process_direct("three")
        with pytest.raises(BudgetRefused):
            await runtime.agent.process_direct("four")
        place.folder.unlink()
        place.folder.mkdir()
        runtime.ledger.append(_record(1))
    finally:
        await runtime.stop()
    assert runtime.ledger.unwritten == []
    assert len(records_of(place)) == 4
    assert list(hidden.iterdir()) == []


def test_the_cli_usage_says_the_ledger_lost_calls(tmp_path: Path) -> None:
    config = load_config(_cfg(tmp_path), environ={})
    place = usage_place(config)
    ledger = UsageLedger(place)
    ledger.extend([_record(100), _record(200)])
    path = ledger_files(place)[0]
    path.write_bytes(path.read_bytes().splitlines(keepends=True)[0])  # cut: one record lost
    summary = load_summary(place, zone="UTC")
    [warning] = summary.warnings
    assert "lost 1 call (200 tokens, $0.00): it was changed outside the app" in warning
