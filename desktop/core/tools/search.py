"""Search tools: ``glob`` (files by name, newest first) and ``grep`` (contents by regex).

Both open their root through :func:`~desktop.core.security.paths.open_tool_path` and walk the
tree by descriptor, never entering symlinked folders (not even one swapped in mid-walk), and
skip noise folders (``.git``, ``node_modules``, ``__pycache__``, virtual environments…). The
walks run in a worker thread. grep's regex runs under a time limit and can be cancelled
(:class:`TimedRegex`); its output is framed as untrusted when a file the agent did not write
contributed to it.
"""

from __future__ import annotations

import asyncio
import os
import re
import stat
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, ClassVar

import regex

from desktop.core.security.paths import Opened, PathDenied, display_path, open_tool_path
from desktop.core.tools.base import Tool, ToolContext, ToolResult
from desktop.core.tools.untrusted import file_is_trusted, frame
from desktop.core.utils.fsopen import READ_FLAGS, Dir, iter_tree

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
GREP_BUDGET = 5.0  # seconds of regex matching per grep call
GREP_LINE_LIMIT = 0.25  # seconds one line may take (the regex module overshoots to ~0.5 s)
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


def is_noise_dir(folder: Dir) -> bool:
    """Whether a folder is tooling noise (VCS data, caches, dependencies, virtualenvs)."""
    if folder.name in NOISE_DIRS:
        return True
    try:
        return stat.S_ISREG(folder.lstat("pyvenv.cfg").st_mode)
    except OSError:
        return False


@dataclass
class FileWalk:
    """Files below an open folder in sorted order, noise folders skipped, at most ``limit``.

    The walk goes by descriptor (:func:`~desktop.core.utils.fsopen.iter_tree`): symlinked
    folders are never entered, not even one swapped in during the walk. After iterating,
    ``truncated`` says whether the limit stopped it.
    """

    root: Dir
    limit: int = MAX_WALK_FILES
    truncated: bool = field(default=False, init=False)

    def __iter__(self) -> Iterator[tuple[str, Dir, os.DirEntry[str]]]:
        """Yield ``(path relative to the root, its folder, its entry)``."""
        for seen, item in enumerate(iter_tree(self.root, skip_dir=is_noise_dir)):
            if seen >= self.limit:
                self.truncated = True
                return
            yield item


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


def _open_root(raw: str, ctx: ToolContext) -> Opened | ToolResult:
    """The search root (a folder, or a single file for grep), opened, or an error result."""
    try:
        return open_tool_path(raw, ctx, want="any")
    except PathDenied as exc:
        return ToolResult.error(f"Error: {exc}")
    except (FileNotFoundError, NotADirectoryError):
        return ToolResult.error(f"Error: path not found: {raw}")
    except OSError as exc:
        return ToolResult.error(f"Error: cannot open {raw}: {exc}")


