"""A true three-way revert of one commit, planned entirely in memory.

Undoing commit ``C`` (parent ``P``) on top of ``HEAD`` is the merge of ``P``'s tree into
``HEAD``'s tree with ``C``'s tree as the common ancestor: whatever ``C`` changed goes back to
how it was in ``P``, whatever later commits changed elsewhere stays. This is exactly
``git revert`` (libgit2 ``git_revert_commit`` does the same merge); we call
:meth:`pygit2.Repository.merge_trees` directly so that merge commits revert against their first
parent and app-owned paths can keep "ours".

Planning touches nothing: the caller writes files and commits only when no conflict was found.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from desktop.core.utils.lazy import LazyModule

if TYPE_CHECKING:
    import pygit2
    from pygit2 import enums
else:  # loaded on first use (see git_store)
    pygit2 = LazyModule("pygit2")
    enums = LazyModule("pygit2.enums")


from desktop.core.memory.git_types import RevertConflict, RevertRefused
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.phrase_join import joined

#: How many later commits a conflict explanation names.
_NAMED_LATER = 3


@dataclass(frozen=True)
class RevertPlan:
    """What a revert will do.

    Attributes:
        tree_id: The tree of the revert commit.
        changes: ``(path, blob id)`` per file whose content changes; ``None`` deletes the file.
    """

    tree_id: pygit2.Oid
    changes: tuple[tuple[str, pygit2.Oid | None], ...]


def subject_of(commit: pygit2.Commit) -> str:
    """The first line of a commit message."""
    return commit.message.split("\n", 1)[0].strip()


def entry_id(tree: pygit2.Tree, path: str) -> pygit2.Oid | None:
    """The object id at ``path`` in ``tree`` (``None`` when absent)."""
    try:
        return tree[path].id
    except KeyError:
        return None


def plan_revert(
    repo: pygit2.Repository,
    target: pygit2.Commit,
    head: pygit2.Commit,
    *,
    keep_ours: tuple[str, ...] = (),
) -> RevertPlan:
    """Plan the revert of ``target`` on top of ``head``.

    Args:
        repo: The repository.
        target: The commit to undo.
        head: The current commit.
        keep_ours: Paths that always keep ``head``'s version (bookkeeping such as Dream's
            cursor, which must not move backwards when a Dream's edits are undone).

    Raises:
        RevertRefused: ``target`` is the first commit, not in ``head``'s history, or its
            changes are already gone.
        RevertConflict: A later commit changed the same lines.
    """
    short = str(target.id)[:7]
    if not target.parents:
        raise RevertRefused(
            Phrase(
                QT_TR_NOOP(
                    '{commit} "{subject}" is the first commit of the memory history; '
                    "undoing it would remove every memory file, so it is not allowed."
                ),
                commit=short,
                subject=subject_of(target),
            )
        )
    if target.id != head.id and not repo.descendant_of(head.id, target.id):
        raise RevertRefused(
            Phrase(QT_TR_NOOP("{commit} is not part of the current memory history."), commit=short)
        )
    merged = repo.merge_trees(target.tree, head.tree, target.parents[0].tree)
    _keep_ours(merged, head.tree, keep_ours)
    if merged.conflicts is not None:
        files = sorted({_conflict_path(entries) for entries in merged.conflicts})
        raise RevertConflict(files, explain_conflict(repo, target, head, files))
    tree_id = merged.write_tree(repo)
    if tree_id == head.tree_id:
        raise RevertRefused(
            Phrase(
                QT_TR_NOOP(
                    'nothing to undo: the changes of {commit} "{subject}" are no longer in the '
                    "files."
                ),
                commit=short,
                subject=subject_of(target),
            )
        )
    return RevertPlan(tree_id, _changes(repo, head.tree, repo[tree_id].peel(pygit2.Tree)))


def _keep_ours(merged: pygit2.Index, ours: pygit2.Tree, paths: tuple[str, ...]) -> None:
    for path in paths:
        conflicts = merged.conflicts
        if conflicts is not None and path in conflicts:
            del conflicts[path]
        if path in ours:
            entry = ours[path]
            merged.add(pygit2.IndexEntry(path, entry.id, entry.filemode))
        elif path in merged:
            merged.remove(path)


def _conflict_path(entries: tuple[pygit2.IndexEntry | None, ...]) -> str:
    return next(os.fspath(entry.path) for entry in entries if entry is not None)


def _changes(
    repo: pygit2.Repository, old: pygit2.Tree, new: pygit2.Tree
) -> tuple[tuple[str, pygit2.Oid | None], ...]:
    changes = []
    diff = repo.diff(old, new)  # type: ignore[call-overload]  # pygit2's stub omits Tree, which diff() takes
    for delta in diff.deltas:
        if delta.status == enums.DeltaStatus.DELETED:
            changes.append((delta.old_file.path, None))
        else:
            changes.append((delta.new_file.path, delta.new_file.id))
    return tuple(changes)


def later_commits_touching(
    repo: pygit2.Repository, target: pygit2.Commit, head: pygit2.Commit, path: str
) -> list[pygit2.Commit]:
    """Commits after ``target`` (newest first) that changed ``path``."""
    found = []
    for commit in repo.walk(head.id, enums.SortMode.TOPOLOGICAL | enums.SortMode.TIME):
        if commit.id == target.id or not commit.parents:
            break
        if entry_id(commit.tree, path) != entry_id(commit.parents[0].tree, path):
            found.append(commit)
    return found


def explain_conflict(
    repo: pygit2.Repository, target: pygit2.Commit, head: pygit2.Commit, files: list[str]
) -> str:
    """A human explanation of why ``target`` cannot be undone automatically."""
    short = str(target.id)[:7]
    lines: list[str] = [
        Phrase(
            QT_TR_NOOP(
                'Cannot undo {commit} "{subject}": a later change touched the same lines of '
                "{files}, so undoing it automatically could lose that later change."
            ),
            commit=short,
            subject=subject_of(target),
            files=", ".join(files),
        )
    ]
    for path in files:
        later = later_commits_touching(repo, target, head, path)
        if later:
            named = ", ".join(f'{str(c.id)[:7]} "{subject_of(c)}"' for c in later[:_NAMED_LATER])
            if len(later) > _NAMED_LATER:
                line = Phrase(
                    QT_TR_NOOP("Later changes to {path}: {named} and {more} more."),
                    path=path,
                    named=named,
                    more=len(later) - _NAMED_LATER,
                )
            else:
                line = Phrase(
                    QT_TR_NOOP("Later changes to {path}: {named}."), path=path, named=named
                )
            lines.append(line)
    lines.append(
        Phrase(
            QT_TR_NOOP(
                "Nothing was changed. Edit the file by hand, or undo the later change first."
            )
        )
    )
    return joined(*lines, separator="\n")
