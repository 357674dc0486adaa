"""Sessions where nanobot 0.3.5 keeps them, and the adoption of the legacy layouts."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock

from desktop.core.session import adopt as adopt_module
from desktop.core.session.location import (
    key_from_storage_stem,
    read_workspace_id,
    resolve,
    storage_name,
)
from desktop.core.session.manager import SessionManager

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "nanobot_0_3_5"


def _write(path: Path, key: str, texts: list[str], updated: str) -> None:
    meta: dict[str, Any] = {
        "_type": "metadata",
        "key": key,
        "created_at": updated,
        "updated_at": updated,
    }
    meta |= {"metadata": {}, "last_consolidated": 0}
    rows = [meta] + [{"role": "user", "content": t, "timestamp": updated} for t in texts]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _id_folder(home: Path, workspace: Path) -> Path:
    return home / ".nanobot" / "sessions" / (read_workspace_id(workspace) or "none")


def test_names_are_nanobots_base64url_without_padding() -> None:
    assert storage_name("telegram:42") == "dGVsZWdyYW06NDI.jsonl"
    assert storage_name("cli:direct") == "Y2xpOmRpcmVjdA.jsonl"
    assert storage_name("a/b?c:é") == "YS9iP2M6w6k.jsonl"  # URL-safe alphabet, UTF-8
    assert key_from_storage_stem("dGVsZWdyYW06NDI") == "telegram:42"
    assert key_from_storage_stem("telegram_42") is None  # an old name is not canonical


def test_the_workspace_id_is_created_as_nanobot_does(tmp_path: Path, isolated_env: Path) -> None:
    """``.nanobot/workspace-id`` holds 32 hex characters and a newline; the id folder under
    ``~/.nanobot/sessions`` names its workspace; a second start keeps the id."""
    workspace = tmp_path / "ws"
    manager = SessionManager(workspace)
    path = manager.save(manager.get_or_create("cli:direct"))
    marker = workspace / ".nanobot" / "workspace-id"
    assert re.fullmatch(r"[0-9a-f]{32}\n", marker.read_text())
    folder = isolated_env / ".nanobot" / "sessions" / marker.read_text().strip()
    assert path == folder / "Y2xpOmRpcmVjdA.jsonl"
    assert (folder / ".workspace").read_text() == f"{workspace.resolve()}\n"
    assert resolve(workspace, isolated_env / ".nanobot").directory == folder
    assert not (workspace / "sessions").exists()


def test_a_copied_workspace_gets_its_own_sessions(tmp_path: Path, isolated_env: Path) -> None:
    first = tmp_path / "ws"
    SessionManager(first).save(SessionManager(first).get_or_create("cli:direct"))
    copy = tmp_path / "copy"
    shutil.copytree(first, copy)
    assert (
        resolve(copy, isolated_env / ".nanobot").directory
        != resolve(first, isolated_env / ".nanobot").directory
    )
    assert read_workspace_id(copy) != read_workspace_id(first)


def test_a_conversation_nanobot_wrote_continues_here(tmp_path: Path, isolated_env: Path) -> None:
    """The file nanobot 0.3.5 saved (fixture made with the real nanobot) is read, continued
    and written back under the same name, in a form nanobot reads (one JSON per line)."""
    workspace = tmp_path / "ws"
    (workspace / ".nanobot").mkdir(parents=True)
    (workspace / ".nanobot" / "workspace-id").write_text("93b8cbf934280cd727bc867360c2dce4\n")
    folder = isolated_env / ".nanobot" / "sessions" / "93b8cbf934280cd727bc867360c2dce4"
    folder.mkdir(parents=True)
    (folder / ".workspace").write_text(f"{workspace}\n")
    shutil.copy(FIXTURES / "dGVsZWdyYW06NDI.jsonl", folder)
    manager = SessionManager(workspace)
    [summary] = manager.summaries()
    assert (summary.key, summary.title) == ("telegram:42", "Capital question")
    session = manager.get_or_create("telegram:42")
    assert [m["content"] for m in session.messages][-1] == "Lisbon."
    session.add_message("user", "And of Spain?")
    assert manager.save(session) == folder / "dGVsZWdyYW06NDI.jsonl"
    rows = [
        json.loads(line) for line in (folder / "dGVsZWdyYW06NDI.jsonl").read_text().splitlines()
    ]
    assert rows[0]["key"] == "telegram:42" and rows[0]["metadata"]["title"] == "Capital question"
    assert [r["content"] for r in rows[1:]] == [
        "What is the capital of Portugal?",
        "Lisbon.",
        "And of Spain?",
    ]


def test_legacy_files_are_adopted(tmp_path: Path, isolated_env: Path) -> None:
    """Files in ``<workspace>/sessions`` and old names nanobot moved into its folder end up
    under their canonical names, listed once, with nothing left behind."""
    workspace = tmp_path / "ws"
    _write(workspace / "sessions" / "desktop_a.jsonl", "desktop:a", ["from the workspace"], "1")
    manager = SessionManager(workspace)
    folder = manager.directory
    _write(folder / "telegram_42.jsonl", "telegram:42", ["moved by nanobot"], "2")
    keys = sorted(s.key for s in manager.summaries())
    assert keys == ["desktop:a", "telegram:42"]
    assert sorted(p.name for p in folder.glob("*.jsonl")) == sorted(
        [storage_name("desktop:a"), storage_name("telegram:42")]
    )
    assert not list((workspace / "sessions").glob("*.jsonl"))
    assert manager.get_or_create("telegram:42").messages[0]["content"] == "moved by nanobot"


def test_an_old_name_is_found_when_its_chat_is_opened(tmp_path: Path, isolated_env: Path) -> None:
    manager = SessionManager(tmp_path / "ws")
    _write(manager.directory / "cli_direct.jsonl", "cli:direct", ["earlier"], "1")
    assert manager.get_or_create("cli:direct").messages[0]["content"] == "earlier"
    assert manager.path_for("cli:direct").is_file()


@pytest.mark.parametrize("legacy_newer", [True, False])
def test_when_both_exist_the_newer_is_kept_and_the_other_set_aside(
    tmp_path: Path, isolated_env: Path, legacy_newer: bool
) -> None:
    workspace = tmp_path / "ws"
    folder = SessionManager(workspace).directory
    new, old = ("2030-01-02T00:00:00", "2030-01-01T00:00:00")
    _write(
        workspace / "sessions" / "cli_x.jsonl", "cli:x", ["legacy"], new if legacy_newer else old
    )
    _write(folder / storage_name("cli:x"), "cli:x", ["canonical"], old if legacy_newer else new)
    legacy_bytes = (workspace / "sessions" / "cli_x.jsonl").read_bytes()
    canonical_bytes = (folder / storage_name("cli:x")).read_bytes()
    manager = SessionManager(workspace)
    kept = manager.get_or_create("cli:x").messages[0]["content"]
    assert kept == ("legacy" if legacy_newer else "canonical")
    [aside] = list((folder / ".migration-conflicts").iterdir())
    assert aside.read_bytes() == (canonical_bytes if legacy_newer else legacy_bytes)
    assert not (workspace / "sessions" / "cli_x.jsonl").exists()
    SessionManager(workspace).summaries()  # idempotent: nothing more set aside
    assert len(list((folder / ".migration-conflicts").iterdir())) == 1


def test_an_identical_copy_is_just_removed(tmp_path: Path, isolated_env: Path) -> None:
    workspace = tmp_path / "ws"
    folder = SessionManager(workspace).directory
    _write(workspace / "sessions" / "cli_x.jsonl", "cli:x", ["same"], "1")
    shutil.copy(workspace / "sessions" / "cli_x.jsonl", folder / storage_name("cli:x"))
    assert [s.key for s in SessionManager(workspace).summaries()] == ["cli:x"]
    assert not (workspace / "sessions" / "cli_x.jsonl").exists()
    assert not (folder / ".migration-conflicts").exists()


class Killed(BaseException):
    """The process died here."""


def _texts(*folders: Path) -> set[str]:
    found: set[str] = set()
    for folder in folders:
        for path in folder.rglob("*.jsonl"):
            for line in path.read_text().splitlines():
                content = json.loads(line).get("content")
                if content:
                    found.add(content)
    return found


def _seed(workspace: Path, folder: Path) -> None:
    _write(workspace / "sessions" / "cli_a.jsonl", "cli:a", ["a1", "a2"], "2030-01-01")
    _write(workspace / "sessions" / "cli_b.jsonl", "cli:b", ["b-legacy"], "2030-01-03")
    _write(folder / storage_name("cli:b"), "cli:b", ["b-canonical"], "2030-01-02")
    _write(workspace / "sessions" / "cli_c.jsonl", "cli:c", ["c-legacy"], "2030-01-01")
    _write(folder / storage_name("cli:c"), "cli:c", ["c-canonical"], "2030-01-02")
    _write(folder / "cli_d.jsonl", "cli:d", ["d-old-name"], "2030-01-01")


ALL = {"a1", "a2", "b-legacy", "b-canonical", "c-legacy", "c-canonical", "d-old-name"}


def test_a_kill_at_any_step_loses_nothing(
    tmp_path: Path, isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Kill the adoption before each of its file operations in turn: every message stays in
    a place the app reads, and the next start finishes the job."""
    steps = 0
    crashed = True
    while crashed:
        workspace = tmp_path / f"ws{steps}"
        folder = SessionManager(workspace).directory
        _seed(workspace, folder)
        budget = [steps]

        def counted(real: Callable[..., Any], budget: list[int] = budget) -> Callable[..., Any]:
            def run(*args: Any) -> Any:
                if budget[0] == 0:
                    raise Killed
                budget[0] -= 1
                return real(*args)

            return run

        with monkeypatch.context() as patch:
            for name in ("_link", "_unlink", "_copy_to_tmp"):
                patch.setattr(adopt_module, name, counted(getattr(adopt_module, name)))
            try:
                SessionManager(workspace).summaries()
                crashed = False
            except Killed:
                pass
        assert _texts(workspace / "sessions", folder) >= ALL, f"lost a message at step {steps}"
        manager = SessionManager(workspace)
        assert sorted(s.key for s in manager.summaries()) == ["cli:a", "cli:b", "cli:c", "cli:d"]
        assert not list((workspace / "sessions").glob("*.jsonl"))
        assert _texts(folder) >= ALL
        assert manager.get_or_create("cli:b").messages[0]["content"] == "b-legacy"
        assert manager.get_or_create("cli:c").messages[0]["content"] == "c-canonical"
        steps += 1
    assert steps > 8  # every step of every file was tried


