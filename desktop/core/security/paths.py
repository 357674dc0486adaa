"""Path policy for the file tools: where a path leads and whether a tool may use it.

Every path a tool receives is resolved *and* opened in one go by :func:`open_tool_path`
(reads, listings, searches) or :func:`open_tool_write` (writes): ``~`` is expanded, relative
paths start at the workspace, and the walk of :mod:`desktop.core.utils.fsopen` follows
symlinks component by component from held directory descriptors, so the checks below run on
the very folders the file is then opened in, and cannot be raced by a symlink swap.

With ``restrict_to_workspace`` the path must lead inside the workspace (builtin skills stay
readable). Writes are refused for protected paths (the agent's own state: sessions, memory
history and cursors, Dream's state, proposal and pins, ``cron/``, the usage ledger, the memory
repository, the app's lock files, the config file and the app's state beside it;
:data:`WORKSPACE_STATE`, :data:`CONFIG_DIR_STATE`, :func:`default_protected_paths` plus
``ctx.protected_paths``) and for anything
inside a ``.git`` folder of the workspace, whatever the restrict mode or approval mode says. Protected paths are
compared by identity (``st_dev``, ``st_ino``) of the folders walked and of the target, plus by
name under their parent for the ones that do not exist yet. Devices, FIFOs and sockets are
refused without being opened.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Literal, Self

from desktop.core.security.protected import ASIDE_LABELS as _ASIDE_LABELS
from desktop.core.security.protected import CONFIG_DIR_STATE as CONFIG_DIR_STATE
from desktop.core.security.protected import WORKSPACE_STATE as WORKSPACE_STATE
from desktop.core.security.protected import default_protected_paths as default_protected_paths
from desktop.core.utils.fsopen import (
    LIST_FLAGS,
    READ_FLAGS,
    Chain,
    Changed,
    Dir,
    Identity,
    Walker,
    identity,
    open_verified,
    write_atomic,
)

if TYPE_CHECKING:
    from desktop.core.tools.base import ToolContext

_CASE_INSENSITIVE_FS = sys.platform in ("darwin", "win32")
Rows = list[tuple[Identity | None, str]]


class PathDenied(Exception):
    """A tool asked for a path it may not use; the message says why (the model reads it)."""


def is_protected(resolved: Path, item: Path) -> bool:
    """Whether the resolved write target ``resolved`` falls under the protected ``item``.

    ``item`` is compared resolved and as written (a link swapped in later is caught either
    way); a file set aside beside a protected file (``history.jsonl.corrupt-…``, a temporary
    ``.history.jsonl.…tmp``) counts as that file.
    """
    item = Path(item).expanduser()
    for root in (_real(item), Path(os.path.abspath(item))):
        if is_within(resolved, root):
            return True
        if _folded(resolved).parent == _folded(root).parent:
            name, base = _folded(resolved).name, _folded(root).name
            if name.startswith(tuple(f"{base}.{label}" for label in _ASIDE_LABELS)):
                return True
            if name.startswith(f".{base}.") and name.endswith(".tmp"):
                return True
    return False


def is_within(path: Path, root: Path) -> bool:
    """Whether ``path`` is ``root`` or below it (case-insensitively on macOS and Windows)."""
    return _folded(path).is_relative_to(_folded(root))


def display_path(path: Path, workspace: Path) -> str:
    """``path`` relative to the workspace when inside it (as tools accept it), else absolute."""
    try:
        return path.relative_to(_real(Path(workspace).expanduser())).as_posix()
    except ValueError:
        return str(path)


def _real(path: Path) -> Path:
    """``path`` made absolute with every existing symlink (and ``..``) resolved."""
    return Path(os.path.realpath(path))


def _folded(path: Path) -> Path:
    """``path`` case-folded where the file system ignores case."""
    return Path(str(path).casefold()) if _CASE_INSENSITIVE_FS else path


def _fold(name: str) -> str:
    """One name case-folded where the file system ignores case."""
    return name.casefold() if _CASE_INSENSITIVE_FS else name


# --- identities ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Anchor:
    """A place by identity: an existing folder or file, plus names below it that do not exist.

    Attributes:
        ident: ``(st_dev, st_ino)`` of the deepest existing part.
        rest: Names (folded) below it, empty when the whole path exists.
        label: The path as configured, for messages.
    """

    ident: Identity
    rest: tuple[str, ...]
    label: Path

    @classmethod
    def of(cls, path: Path, *, with_parent: bool = False) -> list[_Anchor]:
        """Anchors for ``path``; with ``with_parent`` an existing path is also named in its parent.

        The name form catches a write that replaces the entry even after the file there was
        swapped for another one.
        """
        real = _real(path)
        rest: list[str] = []
        for candidate in (real, *real.parents):
            try:
                st = os.stat(candidate)
            except OSError:
                rest.insert(0, _fold(candidate.name))
                continue
            anchors = [cls(identity(st), tuple(rest), path)]
            if with_parent and not rest and candidate.parent != candidate:
                try:
                    parent = identity(os.stat(candidate.parent))
                    anchors.append(cls(parent, (_fold(candidate.name),), path))
                except OSError:
                    pass
            return anchors
        return []

    def below(self, rows: Rows) -> int | None:
        """Where ``rows`` (root first) continue below this place, or None if they never reach it."""
        size = len(self.rest)
        for index, (ident, _) in enumerate(rows):
            if ident != self.ident or len(rows) < index + 1 + size:
                continue
            names = tuple(_fold(name) for _, name in rows[index + 1 : index + 1 + size])
            if names == self.rest:
                return index + 1 + size
        return None


class _Rules:
    """The checks one call applies to the walked chain."""

    def __init__(self, ctx: ToolContext, *, write: bool) -> None:
        workspace = Path(os.path.abspath(Path(ctx.workspace).expanduser()))
        self.write = write
        self.restrict = ctx.restrict_to_workspace
        self.workspace_real = _real(workspace)
        project = ctx.agent_workspace is not None
        self.area = "the chat's project folder" if project else "the workspace"
        self.why = (
            "the chat's access mode is Restricted"
            if project
            else "restrictToWorkspace only allows paths inside it"
        )
        self.workspace = _Anchor.of(workspace)
        self.inside = list(self.workspace)
        if self.restrict and not write:
            self.inside += _Anchor.of(_builtin_skills())
            if ctx.agent_workspace is not None:  # a project chat still reads the agent's skills
                self.inside += _Anchor.of(Path(ctx.agent_workspace).expanduser() / "skills")
        self.protected_paths: tuple[Path, ...] = ()
        self.protected: list[_Anchor] = []
        if write:
            own = Path(os.path.abspath(Path(ctx.own_workspace).expanduser()))
            items = (*default_protected_paths(own, None), *ctx.protected_paths)
            self.protected_paths = tuple(Path(item).expanduser() for item in items)
            for item in self.protected_paths:
                self.protected += _Anchor.of(item, with_parent=True)

    def check(self, raw: str, rows: Rows, path: Path) -> None:
        """Raise PathDenied unless the walked ``rows`` (leading to ``path``) are allowed."""
        if self.restrict and not any(a.below(rows) is not None for a in self.inside):
            raise PathDenied(
                f"'{raw}' resolves to {path}, outside {self.area} {self.workspace_real}; {self.why}"
            )
        if not self.write:
            return
        for anchor in self.protected:
            if anchor.below(rows) is not None:
                raise PathDenied(f"'{raw}' is protected ({anchor.label}); tools may not write it")
        for item in self.protected_paths:  # by name too (and copies set aside), a second net
            if is_protected(path, item):
                raise PathDenied(f"'{raw}' is protected ({item}); tools may not write it")
        for anchor in self.workspace:
            start = anchor.below(rows)
            if start is not None and any(_fold(name) == ".git" for _, name in rows[start:]):
                raise PathDenied(
                    f"'{raw}' is inside a .git folder; tools may not write git internals"
                )


def _builtin_skills() -> Path:
    """Builtin skills ship with the app and stay readable when tools are restricted."""
    from desktop.core.utils.resources import data_path

    return data_path("skills")


# --- walking ---------------------------------------------------------------------------------


def _absolute(raw: str, ctx: ToolContext) -> Path:
    """The model's path made absolute (``~`` expanded, relative to the workspace)."""
    if not isinstance(raw, str) or not raw.strip():
        raise PathDenied("the path is empty")
    if "\x00" in raw:
        raise PathDenied("the path contains a NUL byte")
    candidate = Path(os.path.expanduser(raw))
    if not candidate.is_absolute():
        candidate = Path(ctx.workspace).expanduser() / candidate
    return Path(os.path.abspath(candidate)) if not candidate.is_absolute() else candidate


