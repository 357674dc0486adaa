"""Race-free resolution and opening of the paths the file tools receive.

Every file tool resolves *and* opens through this module, so no check can be raced by swapping
a path component for a symlink between the check and the use:

* The path is walked one component at a time from a directory descriptor, starting at ``/``:
  each folder is opened with ``O_NOFOLLOW | O_DIRECTORY`` relative to its parent's descriptor
  (``openat``). A symlink makes that open fail; the walker reads the link and walks its target
  the same way (an absolute target restarts at ``/``, ``..`` returns to the descriptor it came
  from), so symlinks resolve exactly as the kernel would resolve them. The descriptors held
  form a chain of real parent→child folders.
* The checks run on that chain and compare identities (``st_dev``, ``st_ino``) of the opened
  folders, not strings: a path is inside the workspace when the workspace folder is in the
  chain; it is protected when a protected file or folder is in it, or when it is named where a
  protected path that does not exist yet would be.
* Only then is the last component opened relative to the checked folder's descriptor with
  ``O_NOFOLLOW``, and the opened file verified with ``fstat`` against what was checked. Writes
  create a temporary file by descriptor in the checked folder and move it over the target with
  ``os.replace(..., src_dir_fd=, dst_dir_fd=)``.

Linux's ``openat2(RESOLVE_BENEATH)`` is deliberately not used: it refuses absolute symlinks even
when they point inside the workspace (which work today), and the unrestricted mode needs the
protected-path check on every component anyway; one walk gives one behaviour on Linux and macOS.
Where ``dir_fd`` is unsupported (Windows) the same walk runs on paths and is not race-free there
(creating symlinks needs privileges on Windows).
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path, PurePath
from typing import Self

DIR_FD = (
    os.open in os.supports_dir_fd
    and os.stat in os.supports_dir_fd
    and hasattr(os, "O_NOFOLLOW")
    and hasattr(os, "O_DIRECTORY")
)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_BINARY = getattr(os, "O_BINARY", 0)
# O_PATH (Linux) walks folders that are searchable but not readable.
_WALK_FLAGS = (getattr(os, "O_PATH", 0) or os.O_RDONLY) | _DIRECTORY | _NOFOLLOW | _CLOEXEC
LIST_FLAGS = os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC
# O_NONBLOCK: opening a FIFO swapped in after the check must not wait for a writer.
READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | _NOFOLLOW | _CLOEXEC | _BINARY
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC | _BINARY
_LINK_ERRNOS = {errno.ELOOP, errno.ENOTDIR, getattr(errno, "EMLINK", errno.ELOOP)}
MAX_SYMLINKS = 40
MAX_RETRIES = 64

Identity = tuple[int, int]


def identity(st: os.stat_result) -> Identity:
    """The ``(st_dev, st_ino)`` pair that names a file or folder on this machine."""
    return (st.st_dev, st.st_ino)


class Symlink(Exception):
    """The component is a symlink; ``target`` is what it points to."""

    def __init__(self, target: str) -> None:
        super().__init__(target)
        self.target = target


class Changed(Exception):
    """The component changed between two system calls (a swap in progress); walk it again."""


class Dir:
    """An open folder: its descriptor (where ``dir_fd`` works) and its real path.

    Every operation names an entry *inside* this folder, relative to the descriptor, so the
    folder cannot be swapped for another between calls.
    """

    def __init__(self, fd: int | None, path: str, ident: Identity) -> None:
        self.fd, self.where, self.ident = fd, path, ident

    @property
    def path(self) -> Path:
        """The folder's real path."""
        return Path(self.where)

    @property
    def name(self) -> str:
        """The folder's own name (empty for the root)."""
        return os.path.basename(self.where)

    def _join(self, name: str) -> str:
        return os.path.join(self.where, name)

    @classmethod
    def root(cls, anchor: str) -> Dir:
        """The file system root (or drive) ``anchor``."""
        if DIR_FD:
            fd = os.open(anchor, _WALK_FLAGS)
            return cls(fd, anchor, identity(os.fstat(fd)))
        return cls(None, anchor, identity(os.stat(anchor)))

    @classmethod
    def at(cls, real: str) -> Dir:
        """The folder at the absolute path ``real`` (already resolved: its last component is
        opened with ``O_NOFOLLOW``, the ones above are followed as the kernel does).

        Raises:
            NotADirectoryError: Not a folder (or a symlink).
            FileNotFoundError: Nothing is there.
        """
        if DIR_FD:
            try:
                fd = os.open(real, _WALK_FLAGS)
            except OSError as exc:
                if exc.errno in _LINK_ERRNOS:
                    raise NotADirectoryError(errno.ENOTDIR, "Not a directory", real) from None
                raise
            return cls(fd, real, identity(os.fstat(fd)))
        st = os.lstat(real)
        if not stat.S_ISDIR(st.st_mode):
            raise NotADirectoryError(errno.ENOTDIR, "Not a directory", real)
        return cls(None, real, identity(st))

    def _at(self, name: str) -> str:
        return name if self.fd is not None else self._join(name)

    def lstat(self, name: str) -> os.stat_result:
        """``name``'s own metadata (a symlink is not followed)."""
        return os.stat(self._at(name), dir_fd=self.fd, follow_symlinks=False)

    def readlink(self, name: str) -> str | None:
        """``name``'s symlink target, or None when it is not a symlink (any more)."""
        try:
            return os.readlink(self._at(name), dir_fd=self.fd)
        except OSError as exc:
            if exc.errno in (errno.EINVAL, errno.ENOENT):
                return None
            raise

    def open(self, name: str, flags: int, mode: int = 0o777) -> int:
        """``openat(fd, name)``; flags should include ``O_NOFOLLOW``."""
        if self.fd is None:
            return os.open(self._at(name), flags & ~_NOFOLLOW, mode)
        return os.open(name, flags, mode, dir_fd=self.fd)

    def child(self, name: str, *, listable: bool = False) -> Dir:
        """Enter the sub-folder ``name`` without following a symlink.

        Args:
            name: One path component.
            listable: Open it so that its entries can be read (not ``O_PATH``).

        Raises:
            Symlink: ``name`` is a symlink.
            FileNotFoundError: Nothing is there.
            NotADirectoryError: It is a file.
        """
        if self.fd is None:
            st = self.lstat(name)
            if stat.S_ISLNK(st.st_mode):
                raise Symlink(os.readlink(self._at(name)))
            if not stat.S_ISDIR(st.st_mode):
                raise NotADirectoryError(errno.ENOTDIR, "Not a directory", self._join(name))
            return Dir(None, self._join(name), identity(st))
        try:
            fd = os.open(name, LIST_FLAGS if listable else _WALK_FLAGS, dir_fd=self.fd)
        except OSError as exc:
            if exc.errno not in _LINK_ERRNOS:
                raise
            target = self.readlink(name)
            if target is not None:
                raise Symlink(target) from None
            if exc.errno == errno.ENOTDIR:
                raise
            raise Changed from None
        return Dir(fd, self._join(name), identity(os.fstat(fd)))

    def listable(self) -> Dir:
        """This folder reopened for reading its entries (an ``O_PATH`` descriptor cannot)."""
        if self.fd is None:
            return Dir(None, self.where, self.ident)
        fd = os.open(".", LIST_FLAGS, dir_fd=self.fd)
        return Dir(fd, self.where, identity(os.fstat(fd)))

    def scandir(self) -> list[os.DirEntry[str]]:
        """The folder's entries, sorted by name (needs a :meth:`listable` folder)."""
        target: int | str = self.fd if self.fd is not None else self.where
        with os.scandir(target) as entries:
            return sorted(entries, key=lambda entry: entry.name)

    def mkdir(self, name: str) -> None:
        """Create the sub-folder ``name``; an existing one is fine."""
        try:
            os.mkdir(self._at(name), 0o777, dir_fd=self.fd)
        except FileExistsError:
            pass

    def rename(self, name: str, new: str) -> None:
        """Rename the entry ``name`` to ``new``, both in this folder (a symlink itself moves)."""
        os.rename(self._at(name), self._at(new), src_dir_fd=self.fd, dst_dir_fd=self.fd)

    def unlink(self, name: str) -> None:
        """Remove the entry ``name`` (a symlink itself, never its target)."""
        os.unlink(self._at(name), dir_fd=self.fd)

    def join(self, name: str) -> Path:
        """The path of the entry ``name`` (for messages)."""
        return Path(self._join(name))

    def fsync(self) -> None:
        """Flush the folder's entries to disk (best effort)."""
        if self.fd is None:
            return
        try:
            fd = os.open(".", LIST_FLAGS, dir_fd=self.fd)
        except OSError:
            return
        try:
            os.fsync(fd)
        except OSError:
            pass
        finally:
            os.close(fd)

    def close(self) -> None:
        """Close the descriptor (idempotent)."""
        if self.fd is not None:
            fd, self.fd = self.fd, None
            os.close(fd)


