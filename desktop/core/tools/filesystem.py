"""File tools: ``read_file``, ``write_file``, ``edit_file``, ``list_dir``.

Search tools live in :mod:`desktop.core.tools.search` and ``notebook_edit`` in
:mod:`desktop.core.tools.notebook`; :func:`filesystem_tools` returns all of them. Every path
is resolved and opened in one step by :func:`~desktop.core.security.paths.open_tool_path` or
:func:`~desktop.core.security.paths.open_tool_write` (no gap a symlink swap could use); all of
it runs in a worker thread; failures come back as error results the model can act on. Text
of files the agent did not write is framed as untrusted (:mod:`desktop.core.tools.untrusted`).
"""

from __future__ import annotations

import asyncio
import base64
import difflib
import io
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO, ClassVar

from desktop.core.security.paths import (
    PathDenied,
    WriteTarget,
    display_path,
    open_tool_path,
    open_tool_write,
)
from desktop.core.tools.base import Tool, ToolContext, ToolResult
from desktop.core.tools.diffs import MAX_SOURCE_CHARS, bytes_diff, unified_diff
from desktop.core.tools.documents import (
    MAX_DOC_BYTES,
    DocumentError,
    document_kind,
    missing_library,
    office_lines,
    read_pdf,
)
from desktop.core.tools.notebook import NotebookEditTool
from desktop.core.tools.search import SNIFF_BYTES, GlobTool, GrepTool, looks_binary
from desktop.core.tools.untrusted import file_is_trusted, frame, note_written

MAX_READ_BYTES = 256 * 1024
MAX_LINE_CHARS = 2000
MAX_IMAGE_BYTES = 10 * 1024 * 1024
MAX_EDIT_BYTES = 10 * 1024 * 1024
COUNT_LINES_UP_TO = 10 * 1024 * 1024
MAX_LIST_ENTRIES = 500
MAX_DIFF_WINDOWS = 20_000
MAX_DIFF_LINES = 60


def human_size(size: int) -> str:
    """``1536`` → ``"1.5 KB"``."""
    if size < 1024:
        return f"{size} B"
    value = float(size)
    for unit in ("KB", "MB", "GB"):
        value /= 1024
        if value < 1024 or unit == "GB":
            break
    return f"{value:.1f} {unit}"


def _open_error(raw: str, exc: Exception) -> ToolResult:
    """An error result for a failed open or check."""
    if isinstance(exc, FileNotFoundError):
        return ToolResult.error(f"Error: file not found: {raw}")
    if isinstance(exc, IsADirectoryError):
        return ToolResult.error(f"Error: {raw} is a directory; use list_dir")
    if isinstance(exc, NotADirectoryError):
        return ToolResult.error(f"Error: {raw}: a part of the path is a file, not a directory")
    if isinstance(exc, PathDenied):
        return ToolResult.error(f"Error: {exc}")
    return ToolResult.error(f"Error: cannot read {raw}: {exc}")


# --- images ---------------------------------------------------------------------------------


