"""Search tools: ``glob`` (files by name, newest first) and ``grep`` (contents by regex).

Both walk the tree without following symlinked folders and skip noise folders (``.git``,
``node_modules``, ``__pycache__``, virtual environments…). The walks run in a worker thread.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop.core.security.paths import PathDenied, display_path, open_regular, resolve_tool_path
from desktop.core.tools.base import Tool, ToolContext, ToolResult

NOISE_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "__pycache__",
        ".venv",
        "venv",
        "env",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
    }
)
MAX_WALK_FILES = 100_000
MAX_GLOB_RESULTS = 200
MAX_GREP_FILE_BYTES = 20 * 1024 * 1024
MAX_GREP_LINE_CHARS = 300
SNIFF_BYTES = 8192
_TEXT_CONTROLS = frozenset(b"\t\n\r\f\b\x1b")


def looks_binary(sample: bytes) -> bool:
    """Whether the first bytes of a file look like binary data rather than text."""
    if b"\x00" in sample:
        return True
    try:
        sample.decode("utf-8")
        return False
    except UnicodeDecodeError as exc:
        if exc.start >= len(sample) - 3:  # a character cut at the end of the sample
            return False
    controls = sum(1 for b in sample if (b < 0x20 and b not in _TEXT_CONTROLS) or b == 0x7F)
    return controls > len(sample) * 0.1


def is_noise_dir(path: Path) -> bool:
    """Whether a folder is tooling noise (VCS data, caches, dependencies, virtualenvs)."""
    return path.name in NOISE_DIRS or (path / "pyvenv.cfg").is_file()


@dataclass
class FileWalk:
    """Files below ``root`` in sorted order, noise folders skipped, at most ``limit`` of them.

    Symlinked folders are not entered. After iterating, ``truncated`` says whether the limit
    stopped the walk.
    """

    root: Path
    limit: int = MAX_WALK_FILES
    truncated: bool = field(default=False, init=False)

    def __iter__(self) -> Iterator[Path]:
        """Yield file paths, pruning noise folders in place."""
        seen = 0
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames[:] = sorted(d for d in dirnames if not is_noise_dir(Path(dirpath, d)))
            for name in sorted(filenames):
                if seen >= self.limit:
                    self.truncated = True
                    return
                seen += 1
                yield Path(dirpath, name)


def _expand_braces(pattern: str) -> list[str]:
    """``*.{ts,tsx}`` → ``["*.ts", "*.tsx"]`` (groups may repeat; no nesting)."""
    match = re.search(r"\{([^{}]*)\}", pattern)
    if not match:
        return [pattern]
    head, tail = pattern[: match.start()], pattern[match.end() :]
    return [x for alt in match.group(1).split(",") for x in _expand_braces(head + alt + tail)]


def _translate(pattern: str) -> str:
    """One brace-free glob to a regex: ``**`` crosses folders, ``*`` and ``?`` do not."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and "]" in pattern[i + 2 :]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1 : end].replace("\\", "\\\\")
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out)


def glob_regex(pattern: str) -> re.Pattern[str]:
    """Compile a glob matched against ``/``-separated paths relative to the search folder.

    A pattern without ``/`` matches file names at any depth (as in ``.gitignore``).

    Raises:
        ValueError: The pattern is absolute or climbs out with ``..``.
    """
    pattern = pattern.strip().replace("\\", "/")
    while pattern.startswith("./"):
        pattern = pattern[2:]
    if not pattern or pattern.startswith("/") or ".." in pattern.split("/"):
        raise ValueError("the pattern must be relative, without '..' (put the folder in path)")
    if "/" not in pattern:
        pattern = "**/" + pattern
    alternatives = "|".join(_translate(p) for p in _expand_braces(pattern))
    return re.compile(f"(?:{alternatives})", re.IGNORECASE if os.name == "nt" else 0)


def _relative(path: Path, root: Path) -> str:
    """``path`` below ``root`` as a ``/``-separated string (what globs match)."""
    return path.relative_to(root).as_posix()


