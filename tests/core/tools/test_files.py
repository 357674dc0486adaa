"""File tools (read/write/edit/list/glob/grep/notebook) and the path-guard security corpus."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import struct
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest

from desktop.core.security.paths import PathDenied, default_protected_paths, resolve_tool_path
from desktop.core.tools.base import ToolContext, ToolResult
from desktop.core.tools.filesystem import (
    EditFileTool,
    ListDirTool,
    ReadFileTool,
    WriteFileTool,
    filesystem_tools,
)
from desktop.core.tools.notebook import NotebookEditTool
from desktop.core.tools.registry import ToolRegistry
from desktop.core.tools.search import GlobTool, GrepTool

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX special files and symlinks")


def make_ctx(workspace: Path, *, restrict: bool = True, config: Path | None = None) -> ToolContext:
    """A context whose protected paths are the defaults for ``workspace``."""
    return ToolContext(
        workspace=workspace,
        restrict_to_workspace=restrict,
        protected_paths=default_protected_paths(workspace, config),
    )


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """An empty workspace folder."""
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def ctx(ws: Path) -> ToolContext:
    """A restricted context on ``ws``."""
    return make_ctx(ws)


def png_bytes(width: int, height: int) -> bytes:
    """A valid grayscale PNG of the given size."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    raw = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


async def run(tool: Any, ctx: ToolContext, **kwargs: Any) -> ToolResult:
    """Run a tool with a timeout, so a tool that blocks (on a FIFO, say) fails the test."""
    return await asyncio.wait_for(tool.execute(ctx, **kwargs), timeout=10)


_FRAME = re.compile(
    r"<<<untrusted id=(\w+) source=[^\n]*>>>\n(.*)\n<<<end untrusted id=\1>>>", re.DOTALL
)


def plain(result: ToolResult) -> str:
    """The result text without its untrusted-content frame (framing: test_untrusted.py)."""
    return _FRAME.sub(lambda match: match.group(2), result.text)


# --- read_file ------------------------------------------------------------------------------


async def test_read_numbers_lines_and_pages(ws: Path, ctx: ToolContext) -> None:
    """Default page is 2000 lines with a continue hint; a later page has no hint."""
    (ws / "big.txt").write_text("".join(f"line {i}\n" for i in range(1, 5322)))
    first = await run(ReadFileTool(), ctx, path="big.txt")
    lines = plain(first).splitlines()
    assert lines[0] == "   1| line 1" and lines[1999] == "2000| line 2000"
    assert "line 2001" not in first.text
    assert first.text.endswith("(showing lines 1-2000 of 5321; use offset=2001 to continue)")
    last = await run(ReadFileTool(), ctx, path="big.txt", offset=5320, limit=50)
    assert plain(last) == "5320| line 5320\n5321| line 5321"
    middle = await run(ReadFileTool(), ctx, path="big.txt", offset=10, limit=2)
    assert plain(middle).startswith("10| line 10\n11| line 11\n\n(showing lines 10-11 of 5321")


async def test_read_edge_cases(ws: Path, ctx: ToolContext) -> None:
    """Empty file, offset past the end, CRLF endings, a missing file, a folder."""
    (ws / "empty.txt").write_text("")
    (ws / "crlf.txt").write_bytes(b"a\r\nb\r\n")
    assert (await run(ReadFileTool(), ctx, path="empty.txt")).text == "(empty.txt is empty)"
    past = await run(ReadFileTool(), ctx, path="crlf.txt", offset=9)
    assert past.is_error and "has 2 lines" in past.text
    assert plain(await run(ReadFileTool(), ctx, path="crlf.txt")) == "1| a\n2| b"
    missing = await run(ReadFileTool(), ctx, path="nope.txt")
    assert missing.is_error and "not found" in missing.text
    folder = await run(ReadFileTool(), ctx, path=".")
    assert folder.is_error and "directory" in folder.text


async def test_read_caps_output_size_and_long_lines(ws: Path, ctx: ToolContext) -> None:
    """At most ~256 KB of text per call, and lines longer than 2000 characters are cut."""
    (ws / "wide.txt").write_text(("x" * 1000 + "\n") * 1000)
    page = await run(ReadFileTool(), ctx, path="wide.txt")
    assert len(page.text.encode()) <= 256 * 1024 + 200
    assert "output capped at 256 KB" in page.text and "of 1000; use offset=" in page.text
    (ws / "minified.js").write_text("y" * 50_000 + "\nnext\n")
    cut = await run(ReadFileTool(), ctx, path="minified.js")
    first, second = plain(cut).splitlines()
    assert first.endswith("[line truncated]") and len(first) < 2100
    assert second == "2| next"


