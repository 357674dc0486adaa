"""grep under catastrophic patterns: a time limit per line and per call, and /stop.

The patterns here backtrack exponentially (``^(a|aa)+$`` on ``aaa…ab``): with Python's ``re``
one 36-character line takes seconds and a 40-character one close to a minute, uninterruptibly.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from pathlib import Path

import pytest
import regex

from desktop.core.tools.base import ToolContext, ToolResult
from desktop.core.tools.search import GrepTool, TimedRegex

CATASTROPHIC = r"^(a|aa)+$"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def ctx(ws: Path) -> ToolContext:
    return ToolContext(workspace=ws, restrict_to_workspace=True)


def _grep_workers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "grep" and t.is_alive()]


async def _wait_until(condition: object, timeout: float) -> bool:
    """Poll ``condition()`` until true or ``timeout`` seconds passed."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        await asyncio.sleep(0.01)
    return bool(condition())  # type: ignore[operator]


async def test_one_catastrophic_line_is_stopped_with_a_clear_error(
    ws: Path, ctx: ToolContext
) -> None:
    """One pathological line ends the call within the per-line limit, with advice."""
    (ws / "bad.txt").write_text("ok line\n" + "a" * 36 + "b\n")
    started = time.monotonic()
    result: ToolResult = await asyncio.wait_for(
        GrepTool().execute(ctx, pattern=CATASTROPHIC), timeout=20
    )
    elapsed = time.monotonic() - started
    print(f"\ncatastrophic line: {elapsed:.2f}s -> {result.text[:80]}")
    assert result.is_error and "grep stopped" in result.text
    assert "backtracks catastrophically" in result.text and CATASTROPHIC in result.text
    # The message proves the limit fired; the bound only rules out grinding through the line
    # (seconds unloaded, far more on a loaded machine), with room for a busy CI machine.
    assert elapsed < 10


async def test_many_slow_lines_hit_the_call_budget(ws: Path, ctx: ToolContext) -> None:
    """Lines that are each under the line limit still stop at the call's total budget."""
    (ws / "slow.txt").write_text(("a" * 27 + "b\n") * 40)
    tool = GrepTool(budget=1.0, line_limit=0.9)
    started = time.monotonic()
    result = await asyncio.wait_for(tool.execute(ctx, pattern=CATASTROPHIC), timeout=30)
    elapsed = time.monotonic() - started
    print(f"\nslow lines: {elapsed:.2f}s -> {result.text[:80]}")
    assert result.is_error and "over 1s in total" in result.text
    # Without the call's budget the 40 lines take up to 40 × 0.9 s; the budget ends it after
    # about 1 s (a line's limit more at worst). The bound leaves room for a loaded machine.
    assert elapsed < 12


async def test_cancelling_grep_stops_its_worker(ws: Path, ctx: ToolContext) -> None:
    """/stop cancels the call at once and the worker thread ends within a line's limit."""
    (ws / "bad.txt").write_text(("a" * 40 + "b\n") * 200)
    tool = GrepTool(budget=600)  # without the cancel it would grind for minutes
    task = asyncio.create_task(tool.execute(ctx, pattern=CATASTROPHIC))
    assert await _wait_until(lambda: bool(_grep_workers()), 5)
    cancelled_at = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await _wait_until(lambda: not _grep_workers(), 2)
    print(f"\nworker ended {time.monotonic() - cancelled_at:.2f}s after the cancel")


async def test_python_regex_syntax_still_works(ws: Path, ctx: ToolContext) -> None:
    """Lookaround, backreferences, named groups and Unicode classes behave as in ``re``."""
    (ws / "t.txt").write_text("foobar\nfoobaz\nabba\nhéllo wörld\n")
    cases = {
        r"foo(?=bar)": "t.txt:1:",
        r"(?<=foo)baz": "t.txt:2:",
        r"(\w)(\w)\2\1": "t.txt:3:",
        r"(?P<w>w\w+d)": "t.txt:4:",
        r"^\w+\s\w+$": "t.txt:4:",
    }
    for pattern, expected in cases.items():
        result = await GrepTool().execute(ctx, pattern=pattern, output_mode="content")
        lines = [line for line in result.text.splitlines() if line.startswith("t.txt")]
        assert [line.split(" ")[0] for line in lines] == [expected], pattern


LINES = ["foo", "  foo  ", "afoo", "xfoo", "ab", "b", "xy", "x", "", "end", "foo\t", "b foo", "ä"]
PATTERNS = [
    "foo",
    "^foo",
    "foo$",
    r"\bfoo\b",
    r"(?<=a)b",
    r"(?<!a)b",
    r"x(?!y)",
    r"\Afoo",
    r"foo\Z",
    r"[^x]*y",
    r"\s+$",
    r"(?s).*end",
    r"(?m)^b",
    r"a\nb",
    r"^$",
    r"(?i)FOO",
    r"\w$",
    r"(?-i:b)",
]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_whole_file_prefilter_never_changes_the_answer(pattern: str) -> None:
    """Per-line hits equal Python ``re`` run line by line, whatever the file prefilter does."""
    expected = [i for i, line in enumerate(LINES) if re.search(pattern, line)]
    timed = TimedRegex(regex.compile(pattern), budget=5, line_limit=1)
    assert timed.hits(LINES) == expected
    assert timed.hits([LINES[7]]) == [i for i in (0,) if re.search(pattern, LINES[7])]