def _top_stat(chain: Chain) -> os.stat_result:
    top = chain.top
    return os.fstat(top.fd) if top.fd is not None else os.stat(top.where)


def _locate(walker: Walker, raw: str, rules: _Rules) -> tuple[str | None, os.stat_result | None]:
    """Walk to the last component (following symlinks), check, return it and its stat.

    The name is None when the path ends on the folder at the chain's top (``.``, ``..``,
    ``/``); the stat is None when nothing is there.
    """
    while True:
        name = walker.to_last()
        chain = walker.chain
        st: os.stat_result | None = None
        if name is None:
            st = None if chain.missing else _top_stat(chain)
        elif not chain.missing:
            try:
                st = walker.last_stat(name)
            except FileNotFoundError:
                st = None
            else:
                if st is None:  # a symlink: the walk goes on through its target
                    continue
        last = (identity(st) if st is not None else None, name) if name else None
        rules.check(raw, chain.entries(last), chain.path(name))
        return name, st


def _require_kind(raw: str, path: Path, st: os.stat_result, want: str) -> None:
    """Raise unless ``st`` is a regular file or folder as ``want`` allows."""
    if stat.S_ISDIR(st.st_mode):
        if want == "file":
            raise IsADirectoryError(errno.EISDIR, "is a directory", str(path))
    elif not stat.S_ISREG(st.st_mode):
        raise PathDenied(f"{path} is not a regular file (device, FIFO or socket); refusing it")
    elif want == "dir":
        raise NotADirectoryError(errno.ENOTDIR, "not a directory", str(path))


