"""Values and errors of the memory git timeline (:mod:`desktop.core.memory.git_store`).

Every error message is written for a person: what happened, what was (not) changed, what to do.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal


@dataclass(frozen=True)
class CommitInfo:
    """One entry of the timeline.

    Attributes:
        sha: Full commit id.
        short_sha: The first 7 characters.
        time: Author time, timezone-aware.
        subject: First line of the message.
        body: The rest of the message, stripped.
        files_changed: Files changed against the first parent (root: against nothing).
        additions: Lines added.
        deletions: Lines removed.
    """

    sha: str
    short_sha: str
    time: datetime
    subject: str
    body: str
    files_changed: int
    additions: int
    deletions: int


@dataclass(frozen=True)
class FileDiff:
    """The change of one file in a commit.

    Attributes:
        path: Workspace-relative path.
        status: ``added``, ``modified`` or ``deleted``.
        patch: Unified diff text (with ``diff --git`` header).
        additions: Lines added.
        deletions: Lines removed.
    """

    path: str
    status: Literal["added", "modified", "deleted"]
    patch: str
    additions: int
    deletions: int


class GitStoreError(Exception):
    """The memory history could not do what was asked. ``str(exc)`` is the explanation."""


class UnknownCommit(GitStoreError):
    """A commit id that matches nothing, or more than one commit."""


class RepositoryBusy(GitStoreError):
    """Another git program is working in the memory repository right now."""


class RevertRefused(GitStoreError):
    """A revert that makes no sense: the first commit, a commit outside the history, or one
    whose changes are already gone."""


class RevertConflict(GitStoreError):
    """Undoing a commit would clash with later changes to the same lines.

    Nothing was changed: working files, index and HEAD are as they were.

    Attributes:
        files: Workspace-relative paths of the files that clash.
        message: The human explanation (also ``str(exc)``).
    """

    def __init__(self, files: list[str], message: str) -> None:
        super().__init__(message)
        self.files = files
        self.message = message