def test_a_copy_left_by_a_kill_is_cleaned_up(tmp_path: Path, isolated_env: Path) -> None:
    workspace = tmp_path / "ws"
    folder = SessionManager(workspace).directory
    _write(workspace / "sessions" / "cli_a.jsonl", "cli:a", ["a1"], "1")
    stale = folder / ".cli_a.jsonl.0123456789ab.tmp"
    stale.write_bytes((workspace / "sessions" / "cli_a.jsonl").read_bytes()[:10])
    assert [s.key for s in SessionManager(workspace).summaries()] == ["cli:a"]
    assert not stale.exists()
    assert sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp")) == []


def test_adoption_waits_for_nanobots_migration_lock(
    tmp_path: Path, isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While nanobot holds ``sessions/.workspace-migration.lock`` nothing is set up."""
    from desktop.core.session import location

    monkeypatch.setattr(location, "MIGRATION_LOCK_TIMEOUT_S", 0.2)
    root = isolated_env / ".nanobot" / "sessions"
    root.mkdir(parents=True)
    held = FileLock(str(root / ".workspace-migration.lock"))
    with held, pytest.raises(location.SessionPlaceError, match="workspace-migration"):
        SessionManager(tmp_path / "ws").summaries()
    assert not (tmp_path / "ws" / ".nanobot" / "workspace-id").exists()


def test_a_config_inside_the_workspace_keeps_the_legacy_folder(tmp_path: Path) -> None:
    """nanobot refuses that setup; this app keeps using ``<workspace>/sessions``."""
    manager = SessionManager(tmp_path, config_dir=tmp_path / "conf")
    assert manager.save(manager.get_or_create("cli:direct")) == tmp_path / "sessions" / (
        "cli_direct.jsonl"
    )
