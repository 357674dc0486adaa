"""GitStore on real repositories: timeline, true 3-way revert, real-world recovery, CLI."""

from __future__ import annotations

import argparse
import itertools
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pygit2
import pytest

from desktop.cli.memory import add_memory_parser, run_memory
from desktop.core.memory.git_repair import git_process_in
from desktop.core.memory.git_store import (
    GitStore,
    GitStoreError,
    RepositoryBusy,
    RevertConflict,
    RevertRefused,
    UnknownCommit,
)
from tests.typed import present

NANOBOT_GITIGNORE = "/*\n!memory/\n!SOUL.md\n!USER.md\n!memory/MEMORY.md\n!.gitignore\n"
LINES = "".join(f"line {n}\n" for n in range(1, 21))  # 20 lines: room for separate hunks
GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git binary not installed")


# ----------------------------------------------------------------------------- helpers


def write(ws: Path, path: str, data: str | bytes) -> None:
    target = ws / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data.encode() if isinstance(data, str) else data)


def replace_line(ws: Path, path: str, number: int, text: str) -> None:
    lines = (ws / path).read_text().splitlines(keepends=True)
    lines[number - 1] = text + "\n"
    write(ws, path, "".join(lines))


def repo_of(ws: Path) -> pygit2.Repository:
    return pygit2.Repository(str(ws), pygit2.enums.RepositoryOpenFlag.NO_SEARCH)


def head_sha(ws: Path) -> str:
    return str(repo_of(ws).head.target)


def subjects(store: GitStore) -> list[str]:
    return [info.subject for info in store.log(limit=None)]


def git(ws: Path, *args: str) -> str:
    """Cross-check with the standard git binary (tests only)."""
    assert GIT is not None
    result = subprocess.run([GIT, "-C", str(ws), *args], capture_output=True, text=True, check=True)
    return result.stdout


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A workspace as nanobot lays it out, without any repository."""
    workspace = tmp_path / "workspace"
    write(workspace, "SOUL.md", "# Soul\nI am nanobot.\n")
    write(workspace, "USER.md", "# User\nName: Ada\n")
    write(workspace, "memory/MEMORY.md", LINES)
    write(
        workspace,
        "memory/history.jsonl",
        '{"cursor": 1, "timestamp": "2026-01-01 10:00", "content": "x"}\n',
    )
    write(workspace, "AGENTS.md", "# Agents\n")
    return workspace


@pytest.fixture
def store(ws: Path) -> GitStore:
    """A store whose repository exists (init commit made)."""
    git_store = GitStore(ws)
    assert git_store.ensure_repo() == []
    return git_store


def make_nanobot_repo(ws: Path, gitignore: str = NANOBOT_GITIGNORE) -> str:
    """Create the repository the way the original nanobot does (plain pygit2)."""
    write(ws, ".gitignore", gitignore)
    repo = pygit2.init_repository(str(ws))
    index = repo.index
    for path in (".gitignore", "SOUL.md", "USER.md", "memory/MEMORY.md"):
        index.add(path)
    index.write()
    signature = pygit2.Signature("nanobot", "nanobot@dream")
    oid = repo.create_commit(
        "HEAD", signature, signature, "init: nanobot memory store", index.write_tree(), []
    )
    return str(oid)


# ------------------------------------------------------------------------ creating


def test_init_creates_gitignore_and_initial_commit(ws: Path) -> None:
    """A new repository ignores everything but the memory files and commits them."""
    write(ws, "memory/.dream_cursor", "7")
    assert GitStore(ws).ensure_repo() == []
    ignore = (ws / ".gitignore").read_text()
    assert "/*\n" in ignore and "!/SOUL.md\n" in ignore and "!/memory/.dream_cursor\n" in ignore
    repo = repo_of(ws)
    head = repo.head.peel(pygit2.Commit)
    assert head.message.startswith("init: memory repository") and not head.parents
    assert sorted(_tree_paths(repo, head.tree)) == [
        ".gitignore",
        "SOUL.md",
        "USER.md",
        "memory/.dream_cursor",
        "memory/MEMORY.md",
    ]
    for untracked in ("AGENTS.md", "memory/history.jsonl", "sessions/a.jsonl"):
        assert repo.path_is_ignored(untracked)
    if GIT:
        assert git(ws, "status", "--porcelain") == ""
        assert git(ws, "log", "--oneline").strip().endswith("init: memory repository")


def _tree_paths(repo: pygit2.Repository, tree: pygit2.Tree, prefix: str = "") -> list[str]:
    paths = []
    for entry in tree:
        if entry.type_str == "tree":
            paths += _tree_paths(repo, repo[entry.id].peel(pygit2.Tree), f"{prefix}{entry.name}/")
        else:
            paths.append(prefix + present(entry.name))
    return paths


def test_adopts_nanobot_repository_as_is(ws: Path) -> None:
    """nanobot's repository and .gitignore are kept; our commits go on top of its history."""
    first = make_nanobot_repo(ws)
    store = GitStore(ws)
    assert store.ensure_repo() == []
    assert head_sha(ws) == first
    assert (ws / ".gitignore").read_text() == NANOBOT_GITIGNORE
    write(ws, "memory/.dream_cursor", "3")
    replace_line(ws, "memory/MEMORY.md", 2, "learned: tea")
    sha = store.commit("dream: 2026-01-01 10:00, 1 change(s)")
    assert sha is not None
    assert repo_of(ws)[sha].peel(pygit2.Commit).parent_ids == [pygit2.Oid(hex=first)]
    assert subjects(store) == ["dream: 2026-01-01 10:00, 1 change(s)", "init: nanobot memory store"]
    assert "memory/.dream_cursor" in repo_of(ws).head.peel(pygit2.Commit).tree


