"""The workspace picker counts chats in both places a workspace's sessions may be."""

from __future__ import annotations

from pathlib import Path

from desktop.core.session.manager import SessionManager
from desktop.ui.settings.workspace_picker import count_chats, describe_workspace


def test_chats_in_nanobots_folder_and_the_legacy_one_are_counted(
    tmp_path: Path, isolated_env: Path
) -> None:
    ws = tmp_path / "ws"
    manager = SessionManager(ws)
    for key in ("telegram:1", "cli:direct"):
        session = manager.get_or_create(key)
        session.add_message("user", "hi")
        manager.save(session)
    (ws / "sessions").mkdir()
    (ws / "sessions" / "desktop_x.jsonl").write_text("{}\n")  # left by an older version
    assert count_chats(ws) == 3
    assert count_chats(ws, tmp_path / "elsewhere") == 1  # another config folder: not its chats
    kind, words = describe_workspace(ws)
    assert kind == "existing" and "3 saved chat(s)" in words