class GlobTool(Tool):
    """Find files by glob pattern, newest first."""

    name = "glob"
    description = "Find files by glob ('**/*.py'; no '/' matches names at any depth), newest first."
    parameters: ClassVar[dict[str, Any]] = {
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
        return await asyncio.to_thread(self._glob, path, ctx, regex, pattern)

    @staticmethod
    def _glob(raw: str, ctx: ToolContext, regex: re.Pattern[str], pattern: str) -> ToolResult:
        """glob's blocking part: open the folder, walk it, match, sort newest first, cap."""
        opened = _open_root(raw, ctx)
        if isinstance(opened, ToolResult):
            return opened
        if not opened.is_dir:
            opened.close()
            return ToolResult.error(f"Error: {raw} is not a directory")
        root = opened.folder()
        try:
            walk = FileWalk(root)
            found: list[tuple[float, str]] = []
            for relative, _, entry in walk:
                if regex.fullmatch(relative):
                    try:
                        found.append((-entry.stat(follow_symlinks=False).st_mtime, relative))
                    except OSError:
                        continue
        finally:
            root.close()
        shown = display_path(root.path, ctx.workspace)
        if not found:
            return ToolResult(f"No files match '{pattern}' under {shown}.")
        found.sort()
        lines = [
            display_path(root.path / rel, ctx.workspace) for _, rel in found[:MAX_GLOB_RESULTS]
        ]
        if len(found) > MAX_GLOB_RESULTS:
            lines.append(f"({len(found) - MAX_GLOB_RESULTS} more not shown; narrow the pattern)")
        if walk.truncated:
            lines.append(f"(search stopped after {MAX_WALK_FILES} files; narrow the path)")
        return ToolResult("\n".join(lines))


# --- grep ------------------------------------------------------------------------------------


class GrepStopped(Exception):
    """The search ended early: too slow (the message says why) or cancelled."""


# Constructs that see the start or end of the searched string: a search of a whole file
# (lines joined, MULTILINE) can miss a per-line match of them, so the file prefilter is off.
_EDGE_SENSITIVE = regex.compile(r"\\[AZzG]|\(\?<?!|\(\?[a-zA-Z]*-")


class TimedRegex:
    """A compiled pattern whose every search is time-limited and that can be cancelled.

    Python's ``re`` cannot be interrupted, so a catastrophically backtracking pattern
    (``^(a|aa)+$``) would pin a thread for minutes. The ``regex`` module (the same syntax as
    ``re``) stops a search after ``timeout`` seconds and releases the GIL meanwhile. Every call
    gets at most ``line_limit`` seconds and the whole grep ``budget`` seconds of matching; the
    cancel event is checked before each call, so a cancelled grep stops within one line.

    A timeout costs the ``regex`` module a few microseconds per call, so a file is first
    searched as a whole (its lines joined, ``^``/``$`` per line): most files do not match and
    then cost one call. Where that could miss a per-line match (``\\A``, ``\\Z``, negative
    lookaround, flags turned off inline) or is slow, lines are searched one by one.
    """

    def __init__(self, pattern: regex.Pattern[str], *, budget: float, line_limit: float) -> None:
        self.pattern = pattern
        self.budget = budget
        self.line_limit = line_limit
        self.spent = 0.0
        self.cancel = threading.Event()
        self.whole: regex.Pattern[str] | None = None
        if not _EDGE_SENSITIVE.search(pattern.pattern):
            self.whole = regex.compile(pattern.pattern, pattern.flags | regex.MULTILINE)

    def hits(self, lines: list[str]) -> list[int]:
        """Indexes of the lines the pattern matches somewhere in.

        Raises:
            GrepStopped: Cancelled, over the budget, or one line took over ``line_limit``.
        """
        clock = time.perf_counter
        started = clock()
        deadline = started + self.budget - self.spent
        try:
            if self.whole is not None and lines:
                try:
                    joined = "\n".join(lines)
                    if self.whole.search(joined, timeout=self._limit(deadline)) is None:
                        return []
                except TimeoutError:
                    self.whole = None  # slow as a whole: search line by line from now on
            return self._each(lines, deadline)
        finally:
            self.spent += clock() - started

    def _limit(self, deadline: float) -> float:
        """Seconds the next search may take; raises once cancelled or over the budget."""
        left = deadline - time.perf_counter()
        if self.cancel.is_set():
            raise GrepStopped("cancelled")
        if left <= 0:
            raise GrepStopped(f"matching took over {self.budget:g}s in total")
        return min(left, self.line_limit)

    def _each(self, lines: list[str], deadline: float) -> list[int]:
        search, limit = self.pattern.search, self._limit
        found: list[int] = []
        for index, line in enumerate(lines):
            timeout = limit(deadline)
            try:
                if search(line, timeout=timeout) is not None:
                    found.append(index)
            except TimeoutError:
                if timeout < self.line_limit:
                    raise GrepStopped(f"matching took over {self.budget:g}s in total") from None
                raise GrepStopped(f"one line took over {self.line_limit:g}s to match") from None
        return found


@dataclass
class _GrepQuery:
    """One grep call's settings and running output."""

    regex: TimedRegex
    mode: str
    context: int
    max_results: int
    workspace: Path
    out: list[str] = field(default_factory=list)
    results: int = 0
    total_matches: int = 0
    skipped_large: int = 0
    untrusted: bool = False

    @property
    def full(self) -> bool:
        """Whether ``max_results`` has been reached."""
        return self.results >= self.max_results


def _read_lines(handle: BinaryIO, st: os.stat_result, query: _GrepQuery) -> list[str] | None:
    """A text file's lines (split on ``\\n`` like read_file), or None for binaries and devices."""
    if not stat.S_ISREG(st.st_mode):
        return None
    if st.st_size > MAX_GREP_FILE_BYTES:
        query.skipped_large += 1
        return None
    data = handle.read()
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
    hit_set = set(hits)
    for hit in hits:
        if query.full:
            return
        start = max(hit - query.context, last_printed + 1)
        if query.context and query.out and (last_printed < 0 or start > last_printed + 1):
            query.out.append("--")
        for index in range(start, min(hit + query.context, len(lines) - 1) + 1):
            sep = ":" if index in hit_set else "-"
            query.out.append(f"{shown}{sep}{index + 1}{sep} {_clip(lines[index])}")
            last_printed = index
        query.results += 1


def _grep_file(handle: BinaryIO, path: Path, query: _GrepQuery, ctx: ToolContext) -> None:
    """Search one opened file (closed here) and append its results in the query's mode."""
    with handle:
        st = os.fstat(handle.fileno())
        lines = _read_lines(handle, st, query)
    if lines is None:
        return
    hits = query.regex.hits(lines)
    if not hits:
        return
    shown = display_path(path, query.workspace)
    query.total_matches += len(hits)
    query.untrusted = query.untrusted or not file_is_trusted(path, st, ctx.own_workspace)
    if query.mode == "content":
        _grep_content(shown, lines, hits, query)
        return
    query.out.append(shown if query.mode == "files_with_matches" else f"{shown}: {len(hits)}")
    query.results += 1


class GrepTool(Tool):
    """Search file contents with a regular expression."""

    name = "grep"
    description = "Search file contents by Python regex; skips binaries and noise folders."
    parameters: ClassVar[dict[str, Any]] = {
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

    def __init__(self, *, budget: float = GREP_BUDGET, line_limit: float = GREP_LINE_LIMIT):
        """Create the tool.

        Args:
            budget: Seconds of regex matching one call may use in total.
            line_limit: Seconds one line may take to match.
        """
        self.budget = budget
        self.line_limit = line_limit

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
        """Search ``path`` for lines matching ``pattern`` and report them per ``output_mode``.

        The search runs in its own worker thread; when this call is cancelled (``/stop``) the
        worker is told to stop and ends within one line's time limit.
        """
        try:
            compiled = regex.compile(pattern, regex.IGNORECASE if case_insensitive else 0)
        except regex.error as exc:
            return ToolResult.error(f"Error: invalid regex {pattern!r}: {exc}")
        try:
            name_filter = glob_regex(glob) if glob else None
        except ValueError as exc:
            return ToolResult.error(f"Error: glob: {exc}")
        timed = TimedRegex(compiled, budget=self.budget, line_limit=self.line_limit)
        query = _GrepQuery(timed, output_mode, context, max_results, ctx.workspace)
        try:
            return await run_in_worker(self._grep, path, ctx, name_filter, query)
        finally:
            timed.cancel.set()

    @staticmethod
    def _grep(
        raw: str, ctx: ToolContext, name_filter: re.Pattern[str] | None, query: _GrepQuery
    ) -> ToolResult:
        """grep's blocking part: open the root, walk it (or the single file), search each file."""
        opened = _open_root(raw, ctx)
        if isinstance(opened, ToolResult):
            return opened
        shown_root = display_path(opened.path, query.workspace)
        walk: FileWalk | None = None
        try:
            if not opened.is_dir:
                _grep_file(opened.file(), opened.path, query, ctx)
            else:
                walk = FileWalk(opened.folder())
                try:
                    _grep_walk(walk, name_filter, query, ctx)
                finally:
                    walk.root.close()
        except GrepStopped as exc:
            return ToolResult.error(
                f"Error: grep stopped: {exc}. The pattern {query.regex.pattern.pattern!r} "
                "probably backtracks catastrophically (nested or overlapping repeats such as "
                "(a+)+ or (a|aa)+); simplify it or narrow the path."
            )
        finally:
            opened.close()
        text = _grep_report(query, walk, shown_root)
        return ToolResult(frame(text, "grep") if query.untrusted else text)


def _grep_walk(
    walk: FileWalk, name_filter: re.Pattern[str] | None, query: _GrepQuery, ctx: ToolContext
) -> None:
    """Search every walked file; symlinks are not followed (like ripgrep)."""
    for relative, folder, entry in walk:
        if query.full:
            break
        if name_filter is not None and not name_filter.fullmatch(relative):
            continue
        try:
            if entry.is_symlink():
                continue
            fd = folder.open(entry.name, READ_FLAGS)
        except OSError:
            continue  # gone, unreadable, or swapped for a symlink since the listing
        _grep_file(os.fdopen(fd, "rb"), walk.root.path / relative, query, ctx)


def _grep_report(query: _GrepQuery, walk: FileWalk | None, shown_root: str) -> str:
    """The final text: results plus notes about limits that were hit."""
    if not query.out:
        return f"No matches for {query.regex.pattern.pattern!r} under {shown_root}."
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


async def run_in_worker(fn: Callable[..., ToolResult], *args: Any) -> ToolResult:
    """Run ``fn(*args)`` in a dedicated daemon thread named ``grep`` and await its result.

    A dedicated thread (rather than the shared default executor) means a cancelled call does
    not hold an executor slot while it winds down, and its end can be observed.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[ToolResult] = loop.create_future()

    def deliver(result: ToolResult | None, error: BaseException | None) -> None:
        if future.done():  # the call was cancelled meanwhile
            return
        if error is not None:
            future.set_exception(error)
        else:
            assert result is not None  # the worker passes a result or an error
            future.set_result(result)

    def work() -> None:
        result: ToolResult | None = None
        error: BaseException | None = None
        try:
            result = fn(*args)
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting task
            error = exc
        try:
            loop.call_soon_threadsafe(deliver, result, error)
        except RuntimeError:  # the loop is closed: nobody waits any more
            pass

    threading.Thread(target=work, name="grep", daemon=True).start()
    return await future
