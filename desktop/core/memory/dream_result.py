"""What a Dream run returns, and the pieces both the direct and the review path use.

Below :mod:`desktop.core.memory.dream` and :mod:`desktop.core.memory.dream_review` (the review
path stores a proposal instead of committing), so neither imports the other for them.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from desktop.core.cron.reasons import DREAM_PENDING
from desktop.core.memory.dream_tools import MEMORY_FILES
from desktop.core.utils import ownfiles
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase

Status = Literal[
    "nothing",
    "skipped",
    "changed",
    "unchanged",
    "failed",
    "budget",
    "paused",
    "proposed",
    "pending",
]
PENDING_MESSAGE = Phrase(DREAM_PENDING)  # the wording is the cron receipts' too


class Limits(Protocol):
    """The limits a stop note names (a :class:`~desktop.core.memory.dream.Dream`)."""

    token_budget: int
    max_iterations: int


@dataclass(frozen=True)
class DreamResult:
    """The outcome of one Dream run.

    Attributes:
        status: ``nothing`` (no new entries), ``skipped`` (phase 1 said ``[SKIP]``, or a batch
            was given up after repeated failures), ``changed`` / ``unchanged`` (phase 2 ran),
            ``failed`` (a model call failed; the batch will be retried), ``budget`` (phase 2
            stopped at the token budget) or ``paused`` (the spend governor kept the run from
            starting; no failed attempt is counted). In review mode: ``proposed`` (a proposal
            was stored for the person to decide) or ``pending`` (an earlier proposal still
            waits, so Dream did not run).
        changes: Files changed (see the module docstring); for ``proposed``, the hunks.
        commit: The Dream commit id, when one was made.
        analysis: The phase-1 analysis text.
        message: One or two sentences for the person.
        consumed_to: The dream cursor after the run, when it moved.
        stop_reason: Phase 2's ending: ``answer``, ``max_iterations``, ``budget``, ``error``,
            or ``""`` when phase 2 did not run.
        dropped: Changes thrown away because they touched a pinned line
            (``path: “pinned line”``, one per change).
    """

    status: Status
    changes: int = 0
    commit: str | None = None
    analysis: str = ""
    message: str = ""
    consumed_to: int | None = None
    stop_reason: str = ""
    dropped: tuple[str, ...] = ()


def snapshot(workspace: Path) -> dict[str, str]:
    """Digest of every memory file and every file under ``skills/`` (missing: absent).

    Nothing is followed and only regular files are read (a link or FIFO counts as absent).
    """
    found: dict[str, str] = {}
    names = list(MEMORY_FILES)
    folders = [workspace / "skills"]
    while folders:
        folder = folders.pop()
        for name, kind in ownfiles.list_folder(folder, root=workspace):
            if kind == "folder":
                folders.append(folder / name)
            elif kind == "file":
                names.append((folder / name).relative_to(workspace).as_posix())
    for name in sorted(set(names)):
        try:
            data = ownfiles.read_bytes(workspace / name, root=workspace)
        except OSError:
            continue
        if data is not None:
            found[name] = hashlib.sha256(data).hexdigest()
    return found


def changed_files(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """Names whose digest differs between two :func:`snapshot` results (added, removed, edited)."""
    return sorted(
        name for name in before.keys() | after.keys() if before.get(name) != after.get(name)
    )


def pins_note(dropped: tuple[str, ...] | list[str]) -> str:
    """A sentence for the person about changes dropped because of pins (``""`` for none)."""
    if not dropped:
        return ""
    return Phrase(
        QT_TR_NOOP(
            " Pinned lines were kept as they were ({count} change(s) of them dropped: {changes})."
        ),
        count=len(dropped),
        changes="; ".join(dropped),
    )


def pins_body(dropped: tuple[str, ...] | list[str]) -> str:
    """Commit-body lines listing changes dropped because of pins (``""`` for none)."""
    if not dropped:
        return ""
    return "\n\nPinned lines kept (Dream's change dropped):\n" + "\n".join(
        f"- {d}" for d in dropped
    )


def stop_note(stop_reason: str, dream: Limits) -> str:
    """Why phase 2 stopped early, as a sentence (``""`` when it finished)."""
    if stop_reason == "budget":
        return Phrase(
            QT_TR_NOOP(" It stopped early: the token budget ({budget}) ran out."),
            budget=dream.token_budget,
        )
    if stop_reason == "max_iterations":
        return Phrase(
            QT_TR_NOOP(" It stopped early: the iteration limit ({limit}) was reached."),
            limit=dream.max_iterations,
        )
    if stop_reason == "empty":
        return Phrase(QT_TR_NOOP(" The model stopped answering; the run ended."))
    return ""
