"""``apply_patch`` and ``find_files`` on real files; apply_patch's approval outside the workspace."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from desktop.core.agent.approval import ApprovalPolicy, Decision, approval_reason
from desktop.core.assembly import build_runtime
from desktop.core.config.schema import Config
from desktop.core.tools.base import ToolContext
from desktop.core.tools.find import FindFilesTool
from desktop.core.tools.patch import ApplyPatchTool
from tests.core.agent.conftest import make_provider
from tests.core.agent.test_approval import ScriptedApprover
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return ToolContext(
        workspace=workspace, protected_paths=(workspace / "memory" / "history.jsonl",)
    )


async def _patch(
    ctx: ToolContext, *edits: dict[str, str], dry_run: bool = False
) -> tuple[str, bool]:
    result = await ApplyPatchTool().execute(ctx, edits=list(edits), dry_run=dry_run)
    return result.text, result.is_error


async def test_edits_of_one_file_apply_in_order_and_crlf_is_kept(ctx: ToolContext) -> None:
    target = ctx.workspace / "a.txt"
    target.write_bytes(b"one\r\ntwo\r\n")
    text, failed = await _patch(
        ctx,
        {"path": "a.txt", "action": "replace", "old_text": "one\ntwo", "new_text": "1\n2"},
        {"path": "a.txt", "action": "replace", "old_text": "2", "new_text": "two"},
        {"path": "a.txt", "action": "add", "new_text": "three\n"},
    )
    assert not failed, text
    assert target.read_bytes() == b"1\r\ntwo\r\nthree\r\n"
    assert "- update a.txt" in text


async def test_one_failing_edit_writes_nothing(ctx: ToolContext) -> None:
    """The second file's old_text is missing: the first file stays as it was, no new file."""
    (ctx.workspace / "a.txt").write_text("keep me\n")
    (ctx.workspace / "b.txt").write_text("something else\n")
    text, failed = await _patch(
        ctx,
        {"path": "a.txt", "action": "replace", "old_text": "keep", "new_text": "lose"},
        {"path": "new/c.txt", "action": "add", "new_text": "c"},
        {"path": "b.txt", "action": "replace", "old_text": "not there", "new_text": "x"},
    )
    assert failed and "edit 3" in text and "nothing was changed" in text, text
    assert (ctx.workspace / "a.txt").read_text() == "keep me\n"
    assert not (ctx.workspace / "new").exists()


async def test_ambiguous_replace_and_missing_file_are_refused(ctx: ToolContext) -> None:
    (ctx.workspace / "a.txt").write_text("x x\n")
    text, failed = await _patch(
        ctx, {"path": "a.txt", "action": "replace", "old_text": "x", "new_text": "y"}
    )
    assert failed and "2 times" in text
    text, failed = await _patch(
        ctx, {"path": "gone.txt", "action": "replace", "old_text": "x", "new_text": "y"}
    )
    assert failed and "does not exist" in text


async def test_dry_run_writes_nothing(ctx: ToolContext) -> None:
    text, failed = await _patch(
        ctx, {"path": "deep/new.txt", "action": "add", "new_text": "hi\n"}, dry_run=True
    )
    assert not failed and "dry-run" in text and "create deep/new.txt (+1/-0)" in text, text
    assert not (ctx.workspace / "deep").exists()


async def test_protected_files_and_links_out_are_refused(ctx: ToolContext, tmp_path: Path) -> None:
    """A protected state file cannot be patched; a symlink swapped to point outside is not
    followed under restrictToWorkspace."""
    history = ctx.workspace / "memory" / "history.jsonl"
    history.parent.mkdir()
    history.write_text('{"cursor": 1}\n')
    text, failed = await _patch(
        ctx, {"path": "memory/history.jsonl", "action": "add", "new_text": "evil\n"}
    )
    assert failed and history.read_text() == '{"cursor": 1}\n', text
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    os.symlink(outside, ctx.workspace / "link.txt")
    restricted = ToolContext(workspace=ctx.workspace, restrict_to_workspace=True)
    text, failed = await _patch(
        restricted, {"path": "link.txt", "action": "replace", "old_text": "secret", "new_text": "x"}
    )
    assert failed and outside.read_text() == "secret\n", text


def test_a_patch_outside_the_workspace_needs_approval(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    inside = {"edits": [{"path": "a.txt", "action": "add", "new_text": "x"}]}
    outside = {"edits": [*inside["edits"], {"path": str(tmp_path / "b.txt"), "action": "add"}]}
    assert approval_reason("apply_patch", inside, ws) is None
    reason = approval_reason("apply_patch", outside, ws)
    assert reason is not None and "b.txt" in reason


async def test_a_denied_patch_outside_writes_nothing(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Through the real runner: the person denies, the file outside is not created."""
    ws = tmp_path / "ws"
    ws.mkdir()
    target = tmp_path / "elsewhere.txt"
    edits = [{"path": str(target), "action": "add", "new_text": "x"}]
    scripted_server.push(
        Reply(tool_calls=[("apply_patch", json.dumps({"edits": edits}))]), Reply("OK.")
    )
    config = Config.model_validate({"agents": {"defaults": {"workspace": str(ws)}}})
    runtime = build_runtime(config, make_provider(scripted_server.url), approval=ApprovalPolicy())
    approver = ScriptedApprover(Decision.DENY)
    assert runtime.approval is not None
    runtime.approval.add_approver(approver)
    try:
        assert await runtime.agent.process_direct("write", session_key="cli:p") == "OK."
    finally:
        await runtime.stop()
    assert not target.exists()
    assert approver.requests and "elsewhere.txt" in approver.requests[0].reason


async def test_find_files_by_terms_glob_type_and_folders(ctx: ToolContext) -> None:
    ws = ctx.workspace
    for name in ("src/app/main.py", "src/app/util.py", "docs/readme.md", "node_modules/x.py"):
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text("x")
    tool = FindFilesTool()
    by_type = await tool.execute(ctx, type="py")
    assert by_type.text.splitlines() == ["src/app/main.py", "src/app/util.py"]
    by_terms = await tool.execute(ctx, query="APP main")
    assert by_terms.text == "src/app/main.py"
    by_glob = await tool.execute(ctx, glob="docs/*.md")
    assert by_glob.text == "docs/readme.md"
    with_dirs = await tool.execute(ctx, query="app", include_dirs=True)
    assert "src/app/" in with_dirs.text.splitlines()
    paged = await tool.execute(ctx, head_limit=1, offset=1, type="py")
    assert paged.text.splitlines()[0] == "src/app/util.py"
    none = await tool.execute(ctx, query="zzz")
    assert none.text == "No files found"