class Chain:
    """The folders walked so far, from the root down, plus names that do not exist (yet).

    Attributes:
        dirs: Open folders, each a child of the one before.
        missing: Names below ``dirs[-1]`` that are not there (a write would create them).
    """

    def __init__(self, root: Dir) -> None:
        self.dirs: list[Dir] = [root]
        self.missing: list[str] = []

    @property
    def top(self) -> Dir:
        """The deepest existing folder."""
        return self.dirs[-1]

    def up(self) -> None:
        """``..``: back to the folder this one was entered from (the root stays the root)."""
        if self.missing:
            self.missing.pop()
        elif len(self.dirs) > 1:
            self.dirs.pop().close()

    def restart(self, root: Dir) -> None:
        """An absolute symlink: start again from ``root``."""
        self.close()
        self.dirs, self.missing = [root], []

    def entries(
        self, last: tuple[Identity | None, str] | None
    ) -> list[tuple[Identity | None, str]]:
        """``(identity or None, name)`` from the root down, ``last`` appended when given."""
        rows: list[tuple[Identity | None, str]] = [(d.ident, d.name) for d in self.dirs]
        rows += [(None, name) for name in self.missing]
        return rows + ([last] if last is not None else [])

    def path(self, name: str | None) -> Path:
        """The real path of ``name`` in the chain (or of the chain's end)."""
        return Path(os.path.join(self.top.where, *self.missing, *([name] if name else [])))

    def detach_top(self) -> Dir:
        """Hand the deepest folder to the caller (it is no longer closed with the chain)."""
        top = self.dirs[-1]
        self.dirs[-1] = Dir(None, top.where, top.ident)
        return top

    def close(self) -> None:
        """Close every descriptor of the chain."""
        for folder in self.dirs:
            folder.close()


