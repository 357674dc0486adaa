"""Dream's phase-2 tools and its token budget: ``edit_file`` that refuses whole-file rewrites of
the memory files, ``write_file`` limited to ``skills/``, and a hook that stops the run once the
budget is spent. They work on whatever workspace the tool context names (the real one, or the
scratch copy a review run edits)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from desktop.core.agent.hooks import AgentHook, HookContext
from desktop.core.providers.base import LLMResponse
from desktop.core.security.paths import PathDenied, is_within, resolve_tool_path
from desktop.core.tools.base import ToolContext, ToolResult
from desktop.core.tools.filesystem import EditFileTool, ReadFileTool, WriteFileTool
from desktop.core.tools.registry import ToolRegistry
from desktop.core.utils.validate import notify

MEMORY_FILES = ("memory/MEMORY.md", "SOUL.md", "USER.md")


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


class SkillsWriteTool(WriteFileTool):
    """``write_file`` that only writes under ``<workspace>/skills/``."""

    description = "Create or overwrite a skill file; only paths under skills/ are allowed."

    async def execute(
        self, ctx: ToolContext, *, path: str, content: str, **kwargs: Any
    ) -> ToolResult:
        """Refuse any path outside the workspace's skills folder, else write as usual."""
        try:
            target = await asyncio.to_thread(resolve_tool_path, path, ctx, write=True)
        except PathDenied as exc:
            return ToolResult.error(f"Error: {exc}")
        root = Path(os.path.realpath(Path(ctx.workspace).expanduser() / "skills"))
        if target == root or not is_within(target, root):
            return ToolResult.error(
                f"Error: write_file may only create files under skills/ (e.g. "
                f"skills/<name>/SKILL.md); {path} was not written. Change memory files with "
                "edit_file."
            )
        return await super().execute(ctx, path=path, content=content, **kwargs)


class SurgicalEditTool(EditFileTool):
    """``edit_file`` that refuses to replace the whole of a multi-line memory file at once."""

    async def execute(self, ctx: ToolContext, **kwargs: Any) -> ToolResult:
        """Refuse whole-file replacements of MEMORY.md / SOUL.md / USER.md, else edit."""
        path, old = kwargs.get("path"), kwargs.get("old_text")
        if isinstance(path, str) and isinstance(old, str):
            try:
                target = await asyncio.to_thread(resolve_tool_path, path, ctx, write=True)
            except PathDenied as exc:
                return ToolResult.error(f"Error: {exc}")
            workspace = Path(os.path.realpath(Path(ctx.workspace).expanduser()))
            if target in {workspace / name for name in MEMORY_FILES}:
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
        from desktop.core.security.ownfiles import read_bytes

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
