"""Line hunks between two texts: split a change into pieces, apply a chosen subset elsewhere.

A :class:`Hunk` is one contiguous block of changed lines (difflib's non-equal opcodes, adjacent
ones merged) with up to :data:`CONTEXT` unchanged lines on each side. The context is taken only
from the unchanged run between this hunk and its neighbours, so a hunk never depends on lines
another hunk changes: any subset can be applied, in any combination.

**Ids** are derived from the content (file, context, old and new lines), not the position, so
they stay the same when the same two texts are split again (after a restart) and when an edit
of the proposed text leaves a hunk as it was. Two identical hunks in one file get ``-2``,
``-3``… suffixes in order.

**Applying** (:func:`apply_hunks`) works on the text as it is *now*, which may have changed
since the hunks were made: each hunk is looked for as ``before-context + old lines +
after-context``; a hunk that started (or ended) at the edge of the file must still sit there.
Among several matches the one closest to where the hunk is expected wins (like ``patch``). A
hunk whose lines cannot be found is reported as not applicable and never applied blindly.
Line endings are part of the lines, so a missing final newline is a change like any other.
"""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

CONTEXT = 3


@dataclass(frozen=True)
class Hunk:
    """One block of changed lines.

    Attributes:
        id: Stable id (see the module docstring).
        path: Workspace-relative file the hunk belongs to.
        old_start: 0-based index of the first old line (or of the insertion point).
        old: The lines removed (with their line endings).
        new: The lines added.
        before: Unchanged lines just before (at most :data:`CONTEXT`).
        after: Unchanged lines just after.
        at_start: The file starts within the hunk's leading context (the hunk must stay at
            the start of the file).
        at_end: The file ends within its trailing context (it must stay at the end).
    """

    id: str
    path: str
    old_start: int
    old: tuple[str, ...]
    new: tuple[str, ...]
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    at_start: bool = False
    at_end: bool = False

    @property
    def additions(self) -> int:
        """Lines added."""
        return len(self.new)

    @property
    def deletions(self) -> int:
        """Lines removed."""
        return len(self.old)

    def touches(self, fixed: Iterable[str]) -> bool:
        """Whether the hunk changes or removes a line whose text (without its line ending) is
        in ``fixed``."""
        wanted = set(fixed)
        return any(line.rstrip("\r\n") in wanted for line in self.old)

    def inverse(self) -> Hunk:
        """The hunk that undoes this one (same id)."""
        return Hunk(
            self.id,
            self.path,
            self.old_start,
            self.new,
            self.old,
            self.before,
            self.after,
            self.at_start,
            self.at_end,
        )

    def patch_lines(self) -> list[str]:
        """The hunk as unified-diff lines (no line endings): header, context, ``-``, ``+``."""
        start = self.old_start - len(self.before) + 1
        old_count = len(self.before) + len(self.old) + len(self.after)
        new_count = len(self.before) + len(self.new) + len(self.after)
        lines = [f"@@ -{start},{old_count} +{start},{new_count} @@"]
        lines += [" " + _bare(line) for line in self.before]
        lines += ["-" + _bare(line) for line in self.old]
        lines += ["+" + _bare(line) for line in self.new]
        lines += [" " + _bare(line) for line in self.after]
        return lines

    def summary(self, width: int = 60) -> str:
        """One line for lists: the first changed line, shortened."""
        first = next((line for line in (*self.new, *self.old) if line.strip()), "")
        sign = "+" if self.new and first in self.new else "−"
        text = _bare(first).strip() or "(blank line)"
        if len(text) > width:
            text = text[: width - 1] + "…"
        return f"{sign} {text}"


@dataclass(frozen=True)
class Applied:
    """What :func:`apply_hunks` did.

    Attributes:
        text: The resulting text.
        applied: Ids of the hunks applied.
        not_applicable: Ids of the hunks whose lines were not found in the text.
    """

    text: str
    applied: tuple[str, ...]
    not_applicable: tuple[str, ...]


def _bare(line: str) -> str:
    return line.rstrip("\r\n")