class Walker:
    """Resolves an absolute path component by component into a :class:`Chain`."""

    def __init__(self, path: Path) -> None:
        self.chain = Chain(Dir.root(path.anchor))
        self.pending: deque[str] = deque(path.parts[1:])
        self.hops = 0

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.chain.close()

    def to_last(self) -> str | None:
        """Walk every pending component but the last; return it (None: the walk ends on a folder)."""
        while self.pending:
            name = self.pending.popleft()
            if name in ("", "."):
                continue
            if name == "..":
                self.chain.up()
                continue
            if not self.pending:
                return name
            if self.chain.missing:
                self.chain.missing.append(name)
                continue
            try:
                self.chain.dirs.append(self.chain.top.child(name))
            except Symlink as link:
                self.follow(link.target)
            except Changed:
                self.spend()
                self.pending.appendleft(name)
            except FileNotFoundError:
                self.chain.missing.append(name)
        return None

    def spend(self) -> None:
        """Count a symlink hop or retry; too many means a loop (or a relentless swapper).

        Raises:
            OSError: ``ELOOP``.
        """
        self.hops += 1
        if self.hops > MAX_SYMLINKS:
            raise OSError(
                errno.ELOOP, "Too many levels of symbolic links (or the path kept changing)"
            )

    def follow(self, target: str) -> None:
        """Continue the walk through a symlink's ``target``."""
        self.spend()
        link = PurePath(target)
        if link.is_absolute():
            self.chain.restart(Dir.root(link.anchor))
            parts = link.parts[1:]
        else:
            parts = link.parts
        self.pending.extendleft(reversed(parts))

    def last_stat(self, name: str) -> os.stat_result | None:
        """``name``'s own metadata in the chain's folder, following it if it is a symlink.

        Returns None when ``name`` is a symlink (the walk then continues through its target,
        call :meth:`to_last` again) and raises FileNotFoundError when nothing is there.
        """
        st = self.chain.top.lstat(name)
        if stat.S_ISLNK(st.st_mode):
            target = self.chain.top.readlink(name)
            if target is None:
                self.spend()
                self.pending.append(name)
            else:
                self.follow(target)
            return None
        return st