def test_adopted_gitignore_gains_only_missing_allow_lines(ws: Path) -> None:
    """A .gitignore that hides a tracked file is extended (never rewritten) and committed."""
    strict = "/*\n!SOUL.md\n!USER.md\n!.gitignore\n"
    first = make_nanobot_repo(ws, strict)
    notices = GitStore(ws).ensure_repo()
    assert any("memory/MEMORY.md" in notice for notice in notices)
    text = (ws / ".gitignore").read_text()
    assert text.startswith(strict) and "!/memory/MEMORY.md" in text
    assert not repo_of(ws).path_is_ignored("memory/.dream_cursor")
    log = GitStore(ws).log()
    assert log[0].subject.startswith("init: track memory/MEMORY.md") and log[-1].sha == first


# ------------------------------------------------------------------ commit/log/show


def test_commit_only_when_something_changed(store: GitStore, ws: Path) -> None:
    """No change, no commit; untracked files never make a commit."""
    assert store.commit("dream: nothing") is None
    write(ws, "AGENTS.md", "changed\n")
    write(ws, "memory/history.jsonl", "")
    assert store.commit("dream: still nothing") is None
    replace_line(ws, "memory/MEMORY.md", 1, "first fact")
    sha = store.commit("dream: one")
    assert sha is not None and head_sha(ws) == sha
    assert store.commit("dream: again") is None
    assert subjects(store) == ["dream: one", "init: memory repository"]


def test_commit_edit_commits_only_that_file(store: GitStore, ws: Path) -> None:
    """commit_edit records one file; other pending changes become their own edit: later."""
    write(ws, "SOUL.md", "# Soul\nKinder.\n")
    write(ws, "USER.md", "# User\nName: Ada L.\n")
    sha = present(store.commit_edit("SOUL.md"))
    assert [d.path for d in store.show(sha)] == ["SOUL.md"]
    assert store.commit_edit(str(ws / "SOUL.md")) is None
    with pytest.raises(GitStoreError):
        store.commit_edit("AGENTS.md")
    notices = store.ensure_repo()
    assert subjects(store)[:2] == ["edit: USER.md", "edit: SOUL.md"]
    assert any("outside edit of USER.md" in notice for notice in notices)


