"""The memory timeline: a git repository at the workspace root, driven with pygit2.

Layout (DESIGN §5): the repository sits at the workspace root and tracks only ``SOUL.md``,
``USER.md``, ``memory/MEMORY.md`` and ``memory/.dream_cursor`` (plus its ``.gitignore``). A
repository created by nanobot is adopted as it is. Commit messages start with ``dream:`` for
Dream runs, ``edit:`` for human edits and ``revert:`` for undos; history is never rewritten.

The markdown files are the source of truth. Recovery (stale locks, a damaged repository) never
changes them, and edits made outside the app are recorded as ``edit: <file>`` commits — one
commit per file, so each can be undone on its own — before a revert and at start-up
(:meth:`GitStore.ensure_repo`). Callers about to change the files themselves (Dream) call
:meth:`GitStore.record_outside_edits` first, so that their own commit holds only their change.

**Inside another repository** (a parent folder of the workspace holds ``.git``), no repository
is created, as nanobot 0.3.5 does: a repository of its own would hide the memory files from
the person's repository (git would treat the workspace as an embedded repository). The memory
history is then off: :attr:`GitStore.nested_in` names the outer repository, commits and the
recording of outside edits do nothing, :meth:`GitStore.log` is empty, :meth:`GitStore.ensure_repo`
says so once, and opening a commit raises :class:`GitStoreError` with the reason. A workspace that
already has its own ``.git`` keeps working as before.

Every method is synchronous and serialised by a lock shared by all stores of one workspace in
this process; run them off the event loop (``asyncio.to_thread``).
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from desktop.core.utils.lazy import LazyModule

if TYPE_CHECKING:
    import pygit2
    from pygit2 import enums
else:  # ≈11 MB, needed only when the history is read or written (not at every start)
    pygit2 = LazyModule("pygit2")
    enums = LazyModule("pygit2.enums")

from desktop.core.memory.git_repair import (
    check_health,
    clear_stale_locks,
    ensure_gitignore,
    is_not_damage,
    set_aside_gitdir,
)
from desktop.core.memory.git_revert import RevertPlan, entry_id, plan_revert, subject_of
from desktop.core.memory.git_types import (
    CommitInfo,
    FileDiff,
    GitStoreError,
    RepositoryBusy,
    RevertConflict,
    RevertRefused,
    UnknownCommit,
)
from desktop.core.utils import ownfiles
from desktop.core.utils.atomic import atomic_write_bytes
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase

__all__ = [
    "CommitInfo",
    "FileDiff",
    "GitStore",
    "GitStoreError",
    "RepositoryBusy",
    "RevertConflict",
    "RevertRefused",
    "UnknownCommit",
]

#: Paths the repository tracks, relative to the workspace.
TRACKED = ("SOUL.md", "USER.md", "memory/MEMORY.md", "memory/.dream_cursor")
#: Files people edit; changes to them found on disk are recorded as ``edit:`` commits.
HUMAN_FILES = ("SOUL.md", "USER.md", "memory/MEMORY.md")
#: App bookkeeping: never moved by a revert (undoing a Dream must not make it re-read the batch).
APP_OWNED = ("memory/.dream_cursor",)
INIT_MESSAGE = "init: memory repository"
_NANOBOT_EMAIL = "nanobot@dream"  # what nanobot itself signs with
_HEX = re.compile(r"[0-9a-fA-F]{4,40}")

_LOCKS: dict[str, threading.RLock] = {}
_LOCKS_GUARD = threading.Lock()


def _lock_for(workspace: Path) -> threading.RLock:
    key = str(workspace.resolve())
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(key, threading.RLock())


def _signature(name: str) -> pygit2.Signature:
    slug = re.sub(r"[^a-z0-9.-]+", "-", name.lower()).strip("-") or "user"
    return pygit2.Signature(name, _NANOBOT_EMAIL if name == "nanobot" else f"{slug}@localhost")


def _split_message(message: str) -> tuple[str, str]:
    subject, _, body = message.partition("\n")
    return subject.strip(), body.strip()


def _message(subject: str, body: str = "") -> str:
    return f"{subject}\n\n{body.strip()}\n" if body.strip() else f"{subject}\n"


def _when(commit: pygit2.Commit) -> datetime:
    author = commit.author
    return datetime.fromtimestamp(author.time, timezone(timedelta(minutes=author.offset)))


def _diff_to_parent(repo: pygit2.Repository, commit: pygit2.Commit) -> pygit2.Diff:
    if commit.parents:
        diff: pygit2.Diff = repo.diff(commit.parents[0].tree, commit.tree)  # type: ignore[call-overload]  # pygit2's stub omits Tree, which diff() takes
        return diff
    return commit.tree.diff_to_tree(swap=True)


def _file_diff(patch: pygit2.Patch) -> FileDiff:
    _, additions, deletions = patch.line_stats
    delta = patch.delta
    deleted = delta.status == enums.DeltaStatus.DELETED
    path = delta.old_file.path if deleted else delta.new_file.path
    status: Literal["added", "modified", "deleted"] = (
        "added" if delta.status == enums.DeltaStatus.ADDED else "deleted" if deleted else "modified"
    )
    return FileDiff(path, status, patch.text or "", additions, deletions)


CANNOT_OPEN = QT_TR_NOOP("cannot open the memory repository {gitdir}: {error}")
NOT_OURS = QT_TR_NOOP(
    "{gitdir} is not a working repository of this workspace (bare, or linked elsewhere); move "
    "it away and the memory history starts afresh"
)


@contextlib.contextmanager
def _damage_as_error() -> Iterator[None]:
    """Turn low-level pygit2 failures in the middle of an operation into a GitStoreError."""
    try:
        yield
    except GitStoreError:
        raise
    except (pygit2.GitError, KeyError) as exc:
        raise GitStoreError(
            Phrase(
                QT_TR_NOOP("the memory history could not be read or written: {error}"),
                error=str(exc),
            )
        ) from exc


class GitStore:
    """The git timeline of the memory files of one workspace.

    Args:
        workspace: The workspace folder (the repository root).
    """

    def __init__(self, workspace: Path) -> None:
        self.workspace = Path(workspace).expanduser().absolute()
        self._gitdir = self.workspace / ".git"
        self._lock = _lock_for(self.workspace)
        self._notices: list[str] = []

    # ----------------------------------------------------------------- public API

    @property
    def nested_in(self) -> Path | None:
        """The repository the workspace lies inside, when it has none of its own (then the
        memory history is off); else ``None``."""
        if self._gitdir.exists() or self._gitdir.is_symlink():
            return None
        for parent in self.workspace.resolve().parents:
            if (parent / ".git").exists():
                return parent
        return None

    def off_reason(self) -> str | None:
        """Why the memory history is off, in words for the person; ``None`` when it is on."""
        outer = self.nested_in
        if outer is None:
            return None
        return Phrase(
            QT_TR_NOOP(
                "Memory history is off: this workspace lies inside the git repository {outer}, "
                "and a repository of its own would hide the memory files from it. Move the "
                "workspace out of it (or give it its own .git) to keep a history of memory "
                "changes."
            ),
            outer=outer,
        )

    def ensure_repo(self) -> list[str]:
        """Create, adopt or repair the repository and record outside edits.

        Returns:
            Human notices about what had to be done (recoveries, outside edits recorded),
            including those gathered by earlier calls and not yet taken; when the history is
            off (see the module docstring), that reason.
        """
        off = self.off_reason()
        if off is not None:
            return [*self.take_notices(), off]
        with self._lock, _damage_as_error():
            repo = self._open(write=True)
            self._record_outside_edits(repo)
            return self.take_notices()

    def init(self) -> bool:
        """Create the repository when the workspace has none, as nanobot does on template sync.

        The first commit (``init: memory repository``) holds ``.gitignore`` and the tracked
        files as they are on disk, so right after the templates are copied it records them
        untouched. An existing repository (nanobot's or ours) is not opened or changed here;
        :meth:`ensure_repo` adopts and repairs it on first use.

        Returns:
            Whether a repository was created.
        """
        with self._lock, _damage_as_error():
            if self._gitdir.exists() or self._gitdir.is_symlink():
                return False
            if self.nested_in is not None:
                return False
            self._create()
            return True

    def take_notices(self) -> list[str]:
        """Return and forget the notices gathered by operations since the last call."""
        with self._lock:
            notices, self._notices = self._notices, []
            return notices

    def record_outside_edits(self) -> list[str]:
        """Commit changes found on disk in the human files, one ``edit: <file>`` commit each.

        Returns:
            The new commit ids (empty when the files match HEAD or the history is off).
        """
        if self.nested_in is not None:
            return []
        with self._lock, _damage_as_error():
            return self._record_outside_edits(self._open(write=True))

    def commit(self, message: str, *, author: str = "nanobot") -> str | None:
        """Commit every tracked file as it is on disk, if the tree changed.

        To keep outside edits out of this commit, call :meth:`record_outside_edits` before
        changing the files.

        Args:
            message: Full commit message (subject line first).
            author: Author name.

        Returns:
            The new commit id, or ``None`` when nothing changed or the history is off.
        """
        if self.nested_in is not None:
            return None
        with self._lock, _damage_as_error():
            repo = self._open(write=True)
            oid = self._commit_paths(repo, TRACKED, message, author)
            return None if oid is None else str(oid)

    def commit_edit(self, file: str | Path, *, author: str = "user") -> str | None:
        """Commit a human edit of one tracked file made through the app as ``edit: <file>``.

        Args:
            file: Workspace-relative path (``memory/MEMORY.md``) or a path inside the workspace.
            author: Author name.

        Returns:
            The new commit id, or ``None`` when the file did not change or the history is off.
        """
        path = self._tracked_name(file)
        if self.nested_in is not None:
            return None
        with self._lock, _damage_as_error():
            repo = self._open(write=True)
            oid = self._commit_paths(repo, (path,), _message(f"edit: {path}"), author)
            return None if oid is None else str(oid)

    def log(self, prefix: str | None = None, limit: int | None = 50) -> list[CommitInfo]:
        """The timeline, newest first.

        Args:
            prefix: Keep only commits whose subject starts with this (e.g. ``"dream:"``).
            limit: At most this many entries (``None``: all).
        """
        if self.nested_in is not None:
            return []
        with self._lock, _damage_as_error():
            repo = self._open(write=False)
            if repo.head_is_unborn:
                return []
            found: list[CommitInfo] = []
            for commit in repo.walk(
                repo.head.target, enums.SortMode.TOPOLOGICAL | enums.SortMode.TIME
            ):
                if limit is not None and len(found) >= limit:
                    break
                if prefix is None or commit.message.startswith(prefix):
                    found.append(self._info(repo, commit))
            return found

    def info(self, sha: str) -> CommitInfo:
        """The timeline entry of one commit (full or unique short id)."""
        with self._lock, _damage_as_error():
            repo = self._open(write=False)
            return self._info(repo, self._resolve(repo, sha))

    def show(self, sha: str) -> list[FileDiff]:
        """Per-file unified diffs of a commit against its first parent (root: against nothing).

        Raises:
            UnknownCommit: ``sha`` matches no commit or several.
        """
        with self._lock, _damage_as_error():
            repo = self._open(write=False)
            diff = _diff_to_parent(repo, self._resolve(repo, sha))
            # No patch (None) only for an unmodified delta, which a commit's diff never holds.
            return [_file_diff(patch) for patch in diff if patch is not None]

    def revert(self, sha: str, *, author: str = "nanobot") -> str:
        """Undo one commit with a three-way merge, keeping every later change.

        Outside edits are recorded first. The working files are written atomically, then the
        commit ``revert: <subject>`` (body ``This reverts commit <sha>.``) is added on top.
        ``memory/.dream_cursor`` keeps its current value.

        Returns:
            The id of the revert commit.

        Raises:
            UnknownCommit: ``sha`` matches no commit or several.
            RevertRefused: The first commit, a commit outside the history, or nothing to undo.
            RevertConflict: A later change touched the same lines; nothing was changed.
        """
        with self._lock, _damage_as_error():
            repo = self._open(write=True)
            self._record_outside_edits(repo)
            target = self._resolve(repo, sha)
            head = repo.head.peel(pygit2.Commit)
            plan = plan_revert(repo, target, head, keep_ours=APP_OWNED)
            self._apply(repo, plan)
            message = _message(f"revert: {subject_of(target)}", f"This reverts commit {target.id}.")
            return str(self._create_commit(repo, plan.tree_id, head, message, author))

    # ------------------------------------------------------------ opening / repair

    def _open(self, *, write: bool) -> pygit2.Repository:
        """Open the repository, creating it or replacing a damaged one as needed.

        Raises:
            GitStoreError: The history is off (the workspace is inside another repository).
        """
        if not self._gitdir.exists() and not self._gitdir.is_symlink():
            off = self.off_reason()
            if off is not None:
                raise GitStoreError(off)
            return self._create()
        try:
            repo = pygit2.Repository(str(self.workspace), enums.RepositoryOpenFlag.NO_SEARCH)
            check_health(repo)
        except (pygit2.GitError, KeyError, ValueError, OSError) as exc:
            if is_not_damage(exc):
                raise GitStoreError(
                    Phrase(CANNOT_OPEN, gitdir=str(self._gitdir), error=str(exc))
                ) from exc
            return self._replace_damaged(exc)
        if repo.workdir is None or Path(repo.workdir).resolve() != self.workspace.resolve():
            raise GitStoreError(Phrase(NOT_OURS, gitdir=str(self._gitdir)))
        if write:
            self._notices += clear_stale_locks(Path(repo.path), self.workspace)
            self._allow_tracked(repo)
        return repo

    def _create(self, *, damaged: str | None = None) -> pygit2.Repository:
        self.workspace.mkdir(parents=True, exist_ok=True)
        repo = pygit2.init_repository(str(self.workspace))
        ensure_gitignore(repo, self.workspace, TRACKED, create=True)
        body = f"The previous repository was damaged and set aside as {damaged}." if damaged else ""
        self._commit_paths(repo, (".gitignore", *TRACKED), _message(INIT_MESSAGE, body), "nanobot")
        return repo

    def _replace_damaged(self, exc: BaseException) -> pygit2.Repository:
        aside = set_aside_gitdir(self._gitdir)
        self._notices.append(
            Phrase(
                QT_TR_NOOP(
                    "set aside a corrupt repository as {name} ({error}); started a fresh memory "
                    "history from the current files, which were not changed"
                ),
                name=aside.name,
                error=str(exc),
            )
        )
        return self._create(damaged=aside.name)

    def _allow_tracked(self, repo: pygit2.Repository) -> None:
        """In an adopted repository, make sure no tracked path is ignored (commit the fix)."""
        fixed = ensure_gitignore(repo, self.workspace, TRACKED, create=False)
        if fixed:
            self._commit_paths(
                repo, (".gitignore",), _message(f"init: track {', '.join(fixed)}"), "nanobot"
            )
            self._notices.append(
                Phrase(
                    QT_TR_NOOP("added {paths} to .gitignore so the history includes it"),
                    paths=", ".join(fixed),
                )
            )

    # -------------------------------------------------------------------- commits

    def _record_outside_edits(self, repo: pygit2.Repository) -> list[str]:
        if repo.head_is_unborn:
            return []
        shas = []
        for path in HUMAN_FILES:
            try:
                disk = self._disk_id(path)
            except ownfiles.Refused:
                continue
            if disk == entry_id(repo.head.peel(pygit2.Commit).tree, path):
                continue
            body = (
                "Found changed on disk (edited outside nanobot Desktop); recorded before going on."
            )
            oid = self._commit_paths(repo, (path,), _message(f"edit: {path}", body), "user")
            if oid is not None:
                shas.append(str(oid))
                self._notices.append(
                    Phrase(
                        QT_TR_NOOP("recorded an outside edit of {path} as {commit}"),
                        path=path,
                        commit=str(oid)[:7],
                    )
                )
        return shas

    def _disk_bytes(self, path: str) -> bytes | None:
        """A tracked file's bytes (``None``: absent), never through a link nor from a FIFO.

        Raises:
            Refused: A link, FIFO or folder stands there (its target is never committed; the
                history keeps the file as it was, with a notice).
        """
        try:
            return ownfiles.read_bytes(self.workspace / path, root=self.workspace)
        except ownfiles.Refused as exc:
            notice = Phrase(
                QT_TR_NOOP("{problem}; the memory history keeps it as it was"), problem=str(exc)
            )
            if notice not in self._notices:
                self._notices.append(notice)
            raise

    def _disk_id(self, path: str) -> pygit2.Oid | None:
        data = self._disk_bytes(path)
        return pygit2.hash(data) if data is not None else None

    def _commit_paths(
        self, repo: pygit2.Repository, paths: tuple[str, ...], message: str, author: str
    ) -> pygit2.Oid | None:
        """Commit HEAD's tree with ``paths`` taken from disk; ``None`` when nothing changed."""
        parent = None if repo.head_is_unborn else repo.head.peel(pygit2.Commit)
        index = pygit2.Index()
        if parent is not None:
            index.read_tree(parent.tree)
        for path in paths:
            try:
                data = self._disk_bytes(path)
            except ownfiles.Refused:
                continue  # not a regular file: HEAD's version stays
            if data is not None:
                index.add(pygit2.IndexEntry(path, repo.create_blob(data), enums.FileMode.BLOB))
            elif path in index:
                index.remove(path)
        tree_id = index.write_tree(repo)
        if parent is not None and tree_id == parent.tree_id:
            return None
        return self._create_commit(repo, tree_id, parent, message, author)

    def _create_commit(
        self,
        repo: pygit2.Repository,
        tree_id: pygit2.Oid,
        parent: pygit2.Commit | None,
        message: str,
        author: str,
    ) -> pygit2.Oid:
        parents = [parent.id] if parent is not None else []
        oid = repo.create_commit(
            "HEAD", _signature(author), _signature("nanobot"), message, tree_id, parents
        )
        self._sync_index(repo, tree_id)
        return oid

    def _sync_index(self, repo: pygit2.Repository, tree_id: pygit2.Oid) -> None:
        """Make ``.git/index`` match the new commit so ``git status`` is clean (best effort)."""
        for attempt in range(2):
            try:
                index = repo.index
                index.read_tree(repo[tree_id].peel(pygit2.Tree))
                index.write()
                return
            except pygit2.GitError:
                gitdir = Path(repo.path)
                if attempt == 0 and not (gitdir / "index.lock").exists():
                    (gitdir / "index").unlink(missing_ok=True)  # unreadable: it is only a cache
        self._notices.append(
            Phrase(QT_TR_NOOP("could not update the git index; 'git status' may look out of date"))
        )

    def _apply(self, repo: pygit2.Repository, plan: RevertPlan) -> None:
        """Write the planned contents to the working files (atomically, one by one)."""
        root = self.workspace.resolve()
        for path, blob_id in plan.changes:
            target = (self.workspace / path).resolve()
            if root not in target.parents or ".git" in Path(path).parts:
                raise GitStoreError(f"refusing to write outside the workspace: {path}")
            if blob_id is None:
                ownfiles.remove(self.workspace / path, root=self.workspace)
            else:
                data = repo[blob_id].peel(pygit2.Blob).data
                atomic_write_bytes(self.workspace / path, data, root=self.workspace)

    # -------------------------------------------------------------------- reading

    def _resolve(self, repo: pygit2.Repository, sha: str) -> pygit2.Commit:
        """Find a commit by full id, unique prefix (4+ hex digits) or revision (``HEAD~1``)."""
        text = sha.strip()
        try:
            found = repo[text] if _HEX.fullmatch(text) else repo.revparse_single(text)
            return found.peel(pygit2.Commit)
        except pygit2.AmbiguousError as exc:
            raise UnknownCommit(
                f"{text} matches more than one commit; give more characters"
            ) from exc
        except (KeyError, ValueError, pygit2.GitError) as exc:
            raise UnknownCommit(f"no commit {text!r} in the memory history") from exc

    def _info(self, repo: pygit2.Repository, commit: pygit2.Commit) -> CommitInfo:
        stats = _diff_to_parent(repo, commit).stats
        subject, body = _split_message(commit.message)
        sha = str(commit.id)
        return CommitInfo(
            sha,
            sha[:7],
            _when(commit),
            subject,
            body,
            stats.files_changed,
            stats.insertions,
            stats.deletions,
        )

    def _tracked_name(self, file: str | Path) -> str:
        path = Path(file)
        if path.is_absolute():
            try:
                path = path.resolve().relative_to(self.workspace.resolve())
            except ValueError:
                raise GitStoreError(
                    f"{file} is not inside the workspace {self.workspace}"
                ) from None
        name = path.as_posix()
        if name not in TRACKED:
            raise GitStoreError(
                f"{name} is not part of the memory history (tracked: {', '.join(TRACKED)})"
            )
        return name
