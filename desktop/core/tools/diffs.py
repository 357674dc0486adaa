"""What a file tool changed, as a small unified diff for the chat's tool card.

The file tools (``write_file``, ``edit_file``, ``apply_patch``) know the text before and after
their write; they put the difference in :attr:`~desktop.core.tools.base.ToolResult.diff`, and the
run's ``ToolCallFinished`` event carries it to the window. The diff is made at the moment of the
write, never later from disk (the file may have changed again since). It stays small: at most
:data:`MAX_DIFF_CHARS` characters, cut at a line, with a last line that says how much was left
out (:func:`diff_stats` still counts the whole change).

Format: ``--- a/<path>`` / ``+++ b/<path>`` headers (``/dev/null`` for a new file), hunks with
three lines of context, as ``git diff`` shows them.
"""

from __future__ import annotations

import difflib
import re

MAX_DIFF_CHARS = 16_000
"""The largest diff carried in an event (a few hundred lines)."""
MAX_SOURCE_CHARS = 1_000_000
"""Texts longer than this are not compared (the card says the file changed, without lines)."""
CONTEXT_LINES = 3
TOO_LARGE = "… too large to compare"
NOT_TEXT = "… not UTF-8 text: not compared"
TRUNCATED = re.compile(r"^… (\d+) more lines? \(\+(\d+) −(\d+)\) not shown$")


def unified_diff(shown: str, before: str | None, after: str) -> str:
    """The change from ``before`` to ``after`` of the file shown as ``shown``, capped.

    Args:
        shown: The path as the tools show it (workspace-relative when inside).
        before: The text before the write; ``None`` for a file that did not exist.
        after: The text written.

    Returns:
        A unified diff (``""`` when nothing changed), at most :data:`MAX_DIFF_CHARS` long.
    """
    if before == after:
        return ""
    old = f"a/{shown}" if before is not None else "/dev/null"
    if len(before or "") > MAX_SOURCE_CHARS or len(after) > MAX_SOURCE_CHARS:
        return f"--- {old}\n+++ b/{shown}\n{TOO_LARGE}\n"
    lines = difflib.unified_diff(
        (before or "").splitlines(),
        after.splitlines(),
        old,
        f"b/{shown}",
        n=CONTEXT_LINES,
        lineterm="",
    )
    return cap_diff(list(lines))


def bytes_diff(shown: str, before: bytes | None, after: bytes) -> str:
    """:func:`unified_diff` of file contents; a side that is not UTF-8 text (or too large to
    compare) gives the headers and one line saying so."""
    if max(len(before or b""), len(after)) > MAX_SOURCE_CHARS:
        head = f"a/{shown}" if before is not None else "/dev/null"
        return f"--- {head}\n+++ b/{shown}\n{TOO_LARGE}\n"
    try:
        old = None if before is None else before.decode("utf-8")
        new = after.decode("utf-8")
    except UnicodeDecodeError:
        if before == after:
            return ""
        head = f"a/{shown}" if before is not None else "/dev/null"
        return f"--- {head}\n+++ b/{shown}\n{NOT_TEXT}\n"
    return unified_diff(shown, old, new)


def cap_diff(lines: list[str], limit: int = MAX_DIFF_CHARS) -> str:
    """Join diff ``lines``; past ``limit`` characters the rest becomes one counting line."""
    out: list[str] = []
    size = 0
    for index, line in enumerate(lines):
        if size + len(line) + 1 > limit - 80:  # room for the counting line
            rest = lines[index:]
            added, removed = diff_stats("\n".join(rest))
            plural = "line" if len(rest) == 1 else "lines"
            out.append(f"… {len(rest)} more {plural} (+{added} −{removed}) not shown")
            break
        out.append(line)
        size += len(line) + 1
    return "\n".join(out) + "\n" if out else ""


def join_diffs(diffs: list[str], limit: int = MAX_DIFF_CHARS) -> str:
    """Several files' diffs as one, capped as a whole (``apply_patch``)."""
    lines = [line for diff in diffs for line in diff.splitlines()]
    return cap_diff(lines, limit)


def diff_stats(diff: str) -> tuple[int, int]:
    """Lines added and removed by ``diff``, counting what a cut left out."""
    added = removed = 0
    lines = diff.splitlines()
    for index, line in enumerate(lines):
        if _header(lines, index):
            continue
        if line.startswith("+"):
            added += 1
        elif line.startswith("-"):
            removed += 1
        else:
            cut = TRUNCATED.match(line)
            if cut:
                added += int(cut.group(2))
                removed += int(cut.group(3))
    return added, removed


def _header(lines: list[str], index: int) -> bool:
    """Whether ``lines[index]`` is half of a ``---``/``+++`` file header pair (a removed line
    that itself starts with ``--`` is not)."""
    line = lines[index]
    if line.startswith("--- "):
        return index + 1 < len(lines) and lines[index + 1].startswith("+++ ")
    if line.startswith("+++ "):
        return index > 0 and lines[index - 1].startswith("--- ")
    return False


def diff_files(diff: str) -> list[str]:
    """The paths a diff changes, in order (from its ``+++ b/…`` headers)."""
    lines = diff.splitlines()
    return [
        line[6:]
        for index, line in enumerate(lines)
        if line.startswith("+++ b/") and _header(lines, index)
    ]
