"""Reading and writing a workspace file by a relative path without following any link.

The memory code uses these for files that something else (the model, through ``exec``) may
have tampered with: a Dream proposal, and the files a proposal changes. The path is opened
one component at a time from the workspace folder (the workspace path itself is the
configured one and trusted), each folder with ``O_NOFOLLOW | O_DIRECTORY`` relative to its
parent's descriptor and the file with ``O_NOFOLLOW``
(:mod:`desktop.core.utils.fsopen`). A symbolic link anywhere below the workspace, or a
folder, device, FIFO or socket where a file belongs, raises :class:`NotFollowed`: it is
never followed, opened or replaced. A write creates a temporary file in the checked folder
and renames it over the name, so a link swapped in after the check is replaced, not written
through (and a hard link to another file is not written through either).

Where ``dir_fd`` is unsupported (Windows) the same checks run on paths, without the
race-freedom (creating symlinks needs privileges there).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from desktop.core.utils.fsopen import (
    DIR_FD,
    LIST_FLAGS,
    READ_FLAGS,
    Dir,
    identity,
    write_atomic,
)


class NotFollowed(OSError):
    """A link or a special file stands in the path; the message says which component (``it``:
    the file itself).

    Attributes:
        at_end: Whether it is the last component (the file itself), not a folder above it.
    """

    def __init__(self, code: int, message: str, *, at_end: bool = False) -> None:
        super().__init__(code, message)
        self.at_end = at_end


def _open_root(workspace: Path) -> Dir:
    real = os.path.realpath(Path(workspace).expanduser())
    if DIR_FD:
        fd = os.open(real, LIST_FLAGS)
        return Dir(fd, real, identity(os.fstat(fd)))
    return Dir(None, real, identity(os.stat(real)))


def _enter(folder: Dir, name: str, shown: str, *, create: bool) -> Dir:
    """The sub-folder ``name`` of ``folder`` (created when missing and ``create``)."""
    try:
        st = folder.lstat(name)
    except FileNotFoundError:
        if not create:
            raise
        folder.mkdir(name)
        st = folder.lstat(name)
    if stat.S_ISLNK(st.st_mode):
        raise NotFollowed(errno.ELOOP, f"{shown} is a symbolic link, which is not followed")
    if not stat.S_ISDIR(st.st_mode):
        raise NotFollowed(errno.ENOTDIR, f"{shown} is not a folder")
    where = os.path.join(folder.where, name)
    if folder.fd is None:
        return Dir(None, where, identity(st))
    try:
        fd = folder.open(name, LIST_FLAGS)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise NotFollowed(
                exc.errno, f"{shown} changed into a link while it was opened"
            ) from None
        raise
    return Dir(fd, where, identity(os.fstat(fd)))


def _parent(workspace: Path, path: str, *, create: bool) -> tuple[Dir, str]:
    """The open folder holding ``path`` and the file's name in it."""
    parts = path.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise NotFollowed(errno.EINVAL, f"{path} is not a plain relative path")
    folder = _open_root(workspace)
    try:
        for depth, name in enumerate(parts[:-1], 1):
            child = _enter(folder, name, "/".join(parts[:depth]), create=create)
            folder.close()
            folder = child
    except BaseException:
        folder.close()
        raise
    return folder, parts[-1]


def _check_file(st: os.stat_result) -> None:
    if stat.S_ISLNK(st.st_mode):
        raise NotFollowed(errno.ELOOP, "it is a symbolic link, which is not followed", at_end=True)
    if not stat.S_ISREG(st.st_mode):
        raise NotFollowed(errno.EINVAL, "it is not a regular file", at_end=True)


def read_bytes(workspace: Path, path: str, *, limit: int | None = None) -> bytes | None:
    """The bytes of the workspace file ``path`` (``None`` when it or a folder is missing).

    Raises:
        NotFollowed: A link or special file is in the way.
        OSError: It could not be read, or it is larger than ``limit`` bytes (``EFBIG``).
    """
    try:
        folder, name = _parent(workspace, path, create=False)
    except (FileNotFoundError, NotADirectoryError):
        return None
    try:
        try:
            st = folder.lstat(name)
        except FileNotFoundError:
            return None
        _check_file(st)
        try:
            fd = folder.open(name, READ_FLAGS)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise NotFollowed(exc.errno, "it became a link", at_end=True) from None
            raise
        with os.fdopen(fd, "rb") as handle:
            opened = os.fstat(fd)
            if identity(opened) != identity(st) or not stat.S_ISREG(opened.st_mode):
                raise NotFollowed(errno.EAGAIN, "it changed while it was opened", at_end=True)
            data = handle.read() if limit is None else handle.read(limit + 1)
    finally:
        folder.close()
    if limit is not None and len(data) > limit:
        raise OSError(errno.EFBIG, f"{path} is larger than {limit} bytes")
    return data


def write_bytes(workspace: Path, path: str, data: bytes) -> None:
    """Replace (or create) the workspace file ``path`` atomically; missing folders are made.

    An existing file keeps its permission bits; a new one is private to the user.

    Raises:
        NotFollowed: A link or special file is in the way (nothing was written).
        OSError: It could not be written.
    """
    folder, name = _parent(workspace, path, create=True)
    try:
        try:
            st: os.stat_result | None = folder.lstat(name)
        except FileNotFoundError:
            st = None
        if st is not None:
            _check_file(st)
        write_atomic(folder, name, data, mode=None if st is None else st.st_mode & 0o777)
    finally:
        folder.close()


def obstacle(workspace: Path, path: str) -> str | None:
    """Why ``path`` could not be written without following a link (``None``: it could; a
    missing file or folder is fine, it would be created). Never raises."""
    try:
        folder, name = _parent(workspace, path, create=False)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return str(exc.strerror or exc)
    try:
        _check_file(folder.lstat(name))
    except FileNotFoundError:
        return None
    except OSError as exc:
        return str(exc.strerror or exc)
    finally:
        folder.close()
    return None


def is_regular_file(workspace: Path, path: str) -> bool:
    """Whether ``path`` is a regular file reached without any link (never raises)."""
    try:
        folder, name = _parent(workspace, path, create=False)
    except OSError:
        return False
    try:
        return stat.S_ISREG(folder.lstat(name).st_mode)
    except OSError:
        return False
    finally:
        folder.close()