async def test_read_refuses_binary(ws: Path, ctx: ToolContext) -> None:
    """Binary content is refused with a clear message instead of garbage."""
    (ws / "blob.bin").write_bytes(bytes(range(256)) * 10)
    result = await run(ReadFileTool(), ctx, path="blob.bin")
    assert result.is_error and "binary" in result.text


async def test_read_image_returns_image_content(ws: Path, ctx: ToolContext) -> None:
    """A PNG comes back as a data URL with its dimensions in the text."""
    data = png_bytes(3, 2)
    (ws / "pic.png").write_bytes(data)
    result = await run(ReadFileTool(), ctx, path="pic.png")
    assert not result.is_error
    assert result.text.startswith("Image: pic.png (3x2, ")
    (part,) = result.images
    url = part["image_url"]["url"]
    assert part["type"] == "image_url" and url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == data
    assert isinstance(result.content(), list)


@pytest.mark.parametrize(
    ("name", "data", "mime", "size"),
    [
        ("a.gif", b"GIF89a" + struct.pack("<HH", 7, 5) + b"\x00" * 20, "image/gif", "7x5"),
        (
            "a.jpg",
            b"\xff\xd8\xff\xe0\x00\x04ab\xff\xc0\x00\x11\x08\x00\x09\x00\x0c" + b"\x00" * 20,
            "image/jpeg",
            "12x9",
        ),
        (
            "a.webp",
            b"RIFF\x00\x00\x00\x00WEBPVP8X"
            + b"\x00" * 8
            + (99).to_bytes(3, "little")
            + (49).to_bytes(3, "little"),
            "image/webp",
            "100x50",
        ),
    ],
)
async def test_read_other_image_formats(
    ws: Path, ctx: ToolContext, name: str, data: bytes, mime: str, size: str
) -> None:
    """GIF, JPEG and WebP are recognised by their magic bytes and measured."""
    (ws / name).write_bytes(data)
    result = await run(ReadFileTool(), ctx, path=name)
    assert result.text == f"Image: {name} ({size}, {len(data)} B)"
    assert result.images[0]["image_url"]["url"].startswith(f"data:{mime};base64,")


@posix_only
async def test_read_refuses_dev_zero(ws: Path) -> None:
    """/dev/zero is not a regular file: refused at once, never read."""
    result = await run(ReadFileTool(), make_ctx(ws, restrict=False), path="/dev/zero")
    assert result.is_error and "not a regular file" in result.text


@posix_only
async def test_read_refuses_fifo_without_blocking(ws: Path, ctx: ToolContext) -> None:
    """A FIFO inside the workspace is refused instead of waiting for a writer."""
    os.mkfifo(ws / "pipe")
    result = await run(ReadFileTool(), ctx, path="pipe")
    assert result.is_error and "not a regular file" in result.text
    grep = await run(GrepTool(), ctx, pattern="x")
    assert not grep.is_error  # the walk skips it too


# --- write_file / edit_file -----------------------------------------------------------------


async def test_write_creates_parents_and_reports_bytes(ws: Path, ctx: ToolContext) -> None:
    """Parents are created, the byte count is UTF-8 bytes, overwriting is reported."""
    created = await run(WriteFileTool(), ctx, path="a/b/c.txt", content="héllo\n")
    assert not created.is_error and created.text == "Created a/b/c.txt (7 bytes written)"
    assert (ws / "a/b/c.txt").read_text(encoding="utf-8") == "héllo\n"
    again = await run(WriteFileTool(), ctx, path="a/b/c.txt", content="x")
    assert again.text.startswith("Overwrote") and (ws / "a/b/c.txt").read_text() == "x"
    assert [p.name for p in (ws / "a/b").iterdir()] == ["c.txt"]  # no temp files left


async def test_write_refuses_a_directory(ws: Path, ctx: ToolContext) -> None:
    """Writing over a folder is an error, and the folder stays."""
    (ws / "d").mkdir()
    result = await run(WriteFileTool(), ctx, path="d", content="x")
    assert result.is_error and "directory" in result.text and (ws / "d").is_dir()