def image_mime(head: bytes) -> str | None:
    """The MIME type of a PNG, JPEG, GIF or WebP file from its first bytes."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from the first SOF marker of a JPEG."""
    index = 2
    while index + 9 < len(data):
        if data[index] != 0xFF:
            return None
        marker = data[index + 1]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height = int.from_bytes(data[index + 5 : index + 7], "big")
            return int.from_bytes(data[index + 7 : index + 9], "big"), height
        index += 2 + int.from_bytes(data[index + 2 : index + 4], "big")
    return None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from a lossy, lossless or extended WebP header."""
    chunk = data[12:16]
    if chunk == b"VP8 " and len(data) >= 30:
        return (
            int.from_bytes(data[26:28], "little") & 0x3FFF,
            int.from_bytes(data[28:30], "little") & 0x3FFF,
        )
    if chunk == b"VP8L" and len(data) >= 25:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X" and len(data) >= 30:
        return (
            int.from_bytes(data[24:27], "little") + 1,
            int.from_bytes(data[27:30], "little") + 1,
        )
    return None


def image_size(mime: str, data: bytes) -> tuple[int, int] | None:
    """Width and height read from the image header, when it can be parsed."""
    if mime == "image/png" and len(data) >= 24:
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if mime == "image/gif" and len(data) >= 10:
        return int.from_bytes(data[6:8], "little"), int.from_bytes(data[8:10], "little")
    if mime == "image/jpeg":
        return _jpeg_size(data)
    if mime == "image/webp":
        return _webp_size(data)
    return None


def _image_result(handle: BinaryIO, name: str, mime: str) -> ToolResult:
    """The image as a base64 data URL part, with its size in the text."""
    data = handle.read(MAX_IMAGE_BYTES + 1)
    if len(data) > MAX_IMAGE_BYTES:
        return ToolResult.error(f"Error: image {name} is larger than {human_size(MAX_IMAGE_BYTES)}")
    dims = image_size(mime, data)
    about = f"{dims[0]}x{dims[1]}, {human_size(len(data))}" if dims else human_size(len(data))
    url = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
    part = {"type": "image_url", "image_url": {"url": url}}
    return ToolResult(f"Image: {name} ({about})", images=(part,))


# --- read_file ------------------------------------------------------------------------------


def _lines(handle: BinaryIO) -> Iterator[str]:
    """Decoded lines without their ending; very long lines are cut to ``MAX_LINE_CHARS``."""
    cap = MAX_LINE_CHARS * 4
    while chunk := handle.readline(cap):
        cut = len(chunk) == cap and not chunk.endswith(b"\n")
        while cut and (rest := handle.readline(cap)) and not rest.endswith(b"\n"):
            pass
        text = chunk.decode("utf-8", "replace").rstrip("\r\n")
        if cut or len(text) > MAX_LINE_CHARS:
            text = text[:MAX_LINE_CHARS] + " … [line truncated]"
        yield text


def _count_lines(handle: BinaryIO) -> int:
    """Number of lines in the whole file (a last line without newline counts)."""
    handle.seek(0)
    count, last = 0, b"\n"
    while block := handle.read(1 << 20):
        count += block.count(b"\n")
        last = block[-1:]
    return count + (last != b"\n")


@dataclass
class _Page:
    """The lines picked for one read_file call."""

    first: int
    lines: list[str]
    more: bool
    capped: bool

    @property
    def last(self) -> int:
        return self.first + len(self.lines) - 1


def _select(handle: BinaryIO, offset: int, limit: int) -> _Page:
    """Up to ``limit`` lines from ``offset`` on, within the ``MAX_READ_BYTES`` budget."""
    page = _Page(offset, [], more=False, capped=False)
    used = 0
    for number, text in enumerate(_lines(handle), start=1):
        if number < offset:
            continue
        cost = len(text.encode("utf-8")) + 8
        if len(page.lines) >= limit or (page.lines and used + cost > MAX_READ_BYTES):
            page.more, page.capped = True, len(page.lines) < limit
            break
        page.lines.append(text)
        used += cost
    return page


def _page_note(page: _Page, total: int | None, size: int) -> str:
    """The trailing "use offset=N to continue" note, empty when the file was read to the end."""
    if not page.more:
        return ""
    of = f" of {total}" if total else f"; file is {human_size(size)}"
    span = f"lines {page.first}-{page.last}{of}"
    cap = f"output capped at {MAX_READ_BYTES // 1024} KB; " if page.capped else ""
    return f"\n\n({cap}showing {span}; use offset={page.last + 1} to continue)"


def _text_result(
    handle: BinaryIO, shown: str, offset: int, limit: int, size: int, *, untrusted: bool
) -> ToolResult:
    """One page of a text file as ``N| line`` rows (framed when untrusted) plus the paging note."""
    page = _select(handle, offset, limit)
    if not page.lines:
        if offset == 1:
            return ToolResult(f"({shown} is empty)")
        count = _count_lines(handle)
        message = f"Error: offset {offset} is past the end ({shown} has {count} lines)"
        return ToolResult.error(message)
    total = _count_lines(handle) if page.more and size <= COUNT_LINES_UP_TO else None
    width = len(str(page.last))
    body = "\n".join(f"{n:>{width}}| {text}" for n, text in enumerate(page.lines, start=page.first))
    if untrusted:
        body = frame(body, f"file {shown}")
    return ToolResult(body + _page_note(page, total, size))


def _document(
    handle: BinaryIO, shown: str, kind: str, pages: str | None, offset: int, limit: int
) -> ToolResult:
    """A PDF's pages, or an Office file's extracted lines as a text page (framed as untrusted)."""
    if (package := missing_library(kind)) is not None:
        return ToolResult.error(f"Error: reading {kind.upper()} files needs {package} installed")
    size = os.fstat(handle.fileno()).st_size
    if size > MAX_DOC_BYTES:
        return ToolResult.error(f"Error: {shown} is larger than {human_size(MAX_DOC_BYTES)}")
    try:
        if kind == "pdf":
            got = read_pdf(handle, pages)
            note = ""
            if got.last < got.total:
                more = f"{got.last + 1}-{min(got.total, got.last + 20)}"
                note = f"\n\n(pages {got.first}-{got.last} of {got.total}; use pages='{more}' to continue)"
            return ToolResult(frame(got.text, f"file {shown}") + note)
        lines = office_lines(handle, kind)
    except DocumentError as exc:
        return ToolResult.error(f"Error: {shown}: {exc}")
    if not any(line.strip() for line in lines):
        return ToolResult(f"({shown} has no text to extract)")
    text = io.BytesIO("\n".join(lines).encode("utf-8"))
    return _text_result(text, shown, offset, limit, len(text.getvalue()), untrusted=True)


def _read(
    raw: str, ctx: ToolContext, offset: int, limit: int, pages: str | None = None
) -> ToolResult:
    """read_file's blocking part: resolve and open in one go, then image, document, binary or
    text page."""
    try:
        opened = open_tool_path(raw, ctx, want="file")
    except (OSError, PathDenied) as exc:
        return _open_error(raw, exc)
    with opened:
        shown = display_path(opened.path, ctx.workspace)
        untrusted = not file_is_trusted(opened.path, opened.stat, ctx.own_workspace)
        handle = opened.file()
    with handle:
        size = opened.stat.st_size
        head = handle.read(SNIFF_BYTES)
        handle.seek(0)
        mime = image_mime(head)
        if mime:
            return _image_result(handle, opened.path.name, mime)
        kind = document_kind(opened.path.name, head)
        if kind is not None:
            return _document(handle, shown, kind, pages, offset, limit)
        if looks_binary(head):
            return ToolResult.error(f"Error: {shown} looks like a binary file; not reading it")
        return _text_result(handle, shown, offset, limit, size, untrusted=untrusted)


class ReadFileTool(Tool):
    """Read a text file with numbered lines, an image, a PDF or an Office document."""

    name = "read_file"
    description = "Read a text file as numbered lines (paged), an image, PDF, docx, xlsx or pptx."
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "offset": {"type": "integer", "minimum": 1, "description": "First line, 1-based"},
            "limit": {"type": "integer", "minimum": 1},
            "pages": {"type": "string", "description": "PDF pages: '3' or '1-5'"},
        },
        "required": ["path"],
    }
    read_only = True

    async def execute(
        self,
        ctx: ToolContext,
        *,
        path: str,
        offset: int = 1,
        limit: int = 2000,
        pages: str | None = None,
        **_: Any,
    ) -> ToolResult:
        """Return lines ``offset`` … ``offset + limit - 1`` as ``N| line``, the image, or a
        document's text (PDF ``pages``; Office files as extracted lines)."""
        return await asyncio.to_thread(_read, path, ctx, max(1, offset), max(1, limit), pages)


