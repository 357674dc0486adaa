"""Path guard for the file tools.

Every path a tool receives goes through :func:`resolve_tool_path`: ``~`` is expanded, relative
paths are taken from the workspace and symlinks are resolved, so the check runs on the file the
operating system would really touch. With ``restrict_to_workspace`` the result must lie inside
the (resolved) workspace; writes are refused for protected paths (the agent's own state:
sessions, memory history and cursors, ``cron/``, the memory repository, the config file and the
preferences beside it; see :func:`default_protected_paths`) and for anything inside a ``.git``
folder of the workspace, whatever the restrict mode or approval mode says.

:func:`open_regular` opens a file for reading only when it is a regular file, so devices such
as ``/dev/zero`` and FIFOs are refused without ever blocking on them.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    from desktop.core.tools.base import ToolContext

_CASE_INSENSITIVE_FS = sys.platform in ("darwin", "win32")
_READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)  # opening a FIFO must not wait for a writer
    | getattr(os, "O_NOFOLLOW", 0)  # the path is resolved: a symlink now means a swap
    | getattr(os, "O_BINARY", 0)
)


class PathDenied(Exception):
    """A tool asked for a path it may not use; the message says why (the model reads it)."""


# The agent's own state inside the workspace: conversations, the memory log and its cursors,
# Dream's state, the scheduler's jobs (and their lock), the memory repository, nanobot's state.
WORKSPACE_STATE = (
    "sessions",
    ".git",
    ".gitignore",
    ".nanobot",
    "cron",
    "cron.lock",
    "memory/history.jsonl",
    "memory/.cursor",
    "memory/.dream_cursor",
    "memory/.dream_state",
)
# The app's own files beside the config file (the config itself is added by path).
CONFIG_DIR_STATE = ("desktop.json", "desktop.lock", "logs", "sessions")
# Copies the app keeps beside a damaged file (``<name>.corrupt-<time>`` and older spellings).
_ASIDE_LABELS = ("corrupt-", "malformed-", "quarantine")


def default_protected_paths(workspace: Path, config_path: Path | None) -> tuple[Path, ...]:
    """Paths no tool may write: the agent's own state files, in both approval modes.

    Inside the workspace: ``sessions/``, the memory repository (``.git``, its ``.gitignore``),
    ``memory/history.jsonl`` and the cursor files, Dream's state, ``cron/`` (``jobs.json``,
    ``action.jsonl``) and its lock, nanobot's ``.nanobot/``. Beside the config file (the one in
    use, and always the default ``~/.nanobot`` one, which other processes may use): the config,
    ``desktop.json`` (preferences: approval mode, always-allowed tools), the instance lock,
    ``logs/`` and nanobot's ``sessions/``. Files set aside beside a protected file
    (``<name>.corrupt-…``) are covered by :func:`is_protected`.

    Args:
        workspace: The agent's workspace folder.
        config_path: The config file in use, if any.

    Returns:
        The protected files and folders (not resolved; the guard resolves them on each check).
    """
    from desktop.core.config.paths import default_config_path

    root = Path(workspace).expanduser()
    paths = [root / Path(name) for name in WORKSPACE_STATE]
    configs = [default_config_path()]
    if config_path is not None:
        configs.insert(0, Path(config_path).expanduser())
    for config in dict.fromkeys(configs):
        paths.append(config)
        paths.extend(config.parent / name for name in CONFIG_DIR_STATE)
    return tuple(dict.fromkeys(paths))


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


def resolve_tool_path(raw: str, ctx: ToolContext, *, write: bool) -> Path:
    """Turn a path from the model into a real, permitted path.

    The workspace's own protected paths (:func:`default_protected_paths` without the config)
    always apply to writes, so a context built without ``protected_paths`` still keeps
    sessions, memory history and ``.git`` safe; the config file needs ``ctx.protected_paths``.

    Args:
        raw: The path as the model wrote it (absolute, relative to the workspace, or ``~/...``).
        ctx: The call's context (workspace, restrict mode, protected paths).
        write: Whether the tool will create or change the file.

    Returns:
        The absolute path with every symlink resolved.

    Builtin skills (shipped with the app) stay readable under ``restrict_to_workspace`` so the
    model can load a skill listed in its prompt; they are never writable.

    Raises:
        PathDenied: The path is empty, leaves the workspace under ``restrict_to_workspace``,
            or is a protected or non-regular target of a write.
    """
    if not isinstance(raw, str) or not raw.strip():
        raise PathDenied("the path is empty")
    if "\x00" in raw:
        raise PathDenied("the path contains a NUL byte")
    workspace = _real(Path(ctx.workspace).expanduser())
    candidate = Path(os.path.expanduser(raw))
    if not candidate.is_absolute():
        candidate = workspace / candidate
    resolved = _real(candidate)
    if ctx.restrict_to_workspace and not (not write and _is_builtin_skill(resolved)):
        _require_inside(raw, resolved, workspace)
    if write:
        protected = (*default_protected_paths(ctx.workspace, None), *ctx.protected_paths)
        _require_writable(raw, resolved, workspace, protected)
    return resolved


def _is_builtin_skill(path: Path) -> bool:
    """Builtin skills ship with the app and stay readable when tools are restricted."""
    from desktop.core.resources import data_path

    return path.is_relative_to(_real(data_path("skills")))


def open_regular(path: Path) -> BinaryIO:
    """Open ``path`` for binary reading if, and only if, it is a regular file.

    Raises:
        FileNotFoundError: Nothing is there.
        IsADirectoryError: It is a folder.
        PathDenied: It is a device, FIFO, socket or similar (it is never opened, or closed at
            once if it was swapped in between the checks).
    """
    _require_regular(path, os.stat(path).st_mode)
    fd = os.open(path, _READ_FLAGS)
    try:
        _require_regular(path, os.fstat(fd).st_mode)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _real(path: Path) -> Path:
    """``path`` made absolute with every existing symlink (and ``..``) resolved."""
    return Path(os.path.realpath(path))


def _require_regular(path: Path, mode: int) -> None:
    """Raise unless ``mode`` (from stat) is a regular file's."""
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(f"{path} is a directory")
    if not stat.S_ISREG(mode):
        raise PathDenied(f"{path} is not a regular file (device, FIFO or socket); refusing it")


