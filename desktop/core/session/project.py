"""A chat's project folder and access mode (``workspace_scope`` in the session's metadata).

A chat may work in a project folder: relative paths of the file tools, the shell's working
directory and the project's ``AGENTS.md`` come from it, while SOUL.md, USER.md, memory and
skills stay the agent workspace's. Its access mode is ``restricted`` (file and shell work stay
inside the project, or the workspace when there is none) or ``full``; a chat never gets more
than Settings allows: with ``tools.restrictToWorkspace`` on, every chat is restricted.

Stored as nanobot 0.3.5 stores a WebUI chat's scope, so a chat keeps it across both apps:
``metadata["workspace_scope"] = {"project_path": "<absolute folder>", "access_mode":
"restricted" | "full"}``. A chat without a project stores the workspace as its folder (as
0.3.5 does); a chat without a mode of its own follows Settings (restricted when
``restrictToWorkspace`` is on, else full). A folder that is gone or unusable falls back to the
workspace (the chat keeps its mode), never to an error: the stored value stays as it was.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from desktop.core.utils.i18n import QT_TR_NOOP, Phrase

if TYPE_CHECKING:
    from desktop.core.session.manager import SessionManager

AccessMode = Literal["restricted", "full"]
WORKSPACE_SCOPE = "workspace_scope"  # nanobot 0.3.5's key (security/workspace_access.py)
ACCESS_MODES: tuple[AccessMode, ...] = ("restricted", "full")
_MODE_SPELLINGS: dict[str, AccessMode] = {
    "restricted": "restricted",
    "restrict": "restricted",
    "full": "full",
    "full-access": "full",
}


class ProjectError(ValueError):
    """A folder that cannot be a chat's project (not absolute, not a folder)."""


@dataclass(frozen=True)
class ChatProject:
    """What a chat asked for.

    Attributes:
        folder: Its project folder, absolute (``None``: the agent workspace).
        mode: Its own access mode (``None``: it follows Settings).
    """

    folder: Path | None = None
    mode: AccessMode | None = None


@dataclass(frozen=True)
class ChatScope:
    """Where one turn of a chat works, within what Settings allows.

    Attributes:
        root: The folder relative paths start from and commands run in (the project, else
            the workspace).
        project: The project folder (``None``: none; ``root`` is the workspace).
        mode: The access mode in force (``restricted`` whenever Settings restricts).
        full_allowed: Whether Settings lets a chat have full access.
        chosen: The chat's own mode (``None``: it follows Settings).
    """

    root: Path
    project: Path | None
    mode: AccessMode
    full_allowed: bool
    chosen: AccessMode | None = None

    @property
    def restricted(self) -> bool:
        """Whether file and shell work must stay inside :attr:`root`."""
        return self.mode == "restricted"


def _mode(raw: object) -> AccessMode | None:
    if not isinstance(raw, str):
        return None
    return _MODE_SPELLINGS.get(raw.strip().lower().replace("_", "-"))


def _same(a: Path, b: Path) -> bool:
    return os.path.realpath(a) == os.path.realpath(Path(b).expanduser())


def read_project(metadata: dict[str, Any] | None, workspace: Path) -> ChatProject:
    """The chat's project and mode from its session ``metadata`` (looks at the file system:
    call it in a worker thread). Anything unusable reads as "none"."""
    raw = (metadata or {}).get(WORKSPACE_SCOPE)
    if not isinstance(raw, dict):
        return ChatProject()
    mode = _mode(raw.get("access_mode"))
    path = raw.get("project_path") or raw.get("path")
    folder: Path | None = None
    if isinstance(path, str) and "\0" not in path:
        candidate = Path(path).expanduser()
        if candidate.is_absolute() and candidate.is_dir() and not _same(candidate, workspace):
            folder = Path(os.path.realpath(candidate))
    return ChatProject(folder, mode)


def chat_scope(
    metadata: dict[str, Any] | None, workspace: Path, settings_restrict: bool
) -> ChatScope:
    """The scope a turn of the chat runs in (blocking: see :func:`read_project`).

    Args:
        metadata: The session's metadata.
        workspace: The agent workspace.
        settings_restrict: ``tools.restrictToWorkspace`` (on: no chat gets full access).
    """
    project = read_project(metadata, workspace)
    default: AccessMode = "restricted" if settings_restrict else "full"
    mode: AccessMode = "restricted" if settings_restrict else (project.mode or default)
    root = project.folder or Path(workspace).expanduser()  # as given, as before projects
    return ChatScope(
        root, project.folder, mode, full_allowed=not settings_restrict, chosen=project.mode
    )


def validate_folder(folder: str | Path) -> Path:
    """``folder`` as a project folder (absolute, real, existing; blocking).

    Raises:
        ProjectError: It is relative, missing or not a folder.
    """
    text = str(folder)
    if not text.strip() or "\0" in text:
        raise ProjectError(Phrase(QT_TR_NOOP("The project folder is empty or not a valid path.")))
    path = Path(text).expanduser()
    if not path.is_absolute():
        raise ProjectError(
            Phrase(QT_TR_NOOP("The project folder must be an absolute path: {path}"), path=text)
        )
    if not path.is_dir():
        raise ProjectError(
            Phrase(
                QT_TR_NOOP("The project folder does not exist or is not a folder: {path}"),
                path=text,
            )
        )
    return Path(os.path.realpath(path))


def scope_metadata(project: ChatProject, workspace: Path) -> dict[str, str] | None:
    """The ``workspace_scope`` value for ``project`` (``None``: nothing to store)."""
    if project.folder is None and project.mode is None:
        return None
    folder = project.folder or Path(os.path.realpath(Path(workspace).expanduser()))
    value = {"project_path": str(folder)}
    if project.mode is not None:
        value["access_mode"] = project.mode
    return value


def set_project(
    sessions: SessionManager, key: str, project: ChatProject, workspace: Path
) -> ChatProject:
    """Store chat ``key``'s project and mode and save the session (atomically, through the
    session manager). Blocking file I/O: call it in a worker thread, under the session lock.

    Returns:
        What was stored (the folder made real).

    Raises:
        ProjectError: The folder is not usable (nothing is changed).
    """
    folder = validate_folder(project.folder) if project.folder is not None else None
    if folder is not None and _same(folder, workspace):
        folder = None  # the workspace is "no project"
    stored = ChatProject(folder, project.mode)
    value = scope_metadata(stored, workspace)
    session = sessions.get_or_create(key)
    if session.metadata.get(WORKSPACE_SCOPE) == value:
        return stored
    if value is None:
        session.metadata.pop(WORKSPACE_SCOPE, None)
    else:
        session.metadata[WORKSPACE_SCOPE] = value
    sessions.save(session)
    return stored
