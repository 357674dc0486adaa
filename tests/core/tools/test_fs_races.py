"""The file tools under a real symlink-swapping attacker.

A thread flips a folder of the workspace (``d``) between a real folder and a symlink, to a
folder outside the workspace or to the protected sessions folder, as fast as it can, while the
tools read, list, search and write through ``d`` thousands of times. A path check that runs
before the open (check-then-use) loses this race hundreds of times; the descriptor walk of
:mod:`desktop.core.utils.fsopen` must lose it never. Each scenario is bounded by a number
of calls and a few seconds.
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import shutil
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from desktop.core.security.paths import default_protected_paths
from desktop.core.tools.base import ToolContext, ToolResult
from desktop.core.tools.filesystem import (
    EditFileTool,
    ListDirTool,
    ReadFileTool,
    WriteFileTool,
)
from desktop.core.tools.notebook import NotebookEditTool
from desktop.core.tools.search import GlobTool, GrepTool

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="symlink races are POSIX")

SECRET = "OUTSIDE-SECRET"
SESSION = "SESSION-LINE"
INSIDE = "inside LINE text"
OUTSIDE_ONLY = "outside-only-name.txt"
CALLS = 2000
SECONDS = 1.5
NOTEBOOK = '{"cells": [{"cell_type": "code", "source": [], "metadata": {}}], "nbformat": 4}'


@dataclass
class Arena:
    """A workspace whose ``d`` flips, the outside folder and the sessions folder."""

    ws: Path
    outside: Path
    sessions: Path
    ctx: ToolContext
    flips: int = 0


def _fill(folder: Path, text: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "f.txt").write_text(text)
    (folder / "s.jsonl").write_text(text)
    (folder / "n.ipynb").write_text(NOTEBOOK.replace("[]", f'["{text}"]'))


def _exchanger() -> Callable[[Path, Path], None] | None:
    """Linux ``renameat2(RENAME_EXCHANGE)``: swap two names atomically (None if missing)."""
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None) if sys.platform == "linux" else None
    if renameat2 is None:
        return None

    def exchange(a: Path, b: Path) -> None:
        if renameat2(-100, os.fsencode(a), -100, os.fsencode(b), 2) != 0:  # AT_FDCWD, EXCHANGE
            number = ctypes.get_errno()
            raise OSError(number, os.strerror(number))

    return exchange


def _flipper(arena: Arena, stop: threading.Event) -> None:
    """Swap ``ws/d`` between the real folder and a symlink out, as fast as possible.

    On Linux the swap is atomic (``d`` always exists, half the time as a symlink); elsewhere
    the real folder is moved aside, a symlink put in its place, then the folder moved back.
    """
    d, parked = arena.ws / "d", arena.ws / "d.parked"
    links = []
    for index, target in enumerate((arena.outside, arena.sessions)):
        links.append(arena.ws / f"d.link{index}")
        links[-1].symlink_to(target, target_is_directory=True)
    exchange = _exchanger()
    while not stop.is_set():
        for link in links:
            try:
                if exchange is not None:
                    exchange(d, link)
                    exchange(d, link)
                else:
                    os.rename(d, parked)
                    os.symlink(os.readlink(link), d)
                    os.unlink(d)
                    os.rename(parked, d)
            except OSError:
                _restore(d, parked)
                continue
            arena.flips += 1


def _restore(d: Path, parked: Path) -> None:
    """Put the real folder back after a failed non-atomic swap."""
    if not parked.exists():
        return
    if d.is_symlink():
        d.unlink()
    elif d.exists():
        shutil.rmtree(d)  # a folder a tool created while ``d`` was missing
    os.rename(parked, d)


@pytest.fixture
def arena(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Arena]:
    """The arena with the attacker running; stopped and checked on teardown."""
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    sessions = ws / "sessions"
    _fill(ws / "d", INSIDE)
    _fill(outside, SECRET)
    (outside / OUTSIDE_ONLY).write_text(SECRET)
    _fill(sessions, SESSION)
    restrict = getattr(request, "param", True)
    ctx = ToolContext(
        workspace=ws,
        restrict_to_workspace=restrict,
        protected_paths=default_protected_paths(ws, None),
    )
    state = Arena(ws, outside, sessions, ctx)
    stop = threading.Event()
    thread = threading.Thread(target=_flipper, args=(state, stop), name="flipper", daemon=True)
    thread.start()
    yield state
    stop.set()
    thread.join(timeout=5)
    assert not thread.is_alive()


async def _hammer(arena: Arena, tool: Any, **kwargs: Any) -> list[ToolResult]:
    """Call ``tool`` up to CALLS times within SECONDS while the attacker runs."""
    results: list[ToolResult] = []
    deadline = time.monotonic() + SECONDS
    while len(results) < CALLS and time.monotonic() < deadline:
        try:
            result = await asyncio.wait_for(tool.execute(arena.ctx, **kwargs), timeout=10)
        except OSError as exc:  # a tool must answer with an error result, never raise
            result = ToolResult.error(f"RAISED {exc!r}")
        results.append(result)
    return results


def _report(name: str, results: list[ToolResult], bad: int, arena: Arena) -> int:
    """Print the counts; return how many calls raised instead of answering."""
    ok = sum(not r.is_error for r in results)
    raised = sum(r.text.startswith("RAISED") for r in results)
    mode = "restricted" if arena.ctx.restrict_to_workspace else "unrestricted"
    print(
        f"\n{name} ({mode}): {len(results)} calls, {ok} succeeded, {raised} raised, "
        f"{bad} leaked/overwritten, {arena.flips} flips"
    )
    return raised


@pytest.mark.parametrize(
    ("name", "tool", "kwargs", "leaked"),
    [
        ("read_file", ReadFileTool(), {"path": "d/f.txt"}, SECRET),
        ("list_dir", ListDirTool(), {"path": "d"}, OUTSIDE_ONLY),
        ("glob", GlobTool(), {"pattern": "*.txt", "path": "d"}, OUTSIDE_ONLY),
        (
            "grep d",
            GrepTool(),
            {"pattern": "SECRET|inside", "path": "d", "output_mode": "content"},
            SECRET,
        ),
        ("grep ws", GrepTool(), {"pattern": "SECRET|inside", "output_mode": "content"}, SECRET),
    ],
)
async def test_reads_never_leak_through_a_swapped_folder(
    arena: Arena, name: str, tool: Any, kwargs: dict[str, Any], leaked: str
) -> None:
    """Restricted reads, listings and searches through ``d`` never show the outside."""
    results = await _hammer(arena, tool, **kwargs)
    leaks = sum(leaked in r.text for r in results)
    raised = _report(name, results, leaks, arena)
    assert leaks == 0
    assert raised == 0
    assert arena.flips > 100  # the attacker really ran during the calls
    assert any(not r.is_error for r in results)  # and the legitimate folder still works


def _intact(arena: Arena) -> int:
    """How many of the protected session files and outside files were changed."""
    changed = 0
    for folder, text in ((arena.sessions, SESSION), (arena.outside, SECRET)):
        changed += (folder / "f.txt").read_text() != text
        changed += (folder / "s.jsonl").read_text() != text
        changed += text not in (folder / "n.ipynb").read_text()
        expected = {"f.txt", "s.jsonl", "n.ipynb"} | ({OUTSIDE_ONLY} if text == SECRET else set())
        changed += {p.name for p in folder.iterdir()} != expected
    return changed


@pytest.mark.parametrize("arena", [True, False], indirect=True, ids=["restricted", "open"])
@pytest.mark.parametrize(
    ("name", "tool", "kwargs"),
    [
        ("write_file", WriteFileTool(), {"path": "d/s.jsonl", "content": "pwned"}),
        ("write_file new", WriteFileTool(), {"path": "d/new.txt", "content": "pwned"}),
        (
            "edit_file",
            EditFileTool(),
            {"path": "d/s.jsonl", "old_text": "LINE", "new_text": "LINE!"},
        ),
        (
            "notebook_edit",
            NotebookEditTool(),
            {"path": "d/n.ipynb", "cell_index": 0, "source": "pwned"},
        ),
    ],
)
async def test_writes_never_land_outside_or_on_protected_files(
    arena: Arena, name: str, tool: Any, kwargs: dict[str, Any]
) -> None:
    """Writes through ``d`` change only the real ``d``: never sessions, never the outside.

    With restrictToWorkspace off, writing outside is allowed, so only the protected sessions
    folder is checked there.
    """
    results = await _hammer(arena, tool, **kwargs)
    if arena.ctx.restrict_to_workspace:
        bad = _intact(arena)
    else:
        sessions = arena.sessions
        bad = (sessions / "s.jsonl").read_text() != SESSION
        bad += SESSION not in (sessions / "n.ipynb").read_text()
        bad += {p.name for p in sessions.iterdir()} != {"f.txt", "s.jsonl", "n.ipynb"}
    raised = _report(name, results, bad, arena)
    assert bad == 0
    assert raised == 0
    assert arena.flips > 100
    assert any(not r.is_error for r in results)
