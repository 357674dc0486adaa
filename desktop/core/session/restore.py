"""``sessions restore-workspace``: copy a workspace's sessions back to ``<workspace>/sessions/``
(nanobot 0.3.5's rollback before going back to a version that read them there).

Every canonical session file of the workspace's id folder (see
:mod:`desktop.core.session.location`) is copied under the same name into the legacy folder,
under nanobot's migration lock and the id folder's ``.session-files.lock``:

* no file of that name there: copied (a private temporary file beside it, flushed, then
  *linked* to the name, so nothing there is ever replaced) — ``restored``;
* a file with the same bytes there: ``unchanged``;
* a different file there, or a source that is not a readable session (not a regular file,
  a line that is not a JSON object, nothing in it): a ``conflict`` — left for the person to
  look at; nothing is overwritten.

The id folder keeps every file. The next start of this app (or of nanobot 0.3.5) moves the
legacy files back (identical ones are simply removed there).
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import stat
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

from desktop.core.session.adopt import FILES_LOCK
from desktop.core.session.location import (
    LEGACY_FOLDER,
    MIGRATION_LOCK,
    MIGRATION_LOCK_TIMEOUT_S,
    key_from_storage_stem,
    peek_directory,
    sessions_root,
)


@dataclass(frozen=True)
class RestoreResult:
    """What :func:`restore_to_workspace` did.

    Attributes:
        restored: Files copied.
        unchanged: Files already there with the same bytes.
        conflicts: Files that need the person's review (a different file in the way, or an
            unreadable source).
        target: The folder copied into.
    """

    restored: int
    unchanged: int
    conflicts: tuple[Path, ...]
    target: Path


def _digest(path: Path) -> tuple[bytes, str] | None:
    """The bytes and SHA-256 of a session file; ``None`` when it is not one (a link, not a
    regular file, a line that is not a JSON object, no record at all)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read()
    except OSError:
        return None
    finally:
        os.close(fd)
    records = 0
    for line in data.splitlines():
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError:
            return None
        if not isinstance(value, dict):
            return None
        records += 1
    return (data, hashlib.sha256(data).hexdigest()) if records else None


def _install(data: bytes, target: Path) -> bool:
    """Put ``data`` at ``target`` unless something is there; whether it was put."""
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(tmp, target)
        except FileExistsError:
            return False
    finally:
        tmp.unlink(missing_ok=True)
    folder = os.open(target.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    except OSError:
        pass
    finally:
        os.close(folder)
    return True


def restore_to_workspace(workspace: Path, config_dir: Path) -> RestoreResult:
    """Copy the workspace's sessions back to ``<workspace>/sessions`` (see the module
    docstring). Blocking: call it in a thread from the event loop.

    Raises:
        RuntimeError: ``<workspace>/sessions`` is a symbolic link (nothing is copied).
        filelock.Timeout: Another program held the sessions lock too long.
        OSError: The folder cannot be created or written.
    """
    workspace = Path(workspace).expanduser()
    target = workspace / LEGACY_FOLDER
    if target.is_symlink():
        raise RuntimeError(f"refusing to restore into symlinked sessions directory: {target}")
    source = peek_directory(workspace, config_dir)
    restored = unchanged = 0
    conflicts: list[Path] = []
    if source is None or not source.is_dir():
        return RestoreResult(0, 0, (), target)
    target.mkdir(parents=True, exist_ok=True)
    with ExitStack() as locks:
        root = sessions_root(config_dir)
        locks.enter_context(FileLock(str(root / MIGRATION_LOCK), timeout=MIGRATION_LOCK_TIMEOUT_S))
        locks.enter_context(FileLock(str(source / FILES_LOCK), timeout=MIGRATION_LOCK_TIMEOUT_S))
        for path in sorted(source.glob("*.jsonl")):
            if key_from_storage_stem(path.stem) is None:
                continue  # not a canonical session file
            found = _digest(path)
            if found is None:
                conflicts.append(path)
                continue
            data, digest = found
            dst = target / path.name
            if not dst.exists() and not dst.is_symlink() and _install(data, dst):
                restored += 1
                continue
            there = _digest(dst)
            if there is not None and there[1] == digest:
                unchanged += 1
            else:
                conflicts.append(dst)
    return RestoreResult(restored, unchanged, tuple(conflicts), target)
