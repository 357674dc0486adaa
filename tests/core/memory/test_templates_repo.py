"""The memory repository is created when the workspace templates are synced (as nanobot does).

Checked with the real ``git`` command line beside pygit2.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pygit2

from desktop.core.memory.git_store import INIT_MESSAGE, GitStore
from desktop.core.memory.templates import sync_workspace_templates
from desktop.core.utils.resources import data_path


def git(workspace: Path, *args: str) -> str:
    """Run the real git in ``workspace`` and return its stdout."""
    return subprocess.run(
        ["git", "-C", str(workspace), *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout


def test_first_commit_holds_the_untouched_templates(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    sync_workspace_templates(workspace)

    assert git(workspace, "log", "--format=%s").splitlines() == [INIT_MESSAGE]
    committed = set(git(workspace, "ls-tree", "-r", "--name-only", "HEAD").splitlines())
    assert committed == {".gitignore", "SOUL.md", "USER.md", "memory/MEMORY.md"}
    for name in ("SOUL.md", "USER.md", "memory/MEMORY.md"):
        shipped = data_path("templates", name).read_text(encoding="utf-8")
        assert git(workspace, "show", f"HEAD:{name}") == shipped, name
    assert git(workspace, "status", "--porcelain") == ""  # index and .gitignore agree
    # The other workspace files exist but stay out of the history.
    assert (workspace / "AGENTS.md").is_file()
    assert git(workspace, "check-ignore", "AGENTS.md", "memory/history.jsonl").split() == [
        "AGENTS.md",
        "memory/history.jsonl",
    ]


def test_a_persons_own_files_are_the_first_commit(tmp_path: Path) -> None:
    """Files already there are never overwritten: the first commit records them as they are."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "SOUL.md").write_text("# My soul\n\nBe terse.\n", encoding="utf-8")
    sync_workspace_templates(workspace)
    assert git(workspace, "show", "HEAD:SOUL.md") == "# My soul\n\nBe terse.\n"
    assert git(workspace, "show", "HEAD:USER.md") == data_path("templates", "USER.md").read_text(
        encoding="utf-8"
    )


def test_an_existing_repository_is_left_as_it_is(tmp_path: Path) -> None:
    """A repository nanobot (or an earlier sync) made gets no second init commit."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    repo = pygit2.init_repository(str(workspace))
    (workspace / "SOUL.md").write_text("soul\n", encoding="utf-8")
    repo.index.add("SOUL.md")
    repo.index.write()
    sig = pygit2.Signature("nanobot", "nanobot@dream")
    head = repo.create_commit(
        "HEAD", sig, sig, "init: nanobot memory store", repo.index.write_tree(), []
    )

    sync_workspace_templates(workspace)
    sync_workspace_templates(workspace)
    assert pygit2.Repository(str(workspace)).head.target == head
    assert not (workspace / ".gitignore").exists()  # not ours to write into an adopted repo
    assert GitStore(workspace).init() is False


def test_syncing_again_adds_no_commit(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    sync_workspace_templates(workspace)
    first = git(workspace, "rev-parse", "HEAD")
    (workspace / "AGENTS.md").unlink()
    assert sync_workspace_templates(workspace) == ["AGENTS.md"]
    assert git(workspace, "rev-parse", "HEAD") == first


def test_a_failed_repository_does_not_stop_the_sync(tmp_path: Path) -> None:
    """A ``.git`` that is a broken symlink is not replaced by the sync; the files still come."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / ".git").symlink_to(tmp_path / "nowhere")
    created = sync_workspace_templates(workspace)
    assert "SOUL.md" in created and (workspace / "SOUL.md").is_file()
    assert (workspace / ".git").is_symlink()
    (workspace / ".git").unlink()
    sync_workspace_templates(workspace)  # the next sync makes the repository
    assert git(workspace, "log", "--format=%s").splitlines() == [INIT_MESSAGE]