def _resolve_folder(raw: str, ctx: ToolContext) -> Path | ToolResult:
    """The search root for ``raw``, or an error result."""
    try:
        root = resolve_tool_path(raw, ctx, write=False)
    except PathDenied as exc:
        return ToolResult.error(f"Error: {exc}")
    if not root.exists():
        return ToolResult.error(f"Error: path not found: {raw}")
    return root


class GlobTool(Tool):
    """Find files by glob pattern, newest first."""

    name = "glob"
    description = "Find files by glob ('**/*.py'; no '/' matches names at any depth), newest first."
    parameters = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string"},
            "path": {"type": "string", "description": "Folder (default workspace)"},
        },
        "required": ["pattern"],
    }
    read_only = True

    async def execute(
        self, ctx: ToolContext, *, pattern: str, path: str = ".", **_: Any
    ) -> ToolResult:
        """List files under ``path`` whose relative path matches ``pattern``."""
        try:
            regex = glob_regex(pattern)
        except ValueError as exc:
            return ToolResult.error(f"Error: {exc}")
        root = _resolve_folder(path, ctx)
        if isinstance(root, ToolResult):
            return root
        if not root.is_dir():
            return ToolResult.error(f"Error: {path} is not a directory")
        return await asyncio.to_thread(self._glob, root, regex, pattern, ctx.workspace)

    @staticmethod
    def _glob(root: Path, regex: re.Pattern[str], pattern: str, workspace: Path) -> ToolResult:
        """glob's blocking part: walk, match, sort newest first, cap."""
        walk = FileWalk(root)
        found: list[tuple[float, Path]] = []
        for file in walk:
            if regex.fullmatch(_relative(file, root)):
                try:
                    found.append((-os.lstat(file).st_mtime, file))
                except OSError:
                    continue
        if not found:
            return ToolResult(f"No files match '{pattern}' under {display_path(root, workspace)}.")
        found.sort()
        lines = [display_path(file, workspace) for _, file in found[:MAX_GLOB_RESULTS]]
        if len(found) > MAX_GLOB_RESULTS:
            lines.append(f"({len(found) - MAX_GLOB_RESULTS} more not shown; narrow the pattern)")
        if walk.truncated:
            lines.append(f"(search stopped after {MAX_WALK_FILES} files; narrow the path)")
        return ToolResult("\n".join(lines))


@dataclass
class _GrepQuery:
    """One grep call's settings and running output."""

    regex: re.Pattern[str]
    mode: str
    context: int
    max_results: int
    workspace: Path
    out: list[str] = field(default_factory=list)
    results: int = 0
    total_matches: int = 0
    skipped_large: int = 0

    @property
    def full(self) -> bool:
        """Whether ``max_results`` has been reached."""
        return self.results >= self.max_results