# --- public API ------------------------------------------------------------------------------


class Opened:
    """A file or folder opened for reading, with its real path and metadata.

    Use it as a context manager; :meth:`file` and :meth:`folder` hand the descriptor over.
    """

    def __init__(self, fd: int | None, path: Path, st: os.stat_result) -> None:
        self.fd, self.path, self.stat = fd, path, st

    @property
    def is_dir(self) -> bool:
        return stat.S_ISDIR(self.stat.st_mode)

    def file(self) -> BinaryIO:
        """The file as a binary file object that owns the descriptor."""
        fd, self.fd = self.fd, None
        assert fd is not None
        return os.fdopen(fd, "rb")

    def folder(self) -> Dir:
        """The folder as a listable :class:`~desktop.core.utils.fsopen.Dir`."""
        fd, self.fd = self.fd, None
        return Dir(fd, str(self.path), identity(self.stat))

    def close(self) -> None:
        if self.fd is not None:
            fd, self.fd = self.fd, None
            os.close(fd)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def open_tool_path(
    raw: str, ctx: ToolContext, *, want: Literal["file", "dir", "any"] = "file"
) -> Opened:
    """Resolve and open a path from the model for reading, with no gap between check and open.

    Args:
        raw: The path as the model wrote it (absolute, relative to the workspace, or ``~/...``).
        ctx: The call's context (workspace, restrict mode).
        want: ``file`` (a regular file), ``dir`` (a folder) or ``any`` of the two.

    Raises:
        PathDenied: Empty, outside the workspace under ``restrict_to_workspace``, or a device,
            FIFO or socket (never opened).
        FileNotFoundError: Nothing is there.
        IsADirectoryError: A folder where a file was wanted.
        NotADirectoryError: A file where a folder was wanted.
        OSError: Anything else (permissions, a symlink loop).
    """
    rules = _Rules(ctx, write=False)
    with Walker(_absolute(raw, ctx)) as walker:
        while True:
            name, st = _locate(walker, raw, rules)
            chain, path = walker.chain, walker.chain.path(name)
            if st is None:
                raise FileNotFoundError(errno.ENOENT, "No such file or directory", str(path))
            _require_kind(raw, path, st, want)
            top = chain.top
            if top.fd is None:  # no dir_fd on this platform: open by path
                fd = None if stat.S_ISDIR(st.st_mode) else os.open(path, READ_FLAGS)
                return Opened(fd, path, st if fd is None else os.fstat(fd))
            if name is None:
                fd = os.open(".", LIST_FLAGS, dir_fd=top.fd)
                return Opened(fd, path, os.fstat(fd))
            flags = LIST_FLAGS if stat.S_ISDIR(st.st_mode) else READ_FLAGS
            try:
                fd = open_verified(top, name, flags, st)
            except Changed:  # swapped between the check and the open: walk it again
                walker.spend()
                walker.pending.append(name)
                continue
            return Opened(fd, path, os.fstat(fd))


