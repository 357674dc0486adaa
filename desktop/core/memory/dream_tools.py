"""Dream's phase-2 tools and its token budget: ``edit_file`` limited to the files Dream may
change that refuses whole-file rewrites of the memory files, ``write_file`` limited to skill
files, and a hook that stops the run once the budget is spent. Both tools resolve the path as
the file tools do and apply :func:`~desktop.core.memory.dream_scope.dream_refusal` to where it
leads (the same rule a stored proposal is held to). They work on whatever workspace the tool
context names (the real one, or the scratch copy a review run edits)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from desktop.core.engine.hooks import AgentHook, HookContext
from desktop.core.memory.dream_scope import MEMORY_FILES, SKILLS_FOLDER, dream_refusal
from desktop.core.providers.base import LLMResponse
from desktop.core.security.paths import PathDenied, resolve_tool_path
from desktop.core.tools.base import ToolContext, ToolResult
from desktop.core.tools.filesystem import EditFileTool, ReadFileTool, WriteFileTool
from desktop.core.tools.registry import ToolRegistry
from desktop.core.utils.validate import notify

__all__ = [
    "MEMORY_FILES",
    "BudgetExceeded",
    "BudgetHook",
    "SkillsWriteTool",
    "SurgicalEditTool",
    "phase2_tools",
    "read_text",
]


class BudgetExceeded(Exception):
    """Raised by :class:`BudgetHook` before a model call once the token budget is spent."""


class BudgetHook(AgentHook):
    """Sums the tokens of phase 2 and stops the run before the next call once over budget."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.used = 0

    async def before_iteration(self, ctx: HookContext) -> None:
        if self.used >= self.budget:
            raise BudgetExceeded

    async def on_stream_end(self, ctx: HookContext, response: LLMResponse) -> None:
        self.used += response.usage.prompt_tokens + response.usage.completion_tokens


def dream_target(path: str, ctx: ToolContext) -> tuple[Path, str]:
    """Where ``path`` leads (resolved as the file tools resolve it, symlinks included) and
    that place relative to the workspace (absolute when it is outside).

    Raises:
        PathDenied: The file tools refuse it.
    """
    target = resolve_tool_path(path, ctx, write=True)
    workspace = Path(os.path.realpath(Path(ctx.workspace).expanduser()))
    try:
        return target, target.relative_to(workspace).as_posix()
    except ValueError:
        return target, str(target)


def _refused(path: str, relative: str) -> ToolResult | None:
    reason = dream_refusal(relative)
    return None if reason is None else ToolResult.error(f"Error: {path} was not changed: {reason}")


class SkillsWriteTool(WriteFileTool):
    """``write_file`` that only writes skill files (``skills/<name>/…``)."""

    description = "Create or overwrite a skill file; only paths under skills/<name>/ are allowed."

    async def execute(
        self, ctx: ToolContext, *, path: str, content: str, **kwargs: Any
    ) -> ToolResult:
        """Refuse anything but a skill file Dream may change, else write as usual."""
        try:
            _target, relative = await asyncio.to_thread(dream_target, path, ctx)
        except PathDenied as exc:
            return ToolResult.error(f"Error: {exc}")
        if not relative.startswith(f"{SKILLS_FOLDER}/"):
            return ToolResult.error(
                f"Error: write_file may only create files under skills/ (e.g. "
                f"skills/<name>/SKILL.md); {path} was not written. Change memory files with "
                "edit_file."
            )
        refused = _refused(path, relative)
        if refused is not None:
            return refused
        return await super().execute(ctx, path=path, content=content, **kwargs)


class SurgicalEditTool(EditFileTool):
    """``edit_file`` for the files Dream may change, refusing to replace the whole of a
    multi-line memory file at once."""

    async def execute(self, ctx: ToolContext, **kwargs: Any) -> ToolResult:
        """Refuse files Dream may not change and whole-file replacements of MEMORY.md /
        SOUL.md / USER.md, else edit."""
        path, old = kwargs.get("path"), kwargs.get("old_text")
        if isinstance(path, str):
            try:
                target, relative = await asyncio.to_thread(dream_target, path, ctx)
            except PathDenied as exc:
                return ToolResult.error(f"Error: {exc}")
            refused = _refused(path, relative)
            if refused is not None:
                return refused
            if relative in MEMORY_FILES and isinstance(old, str):
                content = await asyncio.to_thread(read_text, target)
                lines = [line for line in content.splitlines() if line.strip()]
                if len(lines) > 3 and old.strip() == content.strip():
                    return ToolResult.error(
                        f"Error: this would rewrite all of {path}. Edit only the lines "
                        "concerned (replace, remove or add one line at a time)."
                    )
        return await super().execute(ctx, **kwargs)


def read_text(path: Path, root: Path | None = None) -> str:
    """The file's text (``""`` when missing or not UTF-8).

    With ``root`` (the workspace) no symlink below it is followed and only a regular file is
    read (``""`` otherwise, with a notice).
    """
    if root is not None:
        from desktop.core.utils.ownfiles import read_bytes

        try:
            data = read_bytes(path, root=root)
        except OSError as exc:
            notify(f"{exc}; it is ignored")
            return ""
        try:
            return data.decode("utf-8") if data is not None else ""
        except UnicodeDecodeError:
            return ""
    try:
        return path.read_text(encoding="utf-8")
    except (FileNotFoundError, UnicodeDecodeError):
        return ""


def phase2_tools() -> ToolRegistry:
    """``read_file``, the surgical ``edit_file`` and the skills-only ``write_file``."""
    registry = ToolRegistry()
    for tool in (ReadFileTool(), SurgicalEditTool(), SkillsWriteTool()):
        registry.register(tool)
    return registry