async def test_edit_single_match(ws: Path, ctx: ToolContext) -> None:
    """One exact occurrence is replaced, the rest of the file is untouched."""
    (ws / "f.py").write_text("a = 1\nb = 2\nc = 3\n")
    result = await run(EditFileTool(), ctx, path="f.py", old_text="b = 2", new_text="b = 20")
    assert not result.is_error and "line 2" in result.text
    assert (ws / "f.py").read_text() == "a = 1\nb = 20\nc = 3\n"


async def test_edit_not_found_shows_closest_region_as_diff(ws: Path, ctx: ToolContext) -> None:
    """0 matches: error with a unified diff against the most similar window; file unchanged."""
    text = "import os\n\ndef hello(name):\n    return 'hi ' + name\n\nprint(1)\n"
    (ws / "g.py").write_text(text)
    result = await run(
        EditFileTool(),
        ctx,
        path="g.py",
        old_text="def helo(name):\n    return 'hi ' + name",
        new_text="pass",
    )
    assert result.is_error and "not found" in result.text
    assert "lines 3-4" in result.text
    assert "--- old_text" in result.text and "+++ g.py lines 3-4" in result.text
    assert "\n-def helo(name):" in result.text and "\n+def hello(name):" in result.text
    assert (ws / "g.py").read_text() == text


async def test_edit_not_found_without_similar_region(ws: Path, ctx: ToolContext) -> None:
    """Nothing close: no noisy diff, just the advice to copy the exact text."""
    (ws / "g.py").write_text("import os\n")
    result = await run(EditFileTool(), ctx, path="g.py", old_text="qqqq zzzz wwww", new_text="x")
    assert result.is_error and "No similar region" in result.text and "---" not in result.text


async def test_edit_many_matches_needs_context_or_replace_all(ws: Path, ctx: ToolContext) -> None:
    """>1 matches: error naming count and lines; replace_all changes every one."""
    text = "x = 1\ny = 0\nx = 1\nz = 0\nx = 1\n"
    (ws / "h.py").write_text(text)
    result = await run(EditFileTool(), ctx, path="h.py", old_text="x = 1", new_text="x = 2")
    assert result.is_error and "3 times" in result.text and "lines 1, 3, 5" in result.text
    assert (ws / "h.py").read_text() == text
    done = await run(
        EditFileTool(), ctx, path="h.py", old_text="x = 1", new_text="x = 2", replace_all=True
    )
    assert not done.is_error and "replaced 3" in done.text
    assert (ws / "h.py").read_text() == text.replace("x = 1", "x = 2")


