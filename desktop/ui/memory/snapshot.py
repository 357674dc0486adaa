"""What the Memory tab shows, read in one worker-thread call (Qt-free, synchronous).

:func:`load_snapshot` reads the three memory files, the history log with the dream cursor and
the git timeline; :func:`save_memory_file` writes one file atomically and commits it as
``edit: <file>``. Both run through :func:`asyncio.to_thread`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from desktop.core.memory.git_store import CommitInfo, GitStore, GitStoreError
from desktop.core.memory.pins import Pin, PinStore
from desktop.core.memory.proposal import Proposal, ProposalStore
from desktop.core.memory.review import vet_proposal
from desktop.core.memory.store import HistoryEntry, MemoryStore
from desktop.core.utils.atomic import atomic_write_text
from desktop.core.utils.validate import read_text_document

#: The files people edit, workspace-relative, in the order the tab lists them.
MEMORY_FILES = ("memory/MEMORY.md", "SOUL.md", "USER.md")
TIMELINE_LIMIT = 200


@dataclass(frozen=True)
class MemorySnapshot:
    """The memory of one workspace at one moment.

    Attributes:
        exists: Whether the workspace folder exists at all.
        files: Text of each file of :data:`MEMORY_FILES` (``None``: not there).
        entries: History entries in file order (oldest first).
        dream_cursor: The last cursor Dream consumed.
        malformed: Lines of ``history.jsonl`` that could not be read.
        commits: The timeline, newest first (at most :data:`TIMELINE_LIMIT`).
        git_error: Why the timeline could not be read (``None`` when it could).
        notices: What the repository had to do on first open (recoveries, outside edits),
            and a damaged pin file that was set aside.
        proposal: The Dream proposal waiting for review (``None``: none).
        pins: The pinned lines.
        proposal_warning: Why a proposal file was not used (damaged, or not written by
            Dream), ``None`` when nothing was wrong.
        proposal_unrecorded: Whether that was because Dream did not write it (refused).
    """

    exists: bool
    files: dict[str, str | None] = field(default_factory=dict)
    entries: list[HistoryEntry] = field(default_factory=list)
    dream_cursor: int = 0
    malformed: int = 0
    commits: list[CommitInfo] = field(default_factory=list)
    git_error: str | None = None
    notices: list[str] = field(default_factory=list)
    proposal: Proposal | None = None
    pins: list[Pin] = field(default_factory=list)
    proposal_warning: str | None = None
    proposal_unrecorded: bool = False

    @property
    def pending(self) -> int:
        """Entries Dream has not consumed yet."""
        return sum(1 for e in self.entries if e.cursor > self.dream_cursor)


def read_file(workspace: Path, name: str) -> str | None:
    """Text of a workspace file, ``None`` when it does not exist (the core's tolerant reader:
    bytes that are not UTF-8 show as U+FFFD after the file was copied aside)."""
    return read_text_document(workspace / name)


def load_snapshot(workspace: Path, git: GitStore, *, ensure_repo: bool) -> MemorySnapshot:
    """Read everything the tab shows.

    Args:
        workspace: The workspace folder.
        git: Its timeline.
        ensure_repo: Create / repair the repository and record outside edits first (once per
            session, like the memory commands do).
    """
    if not workspace.is_dir():
        return MemorySnapshot(exists=False)
    files = {name: read_file(workspace, name) for name in MEMORY_FILES}
    store = MemoryStore(workspace)
    entries = store.entries()
    notices: list[str] = []
    commits: list[CommitInfo] = []
    error = None
    try:
        if ensure_repo:
            notices = git.ensure_repo()
        commits = git.log(limit=TIMELINE_LIMIT)
        notices += git.take_notices()
    except GitStoreError as exc:
        error = exc.args[0] if len(exc.args) == 1 and isinstance(exc.args[0], str) else str(exc)
    proposals, pin_store = ProposalStore(workspace), PinStore(workspace)
    proposal = proposals.load() if proposals.exists() else None
    proposal = vet_proposal(workspace, proposal) if proposal is not None else None
    pins = pin_store.load()
    notices += [pin_store.warning] if pin_store.warning else []
    return MemorySnapshot(
        True,
        files,
        entries,
        store.dream_cursor,
        store.malformed_count,
        commits,
        error,
        notices,
        proposal,
        pins,
        proposals.warning,
        proposals.unrecorded,
    )


@dataclass(frozen=True)
class SaveOutcome:
    """What saving a memory file did.

    Attributes:
        commit: The ``edit:`` commit id (``None``: the file did not change, or git failed).
        git_error: Why the change could not be committed (the file was still saved).
        pin_notes: Pins that followed the edit of their line, or whose line is gone.
    """

    commit: str | None
    git_error: str | None = None
    pin_notes: tuple[str, ...] = ()


def save_memory_file(workspace: Path, git: GitStore, name: str, text: str) -> SaveOutcome:
    """Write ``name`` atomically and commit it as ``edit: <name>``.

    Changes found on disk beforehand (made outside the app) are first committed on their own,
    so the new commit holds exactly this edit. Pins of lines the edit changed follow them
    (:meth:`~desktop.core.memory.pins.PinStore.follow_edit`). The file is the source of truth: it is written
    even when the repository cannot be used, and the outcome says so.

    Raises:
        OSError: The file could not be written (nothing changed).
    """
    if name not in MEMORY_FILES:
        raise ValueError(f"{name} is not a memory file")
    try:
        git.record_outside_edits()
    except GitStoreError:
        pass  # reported by the commit below, if it fails too
    before = read_file(workspace, name) or ""
    atomic_write_text(workspace / name, text)
    notes = tuple(PinStore(workspace).follow_edit(name, before, text))
    try:
        return SaveOutcome(git.commit_edit(name), pin_notes=notes)
    except GitStoreError as exc:
        message = exc.args[0] if len(exc.args) == 1 and isinstance(exc.args[0], str) else str(exc)
        return SaveOutcome(None, message, notes)