def test_log_prefix_limit_and_fields(store: GitStore, ws: Path) -> None:
    """Newest first, prefix filter, limit, aware times and line counts."""
    for n in range(3):
        replace_line(ws, "memory/MEMORY.md", n + 1, f"dream fact {n}")
        store.commit(f"dream: run {n}\n\nanalysis {n}")
        replace_line(ws, "USER.md", 2, f"Name: Ada {n}")
        store.commit_edit("USER.md")
    dreams = store.log("dream:")
    assert [i.subject for i in dreams] == ["dream: run 2", "dream: run 1", "dream: run 0"]
    assert dreams[0].body == "analysis 2"
    assert (dreams[0].files_changed, dreams[0].additions, dreams[0].deletions) == (1, 1, 1)
    assert dreams[0].time.tzinfo is not None and dreams[0].short_sha == dreams[0].sha[:7]
    assert len(store.log(limit=2)) == 2 and len(store.log(limit=None)) == 7
    assert store.log("nothing:") == []


def test_show_diffs_statuses_and_short_shas(store: GitStore, ws: Path) -> None:
    """Per-file unified diffs against the first parent; the root diffs against nothing."""
    root = store.log()[-1]
    added = {d.path: d for d in store.show(root.sha)}
    assert added["memory/MEMORY.md"].status == "added" and added["memory/MEMORY.md"].additions == 20
    replace_line(ws, "memory/MEMORY.md", 5, "changed five")
    (ws / "USER.md").unlink()
    write(ws, "memory/.dream_cursor", "1")
    sha = present(store.commit("dream: mixed"))
    diffs = {d.path: d for d in store.show(sha[:7])}
    assert {p: d.status for p, d in diffs.items()} == {
        "USER.md": "deleted",
        "memory/.dream_cursor": "added",
        "memory/MEMORY.md": "modified",
    }
    patch = diffs["memory/MEMORY.md"].patch
    assert "-line 5\n+changed five\n" in patch and patch.startswith("diff --git")
    with pytest.raises(UnknownCommit):
        store.show("0000000")
    with pytest.raises(UnknownCommit):
        store.show("not-a-sha")


def test_ambiguous_short_sha_is_a_clear_error(store: GitStore, ws: Path) -> None:
    """A prefix shared by several objects is refused with a hint to give more characters."""
    repo = repo_of(ws)
    seen: dict[str, pygit2.Oid] = {}
    n = 0
    while True:
        oid = repo.create_blob(f"blob {n}".encode())
        n += 1
        if str(oid)[:4] in seen:
            break
        seen[str(oid)[:4]] = oid
    with pytest.raises(UnknownCommit, match="more than one"):
        store.show(str(oid)[:4])


# ----------------------------------------------------------------------------- revert


def test_revert_latest_commit(store: GitStore, ws: Path) -> None:
    """The file goes back; a new revert: commit records it; history is not rewritten."""
    before = (ws / "memory/MEMORY.md").read_bytes()
    replace_line(ws, "memory/MEMORY.md", 3, "bad fact")
    bad = store.commit("dream: bad")
    assert bad is not None
    new = store.revert(bad)
    assert (ws / "memory/MEMORY.md").read_bytes() == before
    head = repo_of(ws)[new].peel(pygit2.Commit)
    assert head.message == f"revert: dream: bad\n\nThis reverts commit {bad}.\n"
    assert subjects(store) == ["revert: dream: bad", "dream: bad", "init: memory repository"]
    if GIT:
        assert git(ws, "status", "--porcelain") == ""
        assert len(git(ws, "log", "--oneline").splitlines()) == 3


def test_revert_older_commit_keeps_later_change_in_same_file(store: GitStore, ws: Path) -> None:
    """True 3-way revert: the later edit of another region of the same file survives."""
    replace_line(ws, "memory/MEMORY.md", 2, "old mistake")
    older = present(store.commit("dream: older"))
    replace_line(ws, "memory/MEMORY.md", 18, "later keeper")
    store.commit("dream: later")
    store.revert(older)
    text = (ws / "memory/MEMORY.md").read_text()
    assert "old mistake" not in text and "line 2\n" in text
    assert "later keeper\n" in text and "line 18\n" not in text