# --- write_file -----------------------------------------------------------------------------


def _save(target: WriteTarget, data: bytes) -> None:
    """Write atomically into the checked folder and remember the file as the agent's own."""
    note_written(target.write(data))


def _write(raw: str, ctx: ToolContext, content: str) -> ToolResult:
    """write_file's blocking part: resolve (creating parents), then replace atomically."""
    data = content.encode("utf-8")
    try:
        with open_tool_write(raw, ctx) as target:
            shown = display_path(target.path, ctx.workspace)
            before = _before(target)
            _save(target, data)
            diff = bytes_diff(shown, before[1], data) if before[0] else ""
    except PathDenied as exc:
        return ToolResult.error(f"Error: {exc}")
    except OSError as exc:
        return ToolResult.error(f"Error: cannot write {raw}: {exc}")
    verb = "Overwrote" if target.existing is not None else "Created"
    return ToolResult(f"{verb} {shown} ({len(data)} bytes written)", diff=diff)


def _before(target: WriteTarget) -> tuple[bool, bytes | None]:
    """Whether the file could be read before a write, and what it held (``None``: a new file),
    for the card's diff; past :data:`MAX_SOURCE_CHARS` it is only known to be large."""
    if target.existing is None:
        return True, None
    try:
        return True, target.read(MAX_SOURCE_CHARS + 1)
    except (OSError, PathDenied):
        return False, None


