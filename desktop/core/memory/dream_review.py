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

Outcomes: a model failure is counted as in direct mode (nothing is proposed); no change at all
consumes the batch (``unchanged``); otherwise the proposal is stored (``proposed``). If another
program stored a proposal meanwhile, ours is discarded and the batch stays unread
(``pending``), so no second proposal ever stacks.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.core.memory.dream_result import (
    PENDING_MESSAGE,
    DreamResult,
    changed_files,
    pins_note,
    snapshot,
    stop_note,
)
from desktop.core.memory.dream_scope import dream_refusal
from desktop.core.memory.dream_tools import MEMORY_FILES, read_text
from desktop.core.memory.pins import Pin, drop_pinned, pinned_lines
from desktop.core.memory.proposal import Proposal, ProposedFile, now_iso

if TYPE_CHECKING:
    from desktop.core.memory.dream import Dream

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


async def propose(
    dream: Dream, analysis: str, first: int, last: int, pins: list[Pin]
) -> DreamResult:
    """Run phase 2 on a scratch copy and store what it changed as a proposal."""
    request = await asyncio.to_thread(dream.phase2_request, analysis, pins)
    scratch, texts = await asyncio.to_thread(make_scratch, dream.workspace)
    try:
        before = await asyncio.to_thread(snapshot, scratch)
        stop_reason, failure = await dream.phase2(request, scratch)
        if failure is not None:
            outcome = await dream._failed(first, last, failure)
            return DreamResult(
                outcome.status,
                analysis=analysis,
                message=outcome.message + " Nothing was proposed.",
                consumed_to=outcome.consumed_to,
                stop_reason=stop_reason,
            )
        after = await asyncio.to_thread(snapshot, scratch)
        files, dropped, left_out = await asyncio.to_thread(
            collect, dream.workspace, scratch, texts, changed_files(before, after), pins
        )
    finally:
        await asyncio.to_thread(shutil.rmtree, scratch, True)
    note = pins_note(dropped) + (f" Left out: {', '.join(left_out)}." if left_out else "")
    if not files:
        await asyncio.to_thread(dream._consume, last)
        return DreamResult(
            "unchanged",
            analysis=analysis,
            message="Dream found nothing to change." + stop_note(stop_reason, dream) + note,
            consumed_to=last,
            stop_reason=stop_reason,
            dropped=tuple(dropped),
        )
    proposal = Proposal(now_iso(), first, last, analysis, tuple(files), tuple(dropped), stop_reason)
    if not await asyncio.to_thread(dream.proposals.save_new, proposal):
        return DreamResult("pending", analysis=analysis, message=PENDING_MESSAGE)
    count = proposal.change_count
    names = ", ".join(f.path for f in files)
    return DreamResult(
        "proposed",
        count,
        analysis=analysis,
        message=(
            f"Dream proposes {count} change(s) ({names}); nothing changes until you review them "
            "in the Memory tab." + stop_note(stop_reason, dream) + note
        ),
        stop_reason=stop_reason,
        dropped=tuple(dropped),
    )