def test_conflicting_revert_changes_nothing(store: GitStore, ws: Path) -> None:
    """A later change to the same lines: refused, files/index/HEAD untouched, clear message."""
    replace_line(ws, "memory/MEMORY.md", 4, "first version")
    older = store.commit("dream: first")
    replace_line(ws, "memory/MEMORY.md", 4, "second version")
    later = store.commit("dream: second")
    assert older and later
    files = {p: (ws / p).read_bytes() for p in ("SOUL.md", "USER.md", "memory/MEMORY.md")}
    index_bytes = (ws / ".git/index").read_bytes()
    with pytest.raises(RevertConflict) as caught:
        store.revert(older[:8])
    assert caught.value.files == ["memory/MEMORY.md"]
    message = str(caught.value)
    assert "memory/MEMORY.md" in message and later[:7] in message and "same lines" in message
    assert "Nothing was changed" in message
    assert {p: (ws / p).read_bytes() for p in files} == files
    assert head_sha(ws) == later and (ws / ".git/index").read_bytes() == index_bytes
    assert repo_of(ws).index.conflicts is None
    assert not list((ws / "memory").glob(".MEMORY.md.*.tmp"))
    if GIT:
        assert git(ws, "status", "--porcelain") == ""


def test_revert_of_revert_is_byte_identical(store: GitStore, ws: Path) -> None:
    """Undo, then undo the undo: the exact earlier bytes (CRLF, no final newline, unicode)."""
    tricky = "Línea 1\r\nzwei\r\n\tdrei  \r\nend without newline ✓".encode()
    write(ws, "USER.md", tricky)
    store.commit_edit("USER.md")
    write(ws, "USER.md", b"replaced\n")
    change = store.commit_edit("USER.md")
    assert change is not None
    undo = store.revert(change)
    assert (ws / "USER.md").read_bytes() == tricky
    store.revert(undo)
    assert (ws / "USER.md").read_bytes() == b"replaced\n"
    store.revert(store.log()[0].sha)
    assert (ws / "USER.md").read_bytes() == tricky


def test_revert_refusals(store: GitStore, ws: Path) -> None:
    """The first commit cannot be undone; undoing twice says there is nothing to undo."""
    root = store.log()[-1].sha
    with pytest.raises(RevertRefused, match="first commit"):
        store.revert(root)
    replace_line(ws, "memory/MEMORY.md", 1, "x")
    sha = store.commit("dream: x")
    assert sha is not None
    store.revert(sha)
    head = head_sha(ws)
    with pytest.raises(RevertRefused, match="nothing to undo"):
        store.revert(sha)
    assert head_sha(ws) == head
    with pytest.raises(UnknownCommit):
        store.revert("deadbeefdeadbeef")


def test_revert_keeps_dream_cursor(store: GitStore, ws: Path) -> None:
    """Undoing a Dream's edits does not move the cursor back (Dream must not redo the batch)."""
    write(ws, "memory/.dream_cursor", "10")
    store.commit("dream: before")
    replace_line(ws, "memory/MEMORY.md", 7, "dreamt fact")
    write(ws, "memory/.dream_cursor", "20")
    dream = store.commit("dream: run")
    assert dream is not None
    store.revert(dream)
    assert "dreamt fact" not in (ws / "memory/MEMORY.md").read_text()
    assert (ws / "memory/.dream_cursor").read_text() == "20"


def test_outside_edit_is_committed_before_revert(store: GitStore, ws: Path) -> None:
    """An edit made in another editor becomes edit: <file> first, and survives the revert."""
    replace_line(ws, "memory/MEMORY.md", 3, "dream wrote this")
    dream = store.commit("dream: run")
    assert dream is not None
    replace_line(ws, "memory/MEMORY.md", 15, "typed in vim")
    store.revert(dream)
    assert subjects(store)[:3] == ["revert: dream: run", "edit: memory/MEMORY.md", "dream: run"]
    text = (ws / "memory/MEMORY.md").read_text()
    assert "typed in vim\n" in text and "dream wrote this" not in text
    assert any("outside edit" in notice for notice in store.take_notices())


# --------------------------------------------------------------------------- recovery


def test_stale_index_lock_is_recovered(store: GitStore, ws: Path) -> None:
    """A lock left by a crash (no live git process) is removed and the commit goes through."""
    lock = ws / ".git" / "index.lock"
    lock.write_bytes(b"")
    os.utime(lock, (time.time() - 3600, time.time() - 3600))
    replace_line(ws, "memory/MEMORY.md", 1, "after crash")
    assert store.commit("dream: after crash") is not None
    assert not lock.exists()
    assert any("index.lock" in notice for notice in store.take_notices())


