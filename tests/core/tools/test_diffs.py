"""The file tools report what they changed as a capped unified diff (issue 25 §3).

Real tools on real files through the real registry: the diff is made at the write (a later
change of the file on disk does not alter it), redacted like the result text, and kept small.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest

from desktop.core.tools.base import ToolContext
from desktop.core.tools.diffs import MAX_DIFF_CHARS, NOT_TEXT, diff_files, diff_stats
from desktop.core.tools.filesystem import filesystem_tools
from desktop.core.tools.patch import ApplyPatchTool
from desktop.core.tools.registry import ToolRegistry
from desktop.core.utils.redact import register_secret


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return ToolContext(workspace=workspace)


@pytest.fixture
def registry() -> ToolRegistry:
    tools = ToolRegistry()
    for tool in [*filesystem_tools(), ApplyPatchTool()]:
        tools.register(tool)
    return tools


async def test_edit_file_reports_the_lines_it_changed(
    ctx: ToolContext, registry: ToolRegistry
) -> None:
    target = ctx.workspace / "notes.txt"
    target.write_text("alpha\nbeta\ngamma\n")
    result = await registry.execute(
        "edit_file", {"path": "notes.txt", "old_text": "beta", "new_text": "BETA\ndelta"}, ctx
    )
    assert not result.is_error
    assert result.diff.splitlines() == [
        "--- a/notes.txt",
        "+++ b/notes.txt",
        "@@ -1,3 +1,4 @@",
        " alpha",
        "-beta",
        "+BETA",
        "+delta",
        " gamma",
    ]
    target.write_text("changed again on disk\n")  # the diff is what the tool did, not the disk
    assert diff_stats(result.diff) == (2, 1)
    assert result.content() == result.text  # the model reads the text only


async def test_write_file_diffs_a_new_file_an_overwrite_and_nothing_changed(
    ctx: ToolContext, registry: ToolRegistry
) -> None:
    created = await registry.execute("write_file", {"path": "d/new.py", "content": "x = 1\n"}, ctx)
    assert created.diff.splitlines()[:2] == ["--- /dev/null", "+++ b/d/new.py"]
    assert diff_stats(created.diff) == (1, 0)
    over = await registry.execute("write_file", {"path": "d/new.py", "content": "x = 2\n"}, ctx)
    assert "-x = 1" in over.diff.splitlines() and "+x = 2" in over.diff.splitlines()
    same = await registry.execute("write_file", {"path": "d/new.py", "content": "x = 2\n"}, ctx)
    assert not same.is_error and same.diff == ""


async def test_overwriting_a_binary_file_says_so_instead_of_lines(
    ctx: ToolContext, registry: ToolRegistry
) -> None:
    (ctx.workspace / "blob.bin").write_bytes(b"\xff\xfe\x00\x01")
    result = await registry.execute("write_file", {"path": "blob.bin", "content": "text\n"}, ctx)
    assert result.diff.splitlines() == ["--- a/blob.bin", "+++ b/blob.bin", NOT_TEXT]


async def test_a_large_change_is_cut_with_a_count_and_the_stats_stay_whole(
    ctx: ToolContext, registry: ToolRegistry
) -> None:
    content = "".join(f"line number {i}\n" for i in range(5000))
    result = await registry.execute("write_file", {"path": "big.txt", "content": content}, ctx)
    assert len(result.diff) <= MAX_DIFF_CHARS
    last = result.diff.splitlines()[-1]
    assert last.startswith("… ") and last.endswith(" more lines (+" + last.split("(+")[1])
    assert diff_stats(result.diff) == (5000, 0)


async def test_apply_patch_reports_every_file_it_wrote(
    ctx: ToolContext, registry: ToolRegistry
) -> None:
    (ctx.workspace / "a.txt").write_text("one\n")
    edits = [
        {"path": "a.txt", "action": "replace", "old_text": "one", "new_text": "uno"},
        {"path": "b.txt", "action": "add", "new_text": "new file\n"},
    ]
    result = await registry.execute("apply_patch", {"edits": edits}, ctx)
    assert not result.is_error
    assert diff_files(result.diff) == ["a.txt", "b.txt"]
    assert diff_stats(result.diff) == (2, 1)
    dry = await registry.execute("apply_patch", {"edits": edits[:1], "dry_run": True}, ctx)
    assert dry.diff == ""  # nothing was written


async def test_a_failed_edit_has_no_diff(ctx: ToolContext, registry: ToolRegistry) -> None:
    (ctx.workspace / "a.txt").write_text("one\n")
    result = await registry.execute(
        "edit_file", {"path": "a.txt", "old_text": "zzz", "new_text": "y"}, ctx
    )
    assert result.is_error and result.diff == ""


async def test_secrets_written_into_a_file_are_masked_in_the_diff(
    ctx: ToolContext, registry: ToolRegistry
) -> None:
    key = "sk-diff-" + secrets.token_hex(12)
    register_secret(key)
    result = await registry.execute(
        "write_file", {"path": ".env", "content": f"OPENAI_API_KEY={key}\n"}, ctx
    )
    assert key not in result.diff and "+OPENAI_API_KEY=[REDACTED]" in result.diff