def _hunk_id(path: str, before: Sequence[str], old: Sequence[str], new: Sequence[str]) -> str:
    digest = hashlib.sha1(usedforsecurity=False)
    for part in (path, *before, "\x00", *old, "\x00", *new):
        digest.update(part.encode("utf-8", "surrogatepass") + b"\x01")
    return digest.hexdigest()[:10]


def split_hunks(path: str, before: str, after: str, *, context: int = CONTEXT) -> list[Hunk]:
    """The hunks that turn ``before`` into ``after`` (empty when the texts are equal)."""
    if before == after:
        return []
    old_lines = before.splitlines(keepends=True)
    new_lines = after.splitlines(keepends=True)
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    blocks: list[list[int]] = []  # [i1, i2, j1, j2] of merged non-equal runs
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if blocks and blocks[-1][1] == i1 and blocks[-1][3] == j1:
            blocks[-1][1], blocks[-1][3] = i2, j2
        else:
            blocks.append([i1, i2, j1, j2])
    hunks: list[Hunk] = []
    seen: dict[str, int] = {}
    for index, (i1, i2, j1, j2) in enumerate(blocks):
        floor = blocks[index - 1][1] if index else 0
        ceiling = blocks[index + 1][0] if index + 1 < len(blocks) else len(old_lines)
        lo = max(floor, i1 - context)
        hi = min(ceiling, i2 + context)
        ctx_before = tuple(old_lines[lo:i1])
        ctx_after = tuple(old_lines[i2:hi])
        old, new = tuple(old_lines[i1:i2]), tuple(new_lines[j1:j2])
        base = _hunk_id(path, ctx_before, old, new)
        seen[base] = seen.get(base, 0) + 1
        hunk_id = base if seen[base] == 1 else f"{base}-{seen[base]}"
        hunks.append(
            Hunk(
                hunk_id,
                path,
                i1,
                old,
                new,
                ctx_before,
                ctx_after,
                at_start=index == 0 and i1 < context,
                at_end=index == len(blocks) - 1 and len(old_lines) - i2 < context,
            )
        )
    return hunks


def _find(lines: list[str], hunk: Hunk, floor: int, expected: int) -> int | None:
    """Where ``before + old + after`` of ``hunk`` starts in ``lines`` (at or after ``floor``)."""
    wanted = [*hunk.before, *hunk.old, *hunk.after]
    size = len(wanted)
    if hunk.at_start:
        starts: Iterable[int] = [0]
    elif hunk.at_end:
        starts = [len(lines) - size]
    else:
        starts = range(floor, len(lines) - size + 1)
    found = [
        s
        for s in starts
        if s >= floor
        and s + size <= len(lines)
        and (not hunk.at_end or s + size == len(lines))
        and lines[s : s + size] == wanted
    ]
    if not found:
        return None
    return min(found, key=lambda s: (abs(s - expected), s))


def apply_hunks(text: str, hunks: Sequence[Hunk]) -> Applied:
    """Apply ``hunks`` (of one file, in the order they were made) to ``text``.

    Each hunk is looked for in the text as it stands after the earlier ones; a hunk that is
    not found is skipped and listed in :attr:`Applied.not_applicable`.
    """
    lines = text.splitlines(keepends=True)
    applied: list[str] = []
    missing: list[str] = []
    floor = 0
    offset = 0
    for hunk in sorted(hunks, key=lambda h: h.old_start):
        expected = hunk.old_start - len(hunk.before) + offset
        start = _find(lines, hunk, floor, expected)
        if start is None:
            missing.append(hunk.id)
            continue
        first = start + len(hunk.before)
        lines[first : first + len(hunk.old)] = list(hunk.new)
        floor = first + len(hunk.new)
        offset = start - (hunk.old_start - len(hunk.before)) + len(hunk.new) - len(hunk.old)
        applied.append(hunk.id)
    return Applied("".join(lines), tuple(applied), tuple(missing))


def unified(hunks: Sequence[Hunk]) -> str:
    """The hunks as unified-diff text (no file header)."""
    return "\n".join(line for hunk in hunks for line in hunk.patch_lines())