def test_fresh_lock_that_goes_away_is_waited_for(store: GitStore, ws: Path) -> None:
    """A lock released within a moment is just waited for (no notice, no removal)."""
    lock = ws / ".git" / "index.lock"
    lock.write_bytes(b"")
    threading.Timer(0.3, lock.unlink).start()
    replace_line(ws, "memory/MEMORY.md", 1, "waited")
    assert store.commit("dream: waited") is not None
    assert store.take_notices() == []


def _cwd_of(pid: int) -> str:
    try:
        return os.readlink(f"/proc/{pid}/cwd")
    except OSError as exc:
        return f"<{exc}>"


@needs_git
def test_lock_of_a_live_git_process_is_respected(store: GitStore, ws: Path) -> None:
    """While a git program works in the workspace its lock is not stolen."""
    assert GIT is not None
    lock = ws / ".git" / "index.lock"
    lock.write_bytes(b"")
    os.utime(lock, (time.time() - 3600, time.time() - 3600))
    live = subprocess.Popen(
        [GIT, "hash-object", "--stdin"], cwd=ws, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL
    )
    try:
        comm = Path(f"/proc/{live.pid}/comm")
        # Wait until git has finished starting up and sits in the workspace, reading stdin
        # (right after exec, under load, its working directory can still be elsewhere).
        deadline = time.monotonic() + 10
        while _cwd_of(live.pid) != str(ws.resolve()) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert live.poll() is None, "the git child exited before the check"
        assert git_process_in(ws), (
            f"git child {live.pid} not seen: comm={comm.read_text() if comm.exists() else None!r} "
            f"cwd={_cwd_of(live.pid)!r} ws={ws.resolve()!r}"
        )
        replace_line(ws, "memory/MEMORY.md", 1, "busy")
        with pytest.raises(RepositoryBusy, match=r"index\.lock"):
            store.commit("dream: busy")
        assert lock.exists()
    finally:
        live.communicate(b"", timeout=10)
    assert store.commit("dream: busy") is not None


@pytest.mark.parametrize("damage", ["head", "objects", "head-and-objects", "empty-gitdir"])
def test_corrupt_repository_is_set_aside(ws: Path, damage: str) -> None:
    """Damaged .git: renamed to .git.corrupt-<stamp>, fresh history, MEMORY.md untouched."""
    store = GitStore(ws)
    store.ensure_repo()
    replace_line(ws, "memory/MEMORY.md", 9, "precious fact")
    store.commit("dream: precious")
    memory = (ws / "memory/MEMORY.md").read_bytes()
    gitdir = ws / ".git"
    if "head" in damage:
        (gitdir / "HEAD").write_bytes(b"\x00garbage")
    if "objects" in damage:
        for folder in (gitdir / "objects").iterdir():
            if folder.name not in ("info", "pack"):
                shutil.rmtree(folder)
    if damage == "empty-gitdir":
        shutil.rmtree(gitdir)
        gitdir.mkdir()
    notices = GitStore(ws).ensure_repo()
    assert any("set aside a corrupt repository as .git.corrupt-" in n for n in notices)
    assert len(list(ws.glob(".git.corrupt-*"))) == 1
    assert (ws / "memory/MEMORY.md").read_bytes() == memory
    log = GitStore(ws).log()
    assert [i.subject for i in log] == ["init: memory repository"]
    assert ".git.corrupt-" in log[0].body
    assert (
        repo_of(ws).head.peel(pygit2.Commit).tree["memory/MEMORY.md"].peel(pygit2.Blob).data
        == memory
    )
    if GIT:
        assert git(ws, "fsck", "--no-progress") == ""
        assert git(ws, "status", "--porcelain") == ""


def test_repository_too_new_for_libgit2_is_not_set_aside(store: GitStore, ws: Path) -> None:
    """An unknown repository extension is not damage: refuse clearly, keep the .git as is."""
    config = ws / ".git" / "config"
    text = config.read_text().replace("repositoryformatversion = 0", "repositoryformatversion = 1")
    config.write_text(text + "[extensions]\n\tfancyfuture = true\n")
    with pytest.raises(GitStoreError, match="fancyfuture"):
        GitStore(ws).ensure_repo()
    assert (ws / ".git" / "config").is_file() and not list(ws.glob(".git.corrupt-*"))