class WriteFileTool(Tool):
    """Create or overwrite a file."""

    name = "write_file"
    description = "Create or overwrite a file (parent folders are created)."
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    }

    async def execute(self, ctx: ToolContext, *, path: str, content: str, **_: Any) -> ToolResult:
        """Write ``content`` to ``path`` atomically."""
        return await asyncio.to_thread(_write, path, ctx, content)


# --- edit_file ------------------------------------------------------------------------------


def _closest_window(lines: list[str], wanted: str, size: int) -> tuple[float, int]:
    """Similarity and start index of the ``size``-line window most like ``wanted``."""
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(wanted)
    best = (0.0, 0)
    for start in range(min(max(1, len(lines) - size + 1), MAX_DIFF_WINDOWS)):
        matcher.set_seq1("\n".join(lines[start : start + size]))
        if matcher.real_quick_ratio() <= best[0] or matcher.quick_ratio() <= best[0]:
            continue
        ratio = matcher.ratio()
        if ratio > best[0]:
            best = (ratio, start)
    return best


def not_found_message(shown: str, content: str, old_text: str) -> str:
    """Error text for an ``old_text`` that is not in the file, with the closest region as a diff."""
    lines, wanted = content.split("\n"), old_text.split("\n")
    ratio, start = _closest_window(lines, old_text, len(wanted))
    head = f"Error: old_text was not found in {shown}."
    if ratio < 0.5:
        return head + " No similar region either; read the file and copy the exact text."
    window = lines[start : start + len(wanted)]
    end = start + len(window)
    where = f"line {end}" if len(window) == 1 else f"lines {start + 1}-{end}"
    diff = list(difflib.unified_diff(wanted, window, "old_text", f"{shown} {where}", lineterm=""))
    if len(diff) > MAX_DIFF_LINES:
        diff = [*diff[:MAX_DIFF_LINES], "… (diff truncated)"]
    return (
        f"{head} The closest region is {where} ({ratio:.0%} similar); "
        "'-' is your old_text, '+' is the file:\n"
        + "\n".join(diff)
        + "\nCopy the exact text (whitespace included) and retry."
    )


def _match_lines(content: str, needle: str) -> list[int]:
    """1-based line numbers where each (non-overlapping) occurrence of ``needle`` starts."""
    numbers, position = [], content.find(needle)
    while position != -1:
        numbers.append(content.count("\n", 0, position) + 1)
        position = content.find(needle, position + len(needle))
    return numbers


def _load_text(target: WriteTarget, shown: str) -> str | ToolResult:
    """A UTF-8 text file's content for editing, or an error result."""
    try:
        data = target.read(MAX_EDIT_BYTES + 1)
    except (OSError, PathDenied) as exc:
        if isinstance(exc, FileNotFoundError):
            return ToolResult.error(f"Error: file not found: {shown} (use write_file to create it)")
        return _open_error(shown, exc)
    if len(data) > MAX_EDIT_BYTES:
        limit = human_size(MAX_EDIT_BYTES)
        return ToolResult.error(f"Error: {shown} is larger than {limit}; use write_file")
    if looks_binary(data[:SNIFF_BYTES]):
        return ToolResult.error(f"Error: {shown} looks like a binary file; refusing to edit it")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return ToolResult.error(f"Error: {shown} is not UTF-8 text; refusing to edit it")


def _edit(raw: str, ctx: ToolContext, old: str, new: str, replace_all: bool) -> ToolResult:
    """edit_file's blocking part: resolve once, read, check uniqueness, replace atomically."""
    try:
        target = open_tool_write(raw, ctx, create_parents=False)
    except FileNotFoundError:
        return ToolResult.error(f"Error: file not found: {raw} (use write_file to create it)")
    except (OSError, PathDenied) as exc:
        return _open_error(raw, exc)
    with target:
        return _edit_in(target, display_path(target.path, ctx.workspace), old, new, replace_all)