async def test_edit_crlf_file_with_lf_old_text(ws: Path, ctx: ToolContext) -> None:
    """Models send \\n; a CRLF file still matches and keeps its line endings."""
    (ws / "w.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    result = await run(EditFileTool(), ctx, path="w.txt", old_text="one\ntwo", new_text="1\n2")
    assert not result.is_error
    assert (ws / "w.txt").read_bytes() == b"1\r\n2\r\nthree\r\n"


async def test_edit_missing_and_binary(ws: Path, ctx: ToolContext) -> None:
    """A missing file points at write_file; a binary file is left alone."""
    missing = await run(EditFileTool(), ctx, path="none.txt", old_text="a", new_text="b")
    assert missing.is_error and "write_file" in missing.text
    (ws / "b.bin").write_bytes(b"a\x00b")
    binary = await run(EditFileTool(), ctx, path="b.bin", old_text="a", new_text="b")
    assert binary.is_error and (ws / "b.bin").read_bytes() == b"a\x00b"


# --- list_dir -------------------------------------------------------------------------------


async def test_list_dir_sorted_with_sizes(ws: Path, ctx: ToolContext) -> None:
    """Sorted entries, folders with '/', files with sizes."""
    (ws / "zeta").mkdir()
    (ws / "alpha.txt").write_text("x" * 10)
    (ws / "beta.bin").write_bytes(b"x" * 2048)
    result = await run(ListDirTool(), ctx)
    assert result.text.splitlines() == ["alpha.txt  (10 B)", "beta.bin  (2.0 KB)", "zeta/"]
    assert (await run(ListDirTool(), ctx, path="zeta")).text == "(zeta is empty)"
    not_dir = await run(ListDirTool(), ctx, path="alpha.txt")
    assert not_dir.is_error and "not a directory" in not_dir.text


async def test_list_dir_is_capped(ws: Path, ctx: ToolContext) -> None:
    """At most 500 entries, with the number left out."""
    for i in range(520):
        (ws / f"f{i:04}").touch()
    lines = (await run(ListDirTool(), ctx)).text.splitlines()
    assert len(lines) == 501 and lines[0].startswith("f0000") and "20 more entries" in lines[-1]


# --- glob / grep ----------------------------------------------------------------------------


def _touch(path: Path, mtime: float, text: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.utime(path, (mtime, mtime))


async def test_glob_newest_first_and_skips_noise(ws: Path, ctx: ToolContext) -> None:
    """Matches sorted by mtime (newest first); .git, node_modules, caches and venvs skipped."""
    _touch(ws / "old.py", 1_000)
    _touch(ws / "src/new.py", 3_000)
    _touch(ws / "src/mid.py", 2_000)
    _touch(ws / "notes.md", 4_000)
    for noise in (
        ".git/hook.py",
        "node_modules/m/x.py",
        "src/__pycache__/c.py",
        ".venv/lib/v.py",
        "env/e.py",
        "myvenv/lib/z.py",
    ):
        _touch(ws / noise, 5_000)
    (ws / "myvenv/pyvenv.cfg").write_text("home = /usr\n")
    result = await run(GlobTool(), ctx, pattern="*.py")
    assert result.text.splitlines() == ["src/new.py", "src/mid.py", "old.py"]
    anchored = await run(GlobTool(), ctx, pattern="src/*.py")
    assert anchored.text.splitlines() == ["src/new.py", "src/mid.py"]
    braces = await run(GlobTool(), ctx, pattern="**/*.{md,py}", path="src")
    assert braces.text.splitlines() == ["src/new.py", "src/mid.py"]
    none = await run(GlobTool(), ctx, pattern="*.rs")
    assert not none.is_error and "No files match" in none.text
    climbing = await run(GlobTool(), ctx, pattern="../*.py")
    assert climbing.is_error


async def test_glob_is_capped(ws: Path, ctx: ToolContext) -> None:
    """At most 200 results, with the number left out."""
    for i in range(230):
        _touch(ws / f"f{i:03}.txt", 1_000 + i)
    lines = (await run(GlobTool(), ctx, pattern="*.txt")).text.splitlines()
    assert len(lines) == 201 and lines[0] == "f229.txt" and "30 more" in lines[-1]


@pytest.fixture
def code_tree(ws: Path) -> Path:
    """A few files to search, plus noise and a binary that must never show up."""
    (ws / "a.py").write_text("import os\n\ndef Alpha():\n    return 1\n\n\ndef beta():\n    pass\n")
    (ws / "pkg").mkdir()
    (ws / "pkg/b.py").write_text("def alpha_two():\n    pass\n")
    (ws / "pkg/notes.txt").write_text("alpha in text\n")
    (ws / "node_modules").mkdir()
    (ws / "node_modules/c.py").write_text("def alpha_noise(): pass\n")
    (ws / "data.bin").write_bytes(b"def alpha\x00\x01\x02")
    return ws


async def test_grep_files_with_matches(code_tree: Path, ctx: ToolContext) -> None:
    """Default mode lists files; binaries and noise folders are skipped; glob filters."""
    result = await run(GrepTool(), ctx, pattern=r"def alpha")
    assert plain(result).splitlines() == ["pkg/b.py"]
    loose = await run(GrepTool(), ctx, pattern=r"alpha", case_insensitive=True)
    assert plain(loose).splitlines() == ["a.py", "pkg/b.py", "pkg/notes.txt"]
    only_py = await run(GrepTool(), ctx, pattern="alpha", case_insensitive=True, glob="*.py")
    assert plain(only_py).splitlines() == ["a.py", "pkg/b.py"]
    single = await run(GrepTool(), ctx, pattern="pass", path="pkg/b.py")
    assert plain(single) == "pkg/b.py"


async def test_grep_content_with_context(code_tree: Path, ctx: ToolContext) -> None:
    """Content mode: file:line: text for hits, file-line- text for context, -- between groups."""
    result = await run(
        GrepTool(), ctx, pattern=r"^def ", path="a.py", output_mode="content", context=1
    )
    assert plain(result).splitlines() == [
        "a.py-2- ",
        "a.py:3: def Alpha():",
        "a.py-4-     return 1",
        "--",
        "a.py-6- ",
        "a.py:7: def beta():",
        "a.py-8-     pass",
    ]
    passes = await run(GrepTool(), ctx, pattern="pass", output_mode="content")
    assert plain(passes).splitlines() == ["a.py:8:     pass", "pkg/b.py:2:     pass"]


async def test_grep_count_and_limits(code_tree: Path, ctx: ToolContext) -> None:
    """Count mode per file with a total; max_results stops early and says so."""
    result = await run(GrepTool(), ctx, pattern="def|pass", output_mode="count")
    assert plain(result).splitlines() == [
        "a.py: 3",
        "pkg/b.py: 2",
        "Total: 5 matching lines in 2 files",
    ]
    capped = await run(GrepTool(), ctx, pattern="def", output_mode="content", max_results=1)
    assert plain(capped).splitlines()[0] == "a.py:3: def Alpha():"
    assert "reached max_results=1" in capped.text and "beta" not in capped.text


async def test_grep_errors(code_tree: Path, ctx: ToolContext) -> None:
    """An invalid regex and a missing path are error results; no match is not an error."""
    bad = await run(GrepTool(), ctx, pattern="def (")
    assert bad.is_error and "invalid regex" in bad.text
    missing = await run(GrepTool(), ctx, pattern="x", path="nowhere")
    assert missing.is_error and "not found" in missing.text
    nothing = await run(GrepTool(), ctx, pattern="zzz_not_there")
    assert not nothing.is_error and nothing.text.startswith("No matches")


# --- notebook_edit --------------------------------------------------------------------------


def _notebook(path: Path) -> dict[str, Any]:
    notebook = {
        "cells": [
            {"cell_type": "markdown", "id": "m1", "metadata": {}, "source": ["# Title"]},
            {
                "cell_type": "code",
                "execution_count": 3,
                "id": "c1",
                "metadata": {"tags": ["x"]},
                "outputs": [{"output_type": "stream", "name": "stdout", "text": ["1\n"]}],
                "source": ["print(1)"],
            },
        ],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(notebook, indent=1))
    return notebook


async def test_notebook_insert_replace_delete_round_trip(ws: Path, ctx: ToolContext) -> None:
    """Cells change as asked; other cells and notebook metadata survive untouched."""
    original = _notebook(ws / "n.ipynb")
    tool = NotebookEditTool()
    inserted = await run(
        tool, ctx, path="n.ipynb", cell_index=1, action="insert", source="x = 1\ny = 2\n"
    )
    assert not inserted.is_error and "3 cells" in inserted.text
    nb = json.loads((ws / "n.ipynb").read_text())
    new = nb["cells"][1]
    assert new["cell_type"] == "code" and new["source"] == ["x = 1\n", "y = 2\n"]
    assert new["outputs"] == [] and new["execution_count"] is None and new["id"]
    assert nb["cells"][0] == original["cells"][0] and nb["cells"][2] == original["cells"][1]
    assert nb["metadata"] == original["metadata"] and nb["nbformat_minor"] == 5

    await run(tool, ctx, path="n.ipynb", cell_index=0, action="replace", source="## Intro\ntext")
    await run(
        tool, ctx, path="n.ipynb", cell_index=3, action="insert", source="end", cell_type="markdown"
    )
    nb = json.loads((ws / "n.ipynb").read_text())
    assert nb["cells"][0]["cell_type"] == "markdown" and nb["cells"][0]["id"] == "m1"
    assert nb["cells"][0]["source"] == ["## Intro\n", "text"]
    assert nb["cells"][3] == {
        "cell_type": "markdown",
        "id": nb["cells"][3]["id"],
        "metadata": {},
        "source": ["end"],
    }

    replaced = await run(
        tool, ctx, path="n.ipynb", cell_index=2, action="replace", source="print(2)"
    )
    assert "(code)" in replaced.text
    nb = json.loads((ws / "n.ipynb").read_text())
    assert nb["cells"][2]["metadata"] == {"tags": ["x"]} and nb["cells"][2]["outputs"] == []

    deleted = await run(tool, ctx, path="n.ipynb", cell_index=1, action="delete")
    assert deleted.text.startswith("Deleted code cell 1")
    nb = json.loads((ws / "n.ipynb").read_text())
    assert [c["source"] for c in nb["cells"]] == [["## Intro\n", "text"], ["print(2)"], ["end"]]


async def test_notebook_errors_leave_file_alone(ws: Path, ctx: ToolContext) -> None:
    """Out-of-range index, missing source, bad JSON and wrong suffix are errors."""
    _notebook(ws / "n.ipynb")
    before = (ws / "n.ipynb").read_bytes()
    tool = NotebookEditTool()
    out_of_range = await run(tool, ctx, path="n.ipynb", cell_index=2, action="delete")
    assert out_of_range.is_error and "out of range" in out_of_range.text
    no_source = await run(tool, ctx, path="n.ipynb", cell_index=0, action="insert")
    assert no_source.is_error and "source is required" in no_source.text
    assert (ws / "n.ipynb").read_bytes() == before
    (ws / "bad.ipynb").write_text("{not json")
    assert (await run(tool, ctx, path="bad.ipynb", cell_index=0, action="delete")).is_error
    (ws / "x.txt").write_text("{}")
    assert (await run(tool, ctx, path="x.txt", cell_index=0, action="delete")).is_error


# --- tool set -------------------------------------------------------------------------------


async def test_tool_set_flags_and_registry_dispatch(ws: Path, ctx: ToolContext) -> None:
    """All seven tools, correct safety flags, short descriptions, casting through the registry."""
    tools = filesystem_tools()
    flags = {tool.name: tool.read_only for tool in tools}
    assert flags == {
        "read_file": True,
        "write_file": False,
        "edit_file": False,
        "list_dir": True,
        "glob": True,
        "grep": True,
        "notebook_edit": False,
    }
    assert all(len(tool.description) <= 90 for tool in tools)
    registry = ToolRegistry()
    for tool in tools:
        registry.register(tool)
    (ws / "t.txt").write_text("a\nb\nc\n")
    args = {"path": "t.txt", "offset": "2", "limit": "1"}
    result = await registry.execute("read_file", args, ctx)
    assert plain(result).startswith("2| b")


# --- security corpus ------------------------------------------------------------------------

SECRET = "TOP-SECRET"


@pytest.fixture
def jail(tmp_path: Path, ws: Path, isolated_env: Path) -> dict[str, Path]:
    """A workspace next to an outside folder, with links out of the workspace."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    (isolated_env / "secret.txt").write_text(SECRET)
    (ws / "sub").mkdir()
    (ws / "ok.txt").write_text("fine\n")
    if sys.platform != "win32":
        (ws / "link_file").symlink_to(outside / "secret.txt")
        (ws / "link_dir").symlink_to(outside, target_is_directory=True)
        (ws / "dangling").symlink_to(outside / "new.txt")
    return {"ws": ws, "outside": outside, "home": isolated_env}


ESCAPES = [
    "../outside/secret.txt",
    "sub/../../outside/secret.txt",
    "nowhere/../../outside/secret.txt",
    "{outside}/secret.txt",
    "~/secret.txt",
    pytest.param("link_file", marks=posix_only),
    pytest.param("link_dir/secret.txt", marks=posix_only),
    pytest.param("link_dir/../outside/secret.txt", marks=posix_only),
]


def _fill(raw: str, jail: dict[str, Path]) -> str:
    return raw.replace("{outside}", str(jail["outside"]))


@pytest.mark.parametrize("raw", ESCAPES)
async def test_reads_outside_the_workspace_are_refused(raw: str, jail: dict[str, Path]) -> None:
    """read_file never returns the outside secret under restrictToWorkspace."""
    result = await run(ReadFileTool(), make_ctx(jail["ws"]), path=_fill(raw, jail))
    assert result.is_error and "outside the workspace" in result.text
    assert SECRET not in result.text


WRITE_ESCAPES = [
    *ESCAPES,
    "../outside/new.txt",
    pytest.param("dangling", marks=posix_only),
    pytest.param("link_dir/new.txt", marks=posix_only),
]


@pytest.mark.parametrize("raw", WRITE_ESCAPES)
async def test_writes_outside_the_workspace_are_refused(raw: str, jail: dict[str, Path]) -> None:
    """write_file/edit_file refuse escapes; the outside stays byte-for-byte the same."""
    ctx = make_ctx(jail["ws"])
    path = _fill(raw, jail)
    wrote = await run(WriteFileTool(), ctx, path=path, content="pwned")
    edited = await run(EditFileTool(), ctx, path=path, old_text=SECRET, new_text="pwned")
    assert wrote.is_error and edited.is_error and "outside the workspace" in wrote.text
    assert (jail["outside"] / "secret.txt").read_text() == SECRET
    assert (jail["home"] / "secret.txt").read_text() == SECRET
    assert sorted(p.name for p in jail["outside"].iterdir()) == ["secret.txt"]


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        (ListDirTool(), {"path": "../outside"}),
        (GlobTool(), {"pattern": "*.txt", "path": "../outside"}),
        (GrepTool(), {"pattern": "SECRET", "path": "{outside}"}),
        pytest.param(GrepTool(), {"pattern": "SECRET", "path": "link_dir"}, marks=posix_only),
    ],
)
async def test_listing_and_search_outside_are_refused(
    tool: Any, args: dict[str, str], jail: dict[str, Path]
) -> None:
    """list_dir, glob and grep cannot look outside either."""
    args = {k: _fill(v, jail) for k, v in args.items()}
    result = await run(tool, make_ctx(jail["ws"]), **args)
    assert result.is_error and "outside the workspace" in result.text


@posix_only
async def test_grep_in_workspace_does_not_follow_links_out(jail: dict[str, Path]) -> None:
    """A whole-workspace grep does not read through symlinks that lead outside."""
    result = await run(GrepTool(), make_ctx(jail["ws"]), pattern="SECRET", output_mode="content")
    assert SECRET not in result.text and result.text.startswith("No matches")


PROTECTED = [
    "sessions/cli_direct.jsonl",
    ".git/config",
    "memory/history.jsonl",
    "memory/.dream_cursor",
    "memory/.cursor",
    "{config}",
    "sub/.git/HEAD",
]


@pytest.fixture
def protected_files(ws: Path, tmp_path: Path) -> dict[str, Path]:
    """Every protected file, pre-filled so a refused write can be seen not to happen."""
    config = tmp_path / "home-nanobot" / "config.json"
    files = {raw: ws / raw for raw in PROTECTED if raw != "{config}"}
    files["{config}"] = config
    for path in files.values():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("original old\n")
    return files


@pytest.mark.parametrize("restrict", [True, False])
@pytest.mark.parametrize("raw", PROTECTED)
async def test_protected_paths_are_never_written(
    raw: str, restrict: bool, ws: Path, protected_files: dict[str, Path]
) -> None:
    """write_file, edit_file and notebook_edit refuse protected paths in both modes."""
    target = protected_files[raw]
    ctx = make_ctx(ws, restrict=restrict, config=protected_files["{config}"])
    path = str(target) if raw == "{config}" else raw
    results = [
        await run(WriteFileTool(), ctx, path=path, content="pwned"),
        await run(EditFileTool(), ctx, path=path, old_text="old", new_text="pwned"),
        await run(NotebookEditTool(), ctx, path=path, cell_index=0, action="delete"),
    ]
    if raw == "{config}" and restrict:
        assert all("outside the workspace" in r.text for r in results)
    else:
        assert all(r.is_error and ("protected" in r.text or ".git" in r.text) for r in results)
    assert target.read_text() == "original old\n"
    read = await run(ReadFileTool(), ctx, path=path)
    assert read.is_error == (raw == "{config}" and restrict)  # reading is still allowed


async def test_new_files_in_protected_folders_and_notebooks_are_refused(
    ws: Path, protected_files: dict[str, Path]
) -> None:
    """New session files, notebooks under .git, and a link into sessions are refused too."""
    ctx = make_ctx(ws, restrict=False)
    for path in ("sessions/new.jsonl", ".git/nb.ipynb", "sessions/sub/x.txt"):
        result = await run(WriteFileTool(), ctx, path=path, content="x")
        assert result.is_error and not (ws / path).exists()
    if sys.platform != "win32":
        (ws / "alias").symlink_to(ws / "sessions", target_is_directory=True)
        result = await run(WriteFileTool(), ctx, path="alias/cli_direct.jsonl", content="x")
        assert result.is_error and "protected" in result.text
        assert protected_files["sessions/cli_direct.jsonl"].read_text() == "original old\n"


async def test_workspace_paths_protected_even_without_ctx_protected_paths(ws: Path) -> None:
    """A context built without protected_paths still keeps sessions/history/.git safe."""
    bare = ToolContext(workspace=ws)
    for path in ("sessions/a.jsonl", "memory/history.jsonl", ".git/config"):
        result = await run(WriteFileTool(), bare, path=path, content="x")
        assert result.is_error and not (ws / path).exists()
    assert not (await run(WriteFileTool(), bare, path="notes.md", content="x")).is_error


async def test_normal_workspace_files_work_when_restricted(jail: dict[str, Path]) -> None:
    """Inside the workspace everything works, including memory/MEMORY.md and ./ paths."""
    ctx = make_ctx(jail["ws"])
    assert (await run(WriteFileTool(), ctx, path="memory/MEMORY.md", content="# Memory\n")).text
    assert (
        await run(
            EditFileTool(), ctx, path="./memory/MEMORY.md", old_text="# Memory", new_text="# Notes"
        )
    ).is_error is False
    assert (jail["ws"] / "memory/MEMORY.md").read_text() == "# Notes\n"
    absolute = await run(ReadFileTool(), ctx, path=str(jail["ws"] / "ok.txt"))
    assert plain(absolute) == "1| fine"
    assert (await run(ListDirTool(), ctx, path="sub/..")).is_error is False


@posix_only
async def test_workspace_behind_a_symlink(tmp_path: Path, ws: Path) -> None:
    """A workspace reached through a symlink is still 'inside' for its own files."""
    link = tmp_path / "ws-link"
    link.symlink_to(ws, target_is_directory=True)
    ctx = make_ctx(link)
    assert not (await run(WriteFileTool(), ctx, path="a.txt", content="x")).is_error
    assert (await run(ReadFileTool(), ctx, path=str(link / "a.txt"))).text == "1| x"
    assert (await run(WriteFileTool(), ctx, path="sessions/s.jsonl", content="x")).is_error


def test_resolve_tool_path_contract(ws: Path) -> None:
    """The guard returns the real path and raises PathDenied with a reason."""
    ctx = make_ctx(ws)
    assert resolve_tool_path("a/../b.txt", ctx, write=True) == ws.resolve() / "b.txt"
    for raw in ("", "   ", "a\x00b"):
        with pytest.raises(PathDenied):
            resolve_tool_path(raw, ctx, write=False)
    with pytest.raises(PathDenied, match="outside the workspace"):
        resolve_tool_path("..", ctx, write=False)
    unrestricted = make_ctx(ws, restrict=False)
    assert resolve_tool_path("..", unrestricted, write=False) == ws.resolve().parent
    names = {p.name for p in default_protected_paths(ws, ws.parent / "config.json")}
    assert names == {
        *("sessions", ".git", ".gitignore", ".nanobot", "cron", "cron.lock", "usage"),
        *("history.jsonl", "history.jsonl.lock", ".dream_cursor", ".cursor", ".dream_state"),
        *(".dream_proposal.json", ".dream_proposal.json.lock", ".pins.json"),
        *("config.json", "desktop.json", "desktop.lock", "logs", "channel-state", "run"),
        "dream-proposals",
    }


async def test_builtin_skills_readable_when_restricted(tmp_path: Path) -> None:
    """A restricted agent may read a builtin SKILL.md but not write it, nor read beside it."""
    from desktop.core.utils.resources import data_path

    ctx = ToolContext(workspace=tmp_path, restrict_to_workspace=True)
    skill = data_path("skills", "memory", "SKILL.md")
    assert resolve_tool_path(str(skill), ctx, write=False) == skill.resolve()
    with pytest.raises(PathDenied):
        resolve_tool_path(str(skill), ctx, write=True)
    with pytest.raises(PathDenied):
        resolve_tool_path(str(data_path("templates", "SOUL.md")), ctx, write=False)


async def test_notebook_edit_creates_a_new_notebook(ws: Path, ctx: ToolContext) -> None:
    """Inserting cell 0 into a notebook that does not exist creates a valid nbformat 4.5
    notebook (folders included); other actions on a missing notebook explain how."""
    tool = NotebookEditTool()
    missing = await run(tool, ctx, path="new/plan.ipynb", cell_index=0, action="replace",
                        source="x")  # fmt: skip
    assert missing.is_error and "insert cell 0" in missing.text
    assert not (ws / "new").exists()
    made = await run(tool, ctx, path="new/plan.ipynb", cell_index=0, action="insert",
                     source="print('hi')")  # fmt: skip
    assert not made.is_error, made.text
    notebook = json.loads((ws / "new" / "plan.ipynb").read_text())
    assert (notebook["nbformat"], notebook["nbformat_minor"]) == (4, 5)
    assert notebook["metadata"]["kernelspec"]["name"] == "python3"
    [cell] = notebook["cells"]
    assert cell["cell_type"] == "code" and cell["source"] == ["print('hi')"] and cell["id"]
    more = await run(tool, ctx, path="new/plan.ipynb", cell_index=1, action="insert",
                     source="# Notes", cell_type="markdown")  # fmt: skip
    assert not more.is_error and "2 cells" in more.text