def test_concurrent_calls_are_serialised(store: GitStore, ws: Path) -> None:
    """Threads (and separate stores of one workspace) share one lock: a linear history."""
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            other = GitStore(ws)
            for k in range(5):
                write(ws, "memory/.dream_cursor", f"{n}-{k}")
                other.commit(f"dream: {n}-{k}")
                other.log(limit=3)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    history = store.log(limit=None)
    assert history[-1].subject == "init: memory repository"
    repo = repo_of(ws)
    for newer, older in itertools.pairwise(history):
        assert repo[newer.sha].peel(pygit2.Commit).parent_ids == [pygit2.Oid(hex=older.sha)]


# ------------------------------------------------------------------ speed and the CLI


def test_log_of_200_commits_is_fast(
    store: GitStore, ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """200 commits: log answers well under a second (figure printed; run pytest -s)."""
    for n in range(200):
        replace_line(ws, "memory/MEMORY.md", n % 20 + 1, f"fact {n}")
        store.commit(f"dream: run {n}" if n % 2 else f"edit: memory/MEMORY.md {n}")
    started = time.perf_counter()
    entries = store.log(limit=200)
    elapsed = time.perf_counter() - started
    started = time.perf_counter()
    dreams = store.log("dream:", limit=200)
    filtered = time.perf_counter() - started
    assert len(entries) == 200 and len(dreams) == 100
    args = _parse(ws, "memory", "log", "--limit", "200")
    started = time.perf_counter()
    assert run_memory(args) == 0
    cli = time.perf_counter() - started
    table = capsys.readouterr().out.splitlines()
    assert len(table) == 200
    with capsys.disabled():
        print(
            f"\nmemory log on 200 commits: GitStore.log {elapsed * 1000:.1f} ms, "
            f"log('dream:') {filtered * 1000:.1f} ms, "
            f"CLI 'memory log --limit 200' {cli * 1000:.1f} ms"
        )
    # A sanity bound only (figures are printed above); speed is judged by benchmarks.
    assert elapsed < 10 and filtered < 10 and cli < 20


def _parse(ws: Path, *argv: str) -> argparse.Namespace:
    """Parse like nanobot-desktop does, with the memory command registered."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--config", default=argparse.SUPPRESS)
    common.add_argument("--workspace", default=argparse.SUPPRESS)
    parser = argparse.ArgumentParser(prog="nanobot-desktop")
    parser.add_argument("--config", default=None)
    parser.add_argument("--workspace", default=None)
    commands = parser.add_subparsers(dest="command")
    add_memory_parser(commands, common)
    return parser.parse_args([*argv, "--workspace", str(ws)])


def test_cli_log_show_revert_and_exit_codes(
    store: GitStore, ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """memory log / show / revert through run_memory: output and exit codes."""
    replace_line(ws, "memory/MEMORY.md", 4, "first version")
    first = store.commit("dream: first")
    replace_line(ws, "memory/MEMORY.md", 4, "second version")
    second = store.commit("dream: second")
    write(ws, "USER.md", "# User\nName: Grace\n")
    store.commit_edit("USER.md")
    assert first and second
    capsys.readouterr()

    assert run_memory(_parse(ws, "memory", "log")) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split(maxsplit=5) for line in out.splitlines()}
    assert rows[first[:7]][3:] == ["+1", "-1", "dream: first"]  # sha, date, time, +, -, subject
    assert any(row[5] == "edit: USER.md" for row in rows.values())
    assert run_memory(_parse(ws, "memory", "log", "--dream", "--limit", "1")) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 and second[:7] in lines[0]

    assert run_memory(_parse(ws, "memory", "show", second[:7])) == 0
    out = capsys.readouterr().out
    assert f"commit {second}" in out and "-first version\n+second version" in out

    assert run_memory(_parse(ws, "memory", "show", "abcdef0")) == 2
    assert "no commit" in capsys.readouterr().err

    assert run_memory(_parse(ws, "memory", "revert", first[:7])) == 1
    err = capsys.readouterr().err
    assert "memory/MEMORY.md" in err and "same lines" in err
    assert head_sha(ws) != first and "second version" in (ws / "memory/MEMORY.md").read_text()

    assert run_memory(_parse(ws, "memory", "revert", second)) == 0
    out = capsys.readouterr().out
    assert f'Undid {second[:7]} "dream: second"' in out and "memory/MEMORY.md" in out
    assert "first version" in (ws / "memory/MEMORY.md").read_text()

    root = store.log()[-1].short_sha
    assert run_memory(_parse(ws, "memory", "revert", root)) == 1
    assert "first commit" in capsys.readouterr().err


def test_cli_reports_outside_edits_and_missing_workspace(
    store: GitStore, ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Notices go to stderr; a workspace that does not exist is a usage error."""
    write(ws, "SOUL.md", "# Soul\nedited elsewhere\n")
    assert run_memory(_parse(ws, "memory", "log")) == 0
    captured = capsys.readouterr()
    assert "note: recorded an outside edit of SOUL.md" in captured.err
    assert "edit: SOUL.md" in captured.out
    assert run_memory(_parse(tmp_path / "missing", "memory", "log")) == 2
    assert not (tmp_path / "missing").exists()


def _fake_proc(root: Path, processes: dict[str, tuple[str, Path | None]]) -> Path:
    """A procfs-like tree: pid -> (comm, cwd); a cwd of None cannot be read."""
    for pid, (comm, cwd) in processes.items():
        entry = root / pid
        entry.mkdir(parents=True)
        (entry / "comm").write_text(comm + "\n")
        if cwd is None:
            (entry / "cwd").write_text("")  # readlink on a regular file fails like EACCES
        else:
            (entry / "cwd").symlink_to(cwd)
    (root / "self").mkdir(parents=True, exist_ok=True)
    return root


def test_git_process_detection_on_a_fake_proc(tmp_path: Path, ws: Path) -> None:
    """Inside the workspace or hidden cwd: busy; elsewhere or not git: free; no procfs: unknown."""
    inside = _fake_proc(tmp_path / "p1", {"10": ("python3", ws), "11": ("git", ws / "memory")})
    assert git_process_in(ws, inside) is True
    elsewhere = _fake_proc(tmp_path / "p2", {"10": ("git", tmp_path), "11": ("vim", ws)})
    assert git_process_in(ws, elsewhere) is False
    hidden = _fake_proc(tmp_path / "p3", {"12": ("git", None)})
    assert git_process_in(ws, hidden) is True
    assert git_process_in(ws, tmp_path / "missing") is None
    assert git_process_in(ws, _fake_proc(tmp_path / "p4", {})) is None


def test_inside_another_repository_the_history_is_off_and_no_repository_is_made(
    tmp_path: Path,
) -> None:
    """As nanobot 0.3.5: a workspace inside the person's own git repository gets no repository
    of its own (git would treat it as an embedded repository and stop tracking the files);
    everything else keeps working, and the reason is said once."""
    from desktop.core.memory.templates import sync_workspace_templates

    outer = tmp_path / "notes"
    pygit2.init_repository(str(outer))
    ws = outer / "assistant" / "workspace"
    sync_workspace_templates(ws)
    git = GitStore(ws)
    assert not (ws / ".git").exists() and git.nested_in == outer.resolve()
    (notice,) = git.ensure_repo()
    assert notice.startswith("Memory history is off") and str(outer.resolve()) in notice
    (ws / "memory" / "MEMORY.md").write_text("- likes tea\n", encoding="utf-8")
    assert git.record_outside_edits() == [] and git.commit("dream: test") is None
    assert git.commit_edit("memory/MEMORY.md") is None and git.log() == []
    with pytest.raises(GitStoreError, match="Memory history is off"):
        git.info("abc1234")
    assert not (ws / ".git").exists()
    status = subprocess.run(
        ["git", "-C", str(outer), "status", "--porcelain", "--untracked-files=all"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert "assistant/workspace/memory/MEMORY.md" in status  # the outer repository sees it

    # a workspace that already has its own repository keeps it, wherever it lies
    own = outer / "own"
    own.mkdir()
    assert GitStore(own).nested_in == outer.resolve()
    pygit2.init_repository(str(own))
    assert GitStore(own).nested_in is None
    assert GitStore(own).ensure_repo() == []
    (own / "USER.md").write_text("- Name: Ada\n", encoding="utf-8")
    assert GitStore(own).commit("dream: kept") is not None and GitStore(own).log()