def _edit_in(target: WriteTarget, shown: str, old: str, new: str, replace_all: bool) -> ToolResult:
    """Edit the file of a resolved, checked target."""
    content = _load_text(target, shown)
    if isinstance(content, ToolResult):
        return content
    if old not in content and "\r\n" in content and "\r\n" not in old:
        old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")  # CRLF file, LF old_text
    lines = _match_lines(content, old)
    if not lines:
        return ToolResult.error(not_found_message(shown, content, old))
    if len(lines) > 1 and not replace_all:
        listed = ", ".join(map(str, lines[:20])) + (", …" if len(lines) > 20 else "")
        return ToolResult.error(
            f"Error: old_text occurs {len(lines)} times in {shown} (lines {listed}). "
            "Include more surrounding lines to make it unique, or set replace_all=true."
        )
    after = content.replace(old, new, -1 if replace_all else 1)
    try:
        _save(target, after.encode("utf-8"))
    except OSError as exc:
        return ToolResult.error(f"Error: cannot write {shown}: {exc}")
    count = len(lines) if replace_all else 1
    return ToolResult(
        f"Edited {shown}: replaced {count} occurrence(s) (first at line {lines[0]})",
        diff=unified_diff(shown, content, after),
    )


class EditFileTool(Tool):
    """Replace exact text in a file."""

    name = "edit_file"
    description = "Replace exact old_text in a file; it must be unique unless replace_all."
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "old_text": {"type": "string", "minLength": 1},
            "new_text": {"type": "string"},
            "replace_all": {"type": "boolean"},
        },
        "required": ["path", "old_text", "new_text"],
    }

    async def execute(
        self,
        ctx: ToolContext,
        *,
        path: str,
        old_text: str,
        new_text: str,
        replace_all: bool = False,
        **_: Any,
    ) -> ToolResult:
        """Replace ``old_text`` by ``new_text`` (once, or everywhere with ``replace_all``)."""
        if not old_text:
            return ToolResult.error("Error: old_text is empty; use write_file for whole files")
        if old_text == new_text:
            return ToolResult.error("Error: old_text and new_text are identical; nothing to change")
        return await asyncio.to_thread(_edit, path, ctx, old_text, new_text, replace_all)


# --- list_dir -------------------------------------------------------------------------------


def _entry_line(entry: os.DirEntry[str]) -> str:
    """``name/`` for folders, ``name  (size)`` for files."""
    try:
        if entry.is_dir():
            return entry.name + "/"
        return f"{entry.name}  ({human_size(entry.stat().st_size)})"
    except OSError:
        return f"{entry.name}  (broken link)"


def _list(raw: str, ctx: ToolContext) -> ToolResult:
    """list_dir's blocking part: resolve and open the folder in one go, then read its entries."""
    try:
        with open_tool_path(raw, ctx, want="dir") as opened:
            shown = display_path(opened.path, ctx.workspace)
            folder = opened.folder()
            try:
                entries = folder.scandir()
                lines = [_entry_line(entry) for entry in entries[:MAX_LIST_ENTRIES]]
            finally:
                folder.close()
    except PathDenied as exc:
        return ToolResult.error(f"Error: {exc}")
    except FileNotFoundError:
        return ToolResult.error(f"Error: directory not found: {raw}")
    except NotADirectoryError:
        return ToolResult.error(f"Error: {raw} is a file, not a directory; use read_file")
    except OSError as exc:
        return ToolResult.error(f"Error: cannot list {raw}: {exc}")
    if not entries:
        return ToolResult(f"({shown} is empty)")
    if len(entries) > MAX_LIST_ENTRIES:
        lines.append(f"… and {len(entries) - MAX_LIST_ENTRIES} more entries (use glob to narrow)")
    return ToolResult("\n".join(lines))


class ListDirTool(Tool):
    """List a folder."""

    name = "list_dir"
    description = "List a folder's entries (folders end with '/', files show sizes)."
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {"path": {"type": "string", "description": "Default: workspace"}},
    }
    read_only = True

    async def execute(self, ctx: ToolContext, *, path: str = ".", **_: Any) -> ToolResult:
        """List the entries of ``path``."""
        return await asyncio.to_thread(_list, path, ctx)


def filesystem_tools() -> list[Tool]:
    """One instance of every file tool (read, write, edit, list, glob, grep, notebook)."""
    return [
        ReadFileTool(),
        WriteFileTool(),
        EditFileTool(),
        ListDirTool(),
        GlobTool(),
        GrepTool(),
        NotebookEditTool(),
    ]