def _nearest_existing(path: Path) -> Path:
    """``path`` itself or its closest ancestor that exists (a dangling link counts)."""
    for candidate in (path, *path.parents):
        if os.path.lexists(candidate):
            return candidate
    return path


def _require_inside(raw: str, resolved: Path, workspace: Path) -> None:
    """Raise unless the path (and its nearest existing ancestor) is inside the workspace."""
    anchor = _real(_nearest_existing(resolved))
    if is_within(resolved, workspace) and is_within(anchor, workspace):
        return
    raise PathDenied(
        f"'{raw}' resolves to {resolved}, outside the workspace {workspace}; "
        "restrictToWorkspace only allows paths inside it"
    )


def _folded(path: Path) -> Path:
    """``path`` case-folded where the file system ignores case."""
    return Path(str(path).casefold()) if _CASE_INSENSITIVE_FS else path


def _require_writable(
    raw: str, resolved: Path, workspace: Path, protected: tuple[Path, ...]
) -> None:
    """Raise for protected paths, git internals, folders and special files."""
    for item in protected:
        if is_protected(resolved, item):
            raise PathDenied(f"'{raw}' is protected ({item}); tools may not write it")
    if is_within(resolved, workspace):
        parts = _folded(resolved).relative_to(_folded(workspace)).parts
        if any(part.casefold() == ".git" for part in parts):
            raise PathDenied(f"'{raw}' is inside a .git folder; tools may not write git internals")
    if os.path.isdir(resolved):
        raise PathDenied(f"'{raw}' is a directory, not a file")
    if os.path.exists(resolved) and not os.path.isfile(resolved):
        raise PathDenied(f"'{raw}' is not a regular file (device, FIFO or socket); refusing it")