def open_verified(folder: Dir, name: str, flags: int, expected: os.stat_result) -> int:
    """Open ``name`` in ``folder`` and check it is the object ``expected`` described.

    Raises:
        Changed: It was swapped between the check and the open (or became a symlink).
    """
    try:
        fd = folder.open(name, flags)
    except OSError as exc:
        if exc.errno in _LINK_ERRNOS or exc.errno == errno.ENOENT:
            raise Changed from None
        raise
    st = os.fstat(fd)
    if identity(st) != identity(expected) or stat.S_IFMT(st.st_mode) != stat.S_IFMT(
        expected.st_mode
    ):
        os.close(fd)
        raise Changed
    return fd


def write_atomic(folder: Dir, name: str, data: bytes, *, mode: int | None) -> os.stat_result:
    """Replace ``name`` in ``folder`` by ``data`` atomically; return the new file's metadata.

    The temporary file is created by descriptor in ``folder`` (``O_EXCL | O_NOFOLLOW``),
    flushed, then renamed over ``name`` within the same folder descriptor, which is then
    fsynced. A new file is private to the user (``0o600``) unless ``mode`` says otherwise.
    """
    for _ in range(MAX_RETRIES):
        tmp = f".{name[:200]}.{secrets.token_hex(4)}.tmp"
        try:
            fd = folder.open(tmp, _CREATE_FLAGS, 0o600)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(errno.EEXIST, "no free temporary name", folder._join(name))
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if mode is not None and hasattr(os, "fchmod"):
                os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
            written = os.fstat(handle.fileno())
        os.replace(folder._at(tmp), folder._at(name), src_dir_fd=folder.fd, dst_dir_fd=folder.fd)
    except BaseException:
        try:
            os.unlink(folder._at(tmp), dir_fd=folder.fd)
        except OSError:
            pass
        raise
    folder.fsync()
    return written


def iter_tree(
    root: Dir, *, skip_dir: Callable[[Dir], bool] | None = None, max_depth: int = 64
) -> Iterator[tuple[str, Dir, os.DirEntry[str]]]:
    """Walk below ``root`` by descriptor: ``(relative path, folder, entry)`` for each non-folder.

    Folders are entered with ``O_NOFOLLOW`` relative to their parent, so a symlinked folder
    (or one swapped for a symlink mid-walk) is never entered; symlinks to folders are not
    yielded, other symlinks are (callers open entries with ``O_NOFOLLOW``). Entries come sorted
    by name, a folder's files before its sub-folders, like ``os.walk``. ``root`` must be
    :meth:`Dir.listable`; it is not closed.
    """
    yield from _walk_tree(root, "", skip_dir, max_depth)


def _walk_tree(
    folder: Dir, prefix: str, skip_dir: Callable[[Dir], bool] | None, depth: int
) -> Iterator[tuple[str, Dir, os.DirEntry[str]]]:
    try:
        entries = folder.scandir()
    except OSError:
        return
    subdirs: list[str] = []
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                subdirs.append(entry.name)
                continue
            if entry.is_symlink() and entry.is_dir():
                continue
        except OSError:
            continue
        yield prefix + entry.name, folder, entry
    if depth <= 0:
        return
    for name in subdirs:
        try:
            child = folder.child(name, listable=True)
        except (OSError, Symlink, Changed):
            continue
        try:
            if skip_dir is None or not skip_dir(child):
                yield from _walk_tree(child, f"{prefix}{name}/", skip_dir, depth - 1)
        finally:
            child.close()