def _read_lines(file: Path, query: _GrepQuery) -> list[str] | None:
    """A text file's lines (split on ``\\n`` like read_file), or None for binaries and devices."""
    try:
        with open_regular(file) as handle:
            if os.fstat(handle.fileno()).st_size > MAX_GREP_FILE_BYTES:
                query.skipped_large += 1
                return None
            data = handle.read()
    except (OSError, PathDenied):
        return None
    if looks_binary(data[:SNIFF_BYTES]):
        return None
    lines = data.decode("utf-8", "replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def _clip(text: str) -> str:
    """A line shortened for display."""
    return text if len(text) <= MAX_GREP_LINE_CHARS else text[:MAX_GREP_LINE_CHARS] + "…"


def _grep_content(shown: str, lines: list[str], hits: list[int], query: _GrepQuery) -> None:
    """Append ``file:N: text`` for hits, ``file-N- text`` for context, ``--`` between groups."""
    last_printed = -1
    for hit in hits:
        if query.full:
            return
        start = max(hit - query.context, last_printed + 1)
        if query.context and query.out and (last_printed < 0 or start > last_printed + 1):
            query.out.append("--")
        for index in range(start, min(hit + query.context, len(lines) - 1) + 1):
            sep = ":" if index == hit or query.regex.search(lines[index]) else "-"
            query.out.append(f"{shown}{sep}{index + 1}{sep} {_clip(lines[index])}")
            last_printed = index
        query.results += 1


def _grep_file(file: Path, query: _GrepQuery) -> None:
    """Search one file and append its results in the query's mode."""
    lines = _read_lines(file, query)
    if lines is None:
        return
    hits = [i for i, line in enumerate(lines) if query.regex.search(line)]
    if not hits:
        return
    shown = display_path(file, query.workspace)
    query.total_matches += len(hits)
    if query.mode == "content":
        _grep_content(shown, lines, hits, query)
        return
    query.out.append(shown if query.mode == "files_with_matches" else f"{shown}: {len(hits)}")
    query.results += 1


class GrepTool(Tool):
    """Search file contents with a regular expression."""

    name = "grep"
    description = "Search file contents by Python regex; skips binaries and noise folders."
    parameters = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "Python regex"},
            "path": {"type": "string"},
            "glob": {"type": "string", "description": "File filter, e.g. '*.py'"},
            "output_mode": {"type": "string", "enum": ["files_with_matches", "content", "count"]},
            "context": {"type": "integer", "minimum": 0, "maximum": 20},
            "case_insensitive": {"type": "boolean"},
            "max_results": {"type": "integer", "minimum": 1},
        },
        "required": ["pattern"],
    }
    read_only = True

    async def execute(
        self,
        ctx: ToolContext,
        *,
        pattern: str,
        path: str = ".",
        glob: str | None = None,
        output_mode: str = "files_with_matches",
        context: int = 0,
        case_insensitive: bool = False,
        max_results: int = 100,
        **_: Any,
    ) -> ToolResult:
        """Search ``path`` for lines matching ``pattern`` and report them per ``output_mode``."""
        try:
            regex = re.compile(pattern, re.IGNORECASE if case_insensitive else 0)
        except re.error as exc:
            return ToolResult.error(f"Error: invalid regex {pattern!r}: {exc}")
        try:
            name_filter = glob_regex(glob) if glob else None
        except ValueError as exc:
            return ToolResult.error(f"Error: glob: {exc}")
        root = _resolve_folder(path, ctx)
        if isinstance(root, ToolResult):
            return root
        query = _GrepQuery(regex, output_mode, context, max_results, ctx.workspace)
        return await asyncio.to_thread(self._grep, root, name_filter, query)

    @staticmethod
    def _grep(root: Path, name_filter: re.Pattern[str] | None, query: _GrepQuery) -> ToolResult:
        """grep's blocking part: walk (or the single file) and search each file."""
        walk = None if root.is_file() else FileWalk(root)
        for file in walk if walk is not None else [root]:
            if query.full:
                break
            if walk is not None and _skip_in_walk(file, root, name_filter):
                continue
            _grep_file(file, query)
        return ToolResult(_grep_report(query, walk, display_path(root, query.workspace)))


def _skip_in_walk(file: Path, root: Path, name_filter: re.Pattern[str] | None) -> bool:
    """Symlinks are not followed (like ripgrep); the glob filter applies to walked files."""
    if file.is_symlink():
        return True
    return name_filter is not None and not name_filter.fullmatch(_relative(file, root))


def _grep_report(query: _GrepQuery, walk: FileWalk | None, shown_root: str) -> str:
    """The final text: results plus notes about limits that were hit."""
    if not query.out:
        return f"No matches for {query.regex.pattern!r} under {shown_root}."
    lines = list(query.out)
    if query.mode == "count":
        lines.append(f"Total: {query.total_matches} matching lines in {query.results} files")
    if query.full:
        lines.append(f"(reached max_results={query.max_results}; there may be more)")
    if query.skipped_large:
        limit_mb = MAX_GREP_FILE_BYTES // 2**20
        lines.append(f"({query.skipped_large} files over {limit_mb} MB skipped)")
    if walk is not None and walk.truncated:
        lines.append(f"(search stopped after {MAX_WALK_FILES} files; narrow the path)")
    return "\n".join(lines)
