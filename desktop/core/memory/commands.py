"""Memory slash commands: ``/dream``, ``/dream-log [sha]``, ``/dream-restore [sha]``,
``/dream-prompt [init]``.

:func:`handle_memory_command` answers them with plain text; the agent loop delegates commands
it does not know to it (``AgentLoop.extra_commands``). Git work runs in worker threads.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from desktop.core.memory.git_store import CommitInfo, GitStore, GitStoreError, RevertConflict
from desktop.core.memory.prompt_overrides import (
    FOLDER,
    default_dream_instructions,
    init_override,
    load_override,
)

NAMES = ("dream", "dream-log", "dream-restore", "dream-prompt")
RESTORE_LIST = 10


def _line(info: CommitInfo) -> str:
    return f"{info.short_sha}  {info.time.astimezone():%Y-%m-%d %H:%M}  {info.subject}"


async def _show(git: GitStore, sha: str) -> str:
    info = await asyncio.to_thread(git.info, sha)
    diffs = await asyncio.to_thread(git.show, info.sha)
    head = _line(info)
    if info.body:
        head += "\n\n" + info.body
    patches = "\n".join(d.patch.rstrip("\n") for d in diffs) or "(no file changes)"
    return f"{head}\n\n{patches}"


async def _dream(dream_factory: Callable[[], Any]) -> str:
    result = await dream_factory().run()
    return result.message or f"Dream finished: {result.status}."


async def _log(git: GitStore, sha: str) -> str:
    if sha:
        return await _show(git, sha)
    latest = await asyncio.to_thread(git.log, "dream:", 1)
    if not latest:
        return "No Dream commits yet."
    return await _show(git, latest[0].sha)


async def _restore(git: GitStore, sha: str) -> str:
    if not sha:
        commits = await asyncio.to_thread(git.log, "dream:", RESTORE_LIST)
        if not commits:
            return "No Dream commits yet."
        lines = [f"The last {len(commits)} Dream commit(s), newest first:"]
        lines += [f"  {_line(c)}" for c in commits]
        lines.append("Undo one with /dream-restore <sha> (later changes are kept).")
        return "\n".join(lines)
    try:
        target = await asyncio.to_thread(git.info, sha)
        new = await asyncio.to_thread(git.revert, target.sha)
    except RevertConflict as exc:
        files = ", ".join(exc.files)
        return f"Could not undo {sha}: {exc.message}" + (f" (files: {files})" if files else "")
    return (
        f"Undid {target.short_sha} ({target.subject}) with commit {new[:7]}; "
        "changes made after it were kept."
    )


async def _prompt(git: GitStore, argument: str) -> str:
    workspace = git.workspace
    shown = f"{FOLDER}/dream.md"
    if argument == "init":
        made = await asyncio.to_thread(
            lambda: init_override(workspace, "dream", default_dream_instructions())
        )
        if made:
            return (
                f"Created {shown} with Dream's defaults written out. Edit it to change what "
                "Dream keeps and how it arranges the memory files; the next run follows it."
            )
        return f"{shown} already has instructions; edit it, or delete or empty it for the defaults."
    if argument:
        return "Usage: /dream-prompt [init]"
    custom = await asyncio.to_thread(load_override, workspace, "dream")
    if custom is None:
        return (
            f"Dream uses its default instructions for this workspace. /dream-prompt init creates "
            f"{shown} for you to edit."
        )
    return f"Dream follows this workspace's own instructions in {shown}:\n\n{custom}"


async def handle_memory_command(
    name: str, argument: str, *, dream_factory: Callable[[], Any], git: GitStore
) -> str | None:
    """The reply to a memory command, or ``None`` when ``name`` is not one.

    Args:
        name: The command, with or without its leading slash (``/dream-log``).
        argument: The rest of the line (a commit id or nothing).
        dream_factory: Returns a fresh :class:`~desktop.core.memory.dream.Dream`.
        git: The workspace's memory timeline.
    """
    command = name.lower().lstrip("/")
    if command not in NAMES:
        return None
    sha = argument.strip().split()[0] if argument.strip() else ""
    try:
        if command == "dream":
            return await _dream(dream_factory)
        if command == "dream-log":
            return await _log(git, sha)
        if command == "dream-prompt":
            return await _prompt(git, argument.strip().lower())
        return await _restore(git, sha)
    except GitStoreError as exc:
        return str(exc)