class WriteTarget:
    """A checked place to write: the open parent folder and the file's name in it.

    Attributes:
        path: The real path of the file.
        existing: The metadata of the file there when checked, or None for a new file.
    """

    def __init__(self, folder: Dir, name: str, path: Path, existing: os.stat_result | None):
        self._folder, self._name = folder, name
        self.path, self.existing = path, existing

    def read(self, limit: int) -> bytes:
        """Up to ``limit`` bytes of the current file (``O_NOFOLLOW`` in the checked folder).

        Raises:
            FileNotFoundError: There is no file.
            PathDenied: It is no longer a regular file.
        """
        if self.existing is None:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", str(self.path))
        fd = self._folder.open(self._name, READ_FLAGS)
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise PathDenied(f"{self.path} is not a regular file; refusing it")
            return handle.read(limit)

    def write(self, data: bytes) -> os.stat_result:
        """Replace the file atomically (an existing file keeps its permission bits).

        Returns:
            The metadata of the file written.
        """
        mode = self.existing.st_mode & 0o777 if self.existing is not None else None
        return write_atomic(self._folder, self._name, data, mode=mode)

    def remove(self) -> None:
        """Remove the file in the checked folder (undoing the creation of a new file)."""
        self._folder.unlink(self._name)

    def close(self) -> None:
        self._folder.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def open_tool_write(raw: str, ctx: ToolContext, *, create_parents: bool = True) -> WriteTarget:
    """Resolve a path from the model for writing and hold its checked parent folder open.

    Missing parent folders are created one at a time, each only after the checks pass for the
    whole path, and the walk restarts after each so a swap cannot redirect the next one.

    Raises:
        PathDenied: Empty, outside the workspace under ``restrict_to_workspace``, protected,
            inside ``.git``, a folder, or a special file.
        FileNotFoundError: A parent folder is missing and ``create_parents`` is off.
        OSError: Anything else.
    """
    rules = _Rules(ctx, write=True)
    absolute = _absolute(raw, ctx)
    for _ in range(64):
        with Walker(absolute) as walker:
            name, st = _locate(walker, raw, rules)
            chain, path = walker.chain, walker.chain.path(name)
            if name is None or (st is not None and stat.S_ISDIR(st.st_mode)):
                raise PathDenied(f"'{raw}' is a directory, not a file")
            if st is not None and not stat.S_ISREG(st.st_mode):
                raise PathDenied(
                    f"'{raw}' is not a regular file (device, FIFO or socket); refusing it"
                )
            if chain.missing:
                if not create_parents:
                    raise FileNotFoundError(errno.ENOENT, "No such file or directory", str(path))
                chain.top.mkdir(chain.missing[0])
                continue
            return WriteTarget(chain.detach_top(), name, path, st)
    raise OSError(errno.ELOOP, "the path kept changing while its folders were created", raw)


def resolve_tool_path(raw: str, ctx: ToolContext, *, write: bool) -> Path:
    """Where a path from the model leads, checked as the tools check it, without opening it.

    For callers that need the real path only (the file itself is then opened through
    :func:`open_tool_path` / :func:`open_tool_write`, which check again).

    Args:
        raw: The path as the model wrote it.
        ctx: The call's context (workspace, restrict mode, protected paths).
        write: Whether the tool will create or change the file.

    Returns:
        The absolute path with every symlink resolved.

    Raises:
        PathDenied: As :func:`open_tool_write` (for ``write``) or :func:`open_tool_path`.
    """
    rules = _Rules(ctx, write=write)
    try:
        with Walker(_absolute(raw, ctx)) as walker:
            name, st = _locate(walker, raw, rules)
            path = walker.chain.path(name)
    except OSError as exc:
        raise PathDenied(f"'{raw}' cannot be resolved: {exc.strerror or exc}") from None
    if write and st is not None:
        if stat.S_ISDIR(st.st_mode) or name is None:
            raise PathDenied(f"'{raw}' is a directory, not a file")
        if not stat.S_ISREG(st.st_mode):
            raise PathDenied(f"'{raw}' is not a regular file (device, FIFO or socket); refusing it")
    return path
