"""Real-world repair of the memory repository: stale locks, damage, ``.gitignore`` rules.

These helpers never touch the tracked markdown files. The only working-tree file they may
write is ``.gitignore`` (created, or extended with allow-lines; never rewritten).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.core.utils.lazy import LazyModule

if TYPE_CHECKING:
    import pygit2
    from pygit2 import enums
else:  # loaded on first use (see git_store)
    pygit2 = LazyModule("pygit2")
    enums = LazyModule("pygit2.enums")


from desktop.core.memory.git_types import GitStoreError, RepositoryBusy
from desktop.core.utils.atomic import aside_name, atomic_write_bytes, atomic_write_text
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase

#: Lock files git and libgit2 leave behind when they die mid-write.
_LOCK_NAMES = ("index.lock", "HEAD.lock")
#: A lock younger than this may belong to a program that is about to finish: wait for it.
FRESH_LOCK_SECONDS = 2.0
#: Without a way to see processes (no /proc), only locks older than this count as stale.
BLIND_STALE_SECONDS = 600.0

GITIGNORE_HEADER = "# nanobot memory repository: everything is ignored except the files below\n"


def find_locks(gitdir: Path) -> list[Path]:
    """Lock files currently present in ``gitdir`` (index, HEAD and branch refs)."""
    found = [gitdir / name for name in _LOCK_NAMES if (gitdir / name).exists()]
    heads = gitdir / "refs" / "heads"
    if heads.is_dir():
        found.extend(sorted(heads.rglob("*.lock")))
    return found


def git_process_in(workspace: Path, proc: Path = Path("/proc"), *, scans: int = 3) -> bool | None:
    """Whether a live ``git`` process may be working inside ``workspace``.

    A git process whose working directory cannot be read (a sandbox that hides other
    processes' ``cwd``) counts as "inside": stealing a lock a live program holds would
    corrupt its work, while waiting only delays a commit. Listing ``/proc`` can skip entries
    while other processes start and exit, so a negative answer is only given after ``scans``
    listings agree.

    Args:
        workspace: The repository's working directory.
        proc: Where procfs is mounted (a parameter so tests can give a fake tree).
        scans: How many listings must find nothing before the answer is ``False``.

    Returns:
        ``True``/``False`` on systems with procfs; ``None`` when processes cannot be seen.
    """
    target = workspace.resolve()
    for _ in range(max(1, scans)):
        try:
            entries = [entry for entry in proc.iterdir() if entry.name.isdigit()]
        except OSError:
            return None
        if not entries:
            return None
        if any(_git_inside(entry, target) for entry in entries):
            return True
    return False


def _git_inside(entry: Path, target: Path) -> bool:
    try:
        name = (entry / "comm").read_bytes().decode("utf-8", "replace").strip()
    except OSError:
        return False  # the process has gone
    if not name.startswith("git"):
        return False
    try:
        cwd = Path(os.readlink(entry / "cwd"))
    except FileNotFoundError:
        return False  # gone between the two reads
    except OSError:
        return True
    return cwd == target or target in cwd.parents


def _age(path: Path) -> float:
    try:
        return time.time() - path.stat().st_mtime
    except OSError:
        return 0.0


def clear_stale_locks(gitdir: Path, workspace: Path) -> list[str]:
    """Remove lock files left by a crashed program; wait briefly for fresh ones.

    Raises:
        RepositoryBusy: A live git program holds a lock (e.g. ``git commit`` with its editor
            open). Nothing is removed.
    """
    deadline = time.monotonic() + FRESH_LOCK_SECONDS
    locks = find_locks(gitdir)
    while (
        locks
        and time.monotonic() < deadline
        and min(_age(lock) for lock in locks) < FRESH_LOCK_SECONDS
    ):
        time.sleep(0.05)
        locks = find_locks(gitdir)
    if not locks:
        return []
    live = git_process_in(workspace)
    if live or (live is None and min(_age(lock) for lock in locks) < BLIND_STALE_SECONDS):
        names = ", ".join(str(lock.relative_to(workspace)) for lock in locks)
        raise RepositoryBusy(
            Phrase(
                QT_TR_NOOP(
                    "another git program is using the memory repository ({names} is held). "
                    "Finish or close it, then try again."
                ),
                names=names,
            )
        )
    notices: list[str] = []
    for lock in locks:
        try:
            lock.unlink()
        except FileNotFoundError:
            continue
        notices.append(
            Phrase(
                QT_TR_NOOP("recovered a stale {lock} (left by a program that stopped mid-write)"),
                lock=str(lock.relative_to(workspace)),
            )
        )
    return notices


def check_health(repo: pygit2.Repository) -> None:
    """Read HEAD, its commit, the commit's parents and every blob of its tree.

    Raises:
        pygit2.GitError, KeyError, ValueError: The repository is damaged.
    """
    if repo.head_is_unborn:
        return
    commit = repo.head.peel(pygit2.Commit)
    for parent_id in commit.parent_ids:
        repo[parent_id]
    _read_tree(repo, commit.tree)


def _read_tree(repo: pygit2.Repository, tree: pygit2.Tree) -> None:
    for entry in tree:
        if entry.type == enums.ObjectType.TREE:
            _read_tree(repo, repo[entry.id].peel(pygit2.Tree))
        elif entry.type == enums.ObjectType.BLOB:
            repo[entry.id].read_raw()


def is_not_damage(exc: BaseException) -> bool:
    """Errors that mean "not allowed" or "too new for libgit2", not "damaged".

    A repository is never set aside for these: it may be perfectly fine for the user's git.
    """
    text = str(exc).lower()
    markers = ("not owned", "permission denied", "unsupported", "extension")
    return isinstance(exc, PermissionError) or any(marker in text for marker in markers)


def set_aside_gitdir(gitdir: Path) -> Path:
    """Rename a damaged ``.git`` to ``.git.corrupt-<timestamp>`` (kept for forensics)."""
    candidate = aside_name(gitdir, "corrupt")
    os.rename(gitdir, candidate)
    return candidate


def gitignore_rules(tracked: tuple[str, ...]) -> str:
    """A ``.gitignore`` ignoring everything except ``.gitignore`` and ``tracked``."""
    lines = [GITIGNORE_HEADER, "/*\n", "!/.gitignore\n"]
    seen_dirs: set[str] = set()
    for path in tracked:
        parts = path.split("/")
        for depth in range(1, len(parts)):
            folder = "/".join(parts[:depth])
            if folder not in seen_dirs:
                seen_dirs.add(folder)
                lines += [f"!/{folder}/\n", f"/{folder}/*\n"]
        lines.append(f"!/{path}\n")
    return "".join(lines)


def ensure_gitignore(
    repo: pygit2.Repository, workspace: Path, tracked: tuple[str, ...], *, create: bool
) -> list[str]:
    """Append allow-lines for tracked paths that ``.gitignore`` ignores; never rewrite it.

    Args:
        repo: The repository.
        workspace: Its working directory.
        tracked: Paths that must not be ignored.
        create: Write our ``.gitignore`` when there is none (new repositories only; an
            adopted repository without one ignores nothing and is left alone).

    Returns:
        The tracked paths that were ignored before and are now allowed.
    """
    path = workspace / ".gitignore"
    if not path.exists():
        if create:
            atomic_write_text(path, gitignore_rules(tracked), mode=0o644)
        return []
    ignored = [item for item in tracked if repo.path_is_ignored(item)]
    if not ignored:
        return []
    extra = ["\n# added by nanobot Desktop so these files are tracked\n"]
    for item in ignored:
        parts = item.split("/")
        extra += [f"!/{'/'.join(parts[:depth])}/\n" for depth in range(1, len(parts))]
        extra.append(f"!/{item}\n")
    old = path.read_bytes()
    separator = b"" if not old or old.endswith(b"\n") else b"\n"
    atomic_write_bytes(path, old + separator + "".join(dict.fromkeys(extra)).encode("utf-8"))
    still = [item for item in ignored if repo.path_is_ignored(item)]
    if still:
        raise GitStoreError(
            Phrase(
                QT_TR_NOOP(".gitignore still ignores {paths}; remove the rule that hides it"),
                paths=", ".join(still),
            )
        )
    return ignored
