"""The descriptor walk behind the file tools: legitimate symlinks, identities, atomic writes."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from desktop.core.security.paths import (
    PathDenied,
    default_protected_paths,
    open_tool_path,
    open_tool_write,
    resolve_tool_path,
)
from desktop.core.tools.base import ToolContext
from desktop.core.tools.filesystem import ListDirTool, ReadFileTool, WriteFileTool
from desktop.core.tools.search import GlobTool, GrepTool
from desktop.core.utils import fsopen

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX symlinks and modes")


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.txt").write_text("alpha\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("SECRET\n")
    return root


def ctx_for(ws: Path, *, restrict: bool = True, extra: tuple[Path, ...] = ()) -> ToolContext:
    return ToolContext(
        workspace=ws,
        restrict_to_workspace=restrict,
        protected_paths=(*default_protected_paths(ws, None), *extra),
    )


def _read(raw: str, ctx: ToolContext) -> bytes:
    with open_tool_path(raw, ctx) as opened, opened.file() as handle:
        return handle.read()


def test_symlinks_inside_the_workspace_keep_working(ws: Path) -> None:
    """Relative and absolute links to files and folders inside: read, list, write through them."""
    (ws / "rel_dir").symlink_to("docs", target_is_directory=True)
    (ws / "abs_dir").symlink_to(ws / "docs", target_is_directory=True)
    (ws / "rel_file").symlink_to("docs/a.txt")
    (ws / "docs" / "up").symlink_to("../docs/a.txt")
    ctx = ctx_for(ws)
    for raw in ("rel_dir/a.txt", "abs_dir/a.txt", "rel_file", "docs/up", "abs_dir/../docs/a.txt"):
        assert _read(raw, ctx) == b"alpha\n", raw
    with open_tool_path("abs_dir", ctx, want="dir") as opened:
        assert opened.path == ws.resolve() / "docs"
    with open_tool_write("abs_dir/new.txt", ctx) as target:
        target.write(b"made\n")
    assert (ws / "docs" / "new.txt").read_text() == "made\n"


def test_writing_through_a_file_link_replaces_its_target(ws: Path) -> None:
    """As before: the link stays, the file it points to gets the new content."""
    (ws / "link").symlink_to("docs/a.txt")
    with open_tool_write("link", ctx_for(ws)) as target:
        assert target.path == ws.resolve() / "docs" / "a.txt"
        target.write(b"beta\n")
    assert (ws / "link").is_symlink() and (ws / "docs" / "a.txt").read_text() == "beta\n"


def test_dangling_link_inside_creates_its_target(ws: Path) -> None:
    (ws / "later").symlink_to("docs/later.txt")
    with open_tool_write("later", ctx_for(ws)) as target:
        target.write(b"now\n")
    assert (ws / "docs" / "later.txt").read_text() == "now\n"


def test_symlink_loops_end_with_an_error(ws: Path) -> None:
    (ws / "loop_a").symlink_to("loop_b")
    (ws / "loop_b").symlink_to("loop_a")
    with pytest.raises(OSError, match="symbolic links"):
        _read("loop_a/x", ctx_for(ws))


def test_refused_write_creates_no_folders(ws: Path, tmp_path: Path) -> None:
    """Parents are created only after the whole path passed the checks."""
    for raw in ("new/deeper/../../../outside/x.txt", "sessions/sub/x.jsonl", ".git/hooks/x"):
        with pytest.raises(PathDenied):
            open_tool_write(raw, ctx_for(ws))
    assert sorted(p.name for p in ws.iterdir()) == ["docs"]
    assert sorted(p.name for p in (tmp_path / "outside").iterdir()) == ["secret.txt"]


def test_protected_files_that_do_not_exist_yet(ws: Path) -> None:
    """memory/history.jsonl is protected before memory/ exists, in any spelling of the path."""
    (ws / "mem_link").symlink_to("memory", target_is_directory=True)  # dangling for now
    for raw in ("memory/history.jsonl", "./memory/../memory/history.jsonl", "mem_link/.cursor"):
        with pytest.raises(PathDenied, match="protected"):
            open_tool_write(raw, ctx_for(ws, restrict=False))
    assert not (ws / "memory").exists()
    with open_tool_write("memory/MEMORY.md", ctx_for(ws)) as target:  # its neighbour is fine
        target.write(b"# Memory\n")


def test_protected_by_identity_not_by_spelling(ws: Path, tmp_path: Path) -> None:
    """A config reached through a link, a hardlink of it, and a link to its folder: all refused."""
    home = tmp_path / "home"
    home.mkdir()
    config = home / "config.json"
    config.write_text("{}")
    (tmp_path / "home_link").symlink_to(home, target_is_directory=True)
    ctx = ctx_for(ws, restrict=False, extra=(tmp_path / "home_link" / "config.json",))
    (ws / "cfg_dir").symlink_to(home, target_is_directory=True)
    os.link(config, ws / "hardlinked.json")
    for raw in (str(config), "cfg_dir/config.json", "hardlinked.json"):
        with pytest.raises(PathDenied, match="protected"):
            open_tool_write(raw, ctx)
    assert config.read_text() == "{}"


def test_atomic_write_keeps_mode_and_leaves_no_temp_files(ws: Path) -> None:
    """An existing file keeps its permission bits; a new one is private; no temp file stays."""
    os.chmod(ws / "docs" / "a.txt", 0o644)
    ctx = ctx_for(ws)
    for raw in ("docs/a.txt", "docs/fresh.txt"):
        with open_tool_write(raw, ctx) as target:
            target.write(b"x")
    assert stat.S_IMODE((ws / "docs" / "a.txt").stat().st_mode) == 0o644
    assert stat.S_IMODE((ws / "docs" / "fresh.txt").stat().st_mode) == 0o600
    assert sorted(p.name for p in (ws / "docs").iterdir()) == ["a.txt", "fresh.txt"]


def test_resolve_tool_path_agrees_with_the_walk(ws: Path) -> None:
    """The path-only resolver gives the walk's answer (used by the Dream's skills guard)."""
    (ws / "abs_dir").symlink_to(ws / "docs", target_is_directory=True)
    ctx = ctx_for(ws)
    assert (
        resolve_tool_path("abs_dir/../docs/a.txt", ctx, write=True) == ws.resolve() / "docs/a.txt"
    )
    with pytest.raises(PathDenied, match="directory"):
        resolve_tool_path("abs_dir", ctx, write=True)


async def test_workspace_root_listing_and_grep_through_inner_links(ws: Path) -> None:
    """Tools through a link to an inside folder behave like the folder itself."""
    (ws / "abs_dir").symlink_to(ws / "docs", target_is_directory=True)
    ctx = ctx_for(ws)
    listing = await ListDirTool().execute(ctx, path="abs_dir")
    assert listing.text == "a.txt  (6 B)"
    found = await GrepTool().execute(ctx, pattern="alpha", path="abs_dir")
    assert "docs/a.txt" in found.text
    assert not (await WriteFileTool().execute(ctx, path="abs_dir/b.txt", content="b")).is_error
    assert (await ReadFileTool().execute(ctx, path="docs/b.txt")).text == "1| b"


async def test_path_fallback_without_dir_fd(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where ``dir_fd`` is missing (Windows) the same walk runs on paths with the same answers."""
    monkeypatch.setattr(fsopen, "DIR_FD", False)
    (ws / "abs_dir").symlink_to(ws / "docs", target_is_directory=True)
    (ws / "out").symlink_to(ws.parent / "outside", target_is_directory=True)
    ctx = ctx_for(ws)
    assert _read("abs_dir/a.txt", ctx) == b"alpha\n"
    wrote = await WriteFileTool().execute(ctx, path="abs_dir/new/b.txt", content="b")
    assert not wrote.is_error and (ws / "docs" / "new" / "b.txt").read_text() == "b"
    assert (await ListDirTool().execute(ctx, path="docs")).text == "a.txt  (6 B)\nnew/"
    assert "docs/new/b.txt" in (await GlobTool().execute(ctx, pattern="*.txt")).text
    assert "docs/a.txt" in (await GrepTool().execute(ctx, pattern="alpha")).text
    for raw in ("out/secret.txt", "../outside/secret.txt"):
        refused = await ReadFileTool().execute(ctx, path=raw)
        assert refused.is_error and "outside the workspace" in refused.text
    escaped = await WriteFileTool().execute(ctx, path="out/x.txt", content="x")
    assert escaped.is_error and not (ws.parent / "outside" / "x.txt").exists()
