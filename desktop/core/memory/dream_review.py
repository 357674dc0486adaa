"""Dream in review mode: phase 2 edits a scratch copy, and the run ends with a stored proposal.

The scratch copy is a fresh temporary folder (outside the workspace, removed afterwards, also
when the run is cancelled) holding the three memory files and a copy of ``<workspace>/skills``;
phase 2's tools are pointed at it, so nothing in the workspace changes while Dream works.
Afterwards every changed file becomes an entry of the proposal: its text when Dream started
and the scratch copy's text, with the changes that touch a pinned line left out. New or
changed **skill files are part of the proposal** too (accepting writes them; like today they
are not in the git timeline). Files that are not UTF-8 text, and files Dream may not change
(:func:`~desktop.core.memory.dream_scope.dream_refusal`, e.g. ``skills/README.md``), are left
out with a note.

:class:`~desktop.core.memory.dream.Dream` runs review mode with these helpers.
Outcomes: a model failure is counted as in direct mode (nothing is proposed); no change at all
consumes the batch (``unchanged``); otherwise the proposal is stored (``proposed``). If another
program stored a proposal meanwhile, ours is discarded and the batch stays unread
(``pending``), so no second proposal ever stacks.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from desktop.core.memory.dream_scope import dream_refusal
from desktop.core.memory.dream_tools import MEMORY_FILES, read_text
from desktop.core.memory.pins import Pin, drop_pinned, pinned_lines
from desktop.core.memory.proposal import ProposedFile

MAX_SKILL_FILE_BYTES = 1024 * 1024


def make_scratch(workspace: Path) -> tuple[Path, dict[str, str]]:
    """A temporary copy of the memory files and skills; returns it and the memory texts."""
    scratch = Path(tempfile.mkdtemp(prefix="nanobot-dream-review-"))
    texts: dict[str, str] = {}
    for name in MEMORY_FILES:
        source = workspace / name
        if source.is_file():
            target = scratch / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
            texts[name] = read_text(source)
    skills = workspace / "skills"
    if skills.is_dir():

        def too_big(folder: str, names: list[str]) -> list[str]:
            return [
                n
                for n in names
                if (Path(folder) / n).is_file()
                and (Path(folder) / n).stat().st_size > MAX_SKILL_FILE_BYTES
            ]

        shutil.copytree(skills, scratch / "skills", symlinks=True, ignore=too_big)
    return scratch, texts


def collect(
    workspace: Path,
    scratch: Path,
    texts: dict[str, str],
    changed: list[str],
    pins: list[Pin],
) -> tuple[list[ProposedFile], list[str], list[str]]:
    """The proposal's files, the changes dropped because of pins, and files left out
    (``path (why)``)."""
    fixed = pinned_lines(pins)
    files: list[ProposedFile] = []
    dropped: list[str] = []
    left_out: list[str] = []
    order = {name: index for index, name in enumerate(MEMORY_FILES)}
    for path in sorted(changed, key=lambda p: (order.get(p, len(order)), p)):
        reason = dream_refusal(path)
        if reason is not None:
            left_out.append(f"{path} ({reason})")
            continue
        target = scratch / path
        try:
            after = target.read_text(encoding="utf-8") if target.is_file() else ""
            before = texts.get(path)
            if before is None:
                real = workspace / path
                before = real.read_text(encoding="utf-8") if real.is_file() else ""
        except (OSError, UnicodeDecodeError):
            left_out.append(f"{path} (not UTF-8 text)")
            continue
        if path in MEMORY_FILES:
            after, notes = drop_pinned(path, before, after, fixed.get(path, set()))
            dropped += notes
        if after != before:
            files.append(ProposedFile(path, before, after))
    return files, dropped, left_out
