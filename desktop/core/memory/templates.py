"""Seed a workspace with the shipped templates, never touching the user's own files.

As in nanobot 0.3.5, syncing the templates is also the moment the memory repository is created
(when the workspace has none), so its first commit holds the templates as shipped.
"""

from __future__ import annotations

import logging
from pathlib import Path

from desktop.core.memory.git_store import GitStore, GitStoreError
from desktop.core.utils import ownfiles
from desktop.core.utils.atomic import atomic_write_text
from desktop.core.utils.resources import data_path
from desktop.core.utils.validate import make_room_for_folder

log = logging.getLogger(__name__)

# Workspace files shipped under top-level ``templates/`` (``templates/agent/`` holds prompts,
# which stay in the package and are never copied).
WORKSPACE_TEMPLATES = (
    "AGENTS.md",
    "SOUL.md",
    "USER.md",
    "TOOLS.md",
    "HEARTBEAT.md",
    "memory/MEMORY.md",
    "prompts/README.md",
)


def sync_workspace_templates(workspace: Path) -> list[str]:
    """Copy missing workspace templates into ``workspace``; return what was created.

    Existing files are never overwritten, whatever their content (an empty file is the user's
    choice too); nothing is written through a link or into a linked folder (one a command left
    there counts as existing). ``memory/`` and an empty ``memory/history.jsonl`` are created when missing.
    Then the memory repository is created when there is none (its first commit holds the
    tracked files as they now are); a failure there is logged and left to the first memory
    operation, which repairs or reports it.

    Args:
        workspace: The workspace folder (created when missing).

    Returns:
        Workspace-relative POSIX paths of the files created, in creation order.
    """
    root = Path(workspace).expanduser()
    make_room_for_folder(root / "memory")  # a file standing there is moved aside, not lost
    (root / "memory").mkdir(parents=True, exist_ok=True)
    created: list[str] = []
    for name in WORKSPACE_TEMPLATES:
        target = root / name
        if ownfiles.entry_kind(target, root=root) != "missing":
            continue
        source = data_path("templates", name)
        try:
            text = source.read_text(encoding="utf-8")
        except OSError:
            log.warning("template %s is missing from this installation", source)
            continue
        try:
            atomic_write_text(target, text, root=root)  # new files are private to the user
        except OSError as exc:
            log.warning("template %s was not written: %s", target, exc)
            continue
        created.append(name)
    history = root / "memory" / "history.jsonl"
    if ownfiles.entry_kind(history, root=root) == "missing":
        ownfiles.append(history, b"", root=root)
        created.append("memory/history.jsonl")
    try:
        GitStore(root).init()
    except (GitStoreError, OSError) as exc:
        log.warning("could not create the memory repository in %s: %s", root, exc)
    return created
