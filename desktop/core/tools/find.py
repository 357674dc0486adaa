"""``find_files``: nanobot 0.3.5's file finder (by path terms, glob or type), beside ``glob``.

The arguments are 0.3.5's: ``path``, ``query`` (case-insensitive terms that must all occur
in the path), ``glob``, ``type`` (an extension: ``py``, ``md``), ``include_dirs``, ``sort``
(``path`` or ``modified``), ``head_limit`` (default 200, 0 for all) and ``offset``. The walk is
``glob``'s (:class:`~desktop.core.tools.search.FileWalk`: by descriptor, symlinked folders
never entered, noise folders skipped), in a worker thread. With ``include_dirs`` the folders
that hold files are listed too (an empty folder is not).
"""

from __future__ import annotations

import asyncio
import re
from pathlib import PurePosixPath
from typing import Any, ClassVar

from desktop.core.security.paths import display_path
from desktop.core.tools.base import Tool, ToolContext, ToolResult
from desktop.core.tools.search import MAX_WALK_FILES, FileWalk, _open_root, glob_regex

DEFAULT_LIMIT = 200
MAX_LIMIT = 1000


def _matches(
    relative: str, terms: list[str], pattern: re.Pattern[str] | None, suffix: str | None
) -> bool:
    if pattern is not None and not pattern.fullmatch(relative.rstrip("/")):
        return False
    if suffix is not None and (relative.endswith("/") or not relative.lower().endswith(suffix)):
        return False
    folded = relative.casefold()
    return all(term in folded for term in terms)


def _find(
    raw: str,
    ctx: ToolContext,
    *,
    terms: list[str],
    pattern: re.Pattern[str] | None,
    suffix: str | None,
    include_dirs: bool,
    newest_first: bool,
) -> tuple[list[str], bool] | ToolResult:
    """Matching paths (display form, folders ending in ``/``) and whether the walk was cut."""
    opened = _open_root(raw, ctx)
    if isinstance(opened, ToolResult):
        return opened
    if not opened.is_dir:
        with opened:
            shown = display_path(opened.path, ctx.workspace)
            name = opened.path.name
            if _matches(name, terms, pattern, suffix):
                return [shown], False
            return [], False
    root = opened.folder()
    found: dict[str, float] = {}
    try:
        walk = FileWalk(root)
        for relative, _, entry in walk:
            parents = [str(p) + "/" for p in PurePosixPath(relative).parents][:-1]
            for candidate in [relative, *(parents if include_dirs else [])]:
                if candidate in found or not _matches(candidate, terms, pattern, suffix):
                    continue
                moment = 0.0
                if newest_first and not candidate.endswith("/"):
                    try:
                        moment = entry.stat(follow_symlinks=False).st_mtime
                    except OSError:
                        continue
                found[candidate] = moment
    finally:
        root.close()
    order = sorted(found, key=lambda rel: (-found[rel], rel) if newest_first else rel)
    listed = [
        display_path(root.path / rel.rstrip("/"), ctx.workspace)
        + ("/" if rel.endswith("/") else "")
        for rel in order
    ]
    return listed, walk.truncated


class FindFilesTool(Tool):
    """Find files by path terms, glob or type (nanobot 0.3.5's ``find_files``)."""

    name = "find_files"
    description = "Find paths by name terms, glob or file type; skips dependency folders."
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "query": {"type": "string", "description": "Terms that must all be in the path"},
            "glob": {"type": "string"},
            "type": {"type": "string", "description": "Extension, e.g. py"},
            "include_dirs": {"type": "boolean"},
            "sort": {"type": "string", "enum": ["path", "modified"]},
            "head_limit": {"type": "integer", "minimum": 0, "maximum": MAX_LIMIT},
            "offset": {"type": "integer", "minimum": 0},
        },
    }
    read_only = True
    group = "files"

    async def execute(
        self,
        ctx: ToolContext,
        *,
        path: str = ".",
        query: str = "",
        glob: str = "",
        type: str = "",
        include_dirs: bool = False,
        sort: str = "path",
        head_limit: int = DEFAULT_LIMIT,
        offset: int = 0,
        **_: Any,
    ) -> ToolResult:
        """The matching paths, sorted by path (or newest first), one page of them."""
        try:
            pattern = glob_regex(glob) if glob.strip() else None
        except ValueError as exc:
            return ToolResult.error(f"Error: glob: {exc}")
        suffix = "." + type.strip().lstrip(".").lower() if type.strip() else None
        found = await asyncio.to_thread(
            _find,
            path or ".",
            ctx,
            terms=query.casefold().split(),
            pattern=pattern,
            suffix=suffix,
            include_dirs=include_dirs,
            newest_first=sort == "modified",
        )
        if isinstance(found, ToolResult):
            return found
        paths, truncated = found
        limit = head_limit or MAX_LIMIT
        page = paths[offset : offset + limit]
        if not page:
            return ToolResult("No files found" + (f" past offset {offset}" if offset else ""))
        notes = []
        if offset + len(page) < len(paths):
            notes.append(
                f"(showing {offset + 1}-{offset + len(page)} of {len(paths)}; "
                f"use offset={offset + len(page)} for more)"
            )
        if truncated:
            notes.append(f"(search stopped after {MAX_WALK_FILES} files; narrow the path)")
        return ToolResult("\n".join([*page, *notes]))
