"""Crash-safe file writes and quarantine of corrupt files.

Every write of user data goes through :func:`atomic_write_text` (or its bytes twin): the new
content is written to a temporary file in the same directory, flushed and fsynced, then moved
over the target with :func:`os.replace`, and the directory entry is fsynced. A reader never
sees a half-written file and a crash leaves either the old or the new content.

The app's own files in the workspace are written with ``root=`` (the workspace): no symlink is
followed below it, and a link or special file standing at the name is moved aside first
(:func:`desktop.core.utils.ownfiles.replace`).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path


def _fsync_dir(directory: Path) -> None:
    """Flush a directory entry to disk (best effort; not supported everywhere)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_bytes(
    path: str | os.PathLike[str],
    data: bytes,
    *,
    mode: int | None = None,
    root: str | os.PathLike[str] | None = None,
) -> None:
    """Write ``data`` to ``path`` atomically.

    Args:
        path: Target file. Parent directories are created.
        data: Full new content.
        mode: Permission bits for the file. When ``None`` an existing file keeps its mode and a
            new one is private to the user (``0o600``).
        root: A folder above ``path`` below which no symlink is followed (the workspace, for
            the app's own files there).

    Raises:
        desktop.core.utils.ownfiles.Refused: With ``root``: a folder on the way is a link.
    """
    if root is not None:
        from desktop.core.utils.ownfiles import replace

        replace(Path(path), data, root=Path(root), mode=mode)
        return
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    if mode is None and target.exists():
        mode = target.stat().st_mode & 0o777
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp_name, mode)
        os.replace(tmp_name, target)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except OSError:
            pass
        raise
    _fsync_dir(target.parent)


def atomic_write_text(
    path: str | os.PathLike[str],
    text: str,
    *,
    encoding: str = "utf-8",
    mode: int | None = None,
    root: str | os.PathLike[str] | None = None,
) -> None:
    """Write ``text`` to ``path`` atomically (see :func:`atomic_write_bytes`)."""
    atomic_write_bytes(path, text.encode(encoding), mode=mode, root=root)


def set_aside(path: str | os.PathLike[str], label: str = "corrupt") -> Path:
    """Copy a damaged file beside itself as ``<name>.<label>-<timestamp>`` and return the copy.

    The original is left in place: callers decide whether to rewrite it later. Copying (not
    moving) means that a crash between here and the next save still leaves the user's bytes
    where they were.
    """
    source = Path(path)
    candidate = aside_name(source, label)
    shutil.copy2(source, candidate)
    return candidate


def aside_name(path: Path, label: str) -> Path:
    """A free name beside ``path``: ``<name>.<label>-<timestamp>`` (``-1``, ``-2``… if taken)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    candidate = path.with_name(f"{path.name}.{label}-{stamp}")
    counter = 1
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.{label}-{stamp}-{counter}")
        counter += 1
    return candidate
