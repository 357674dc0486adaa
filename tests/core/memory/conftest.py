"""Fixtures of the memory tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.memory.git_store import GitStore
from desktop.core.memory.store import MemoryStore
from tests.core.memory.dreaming import MEMORY, USER


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "memory" / "MEMORY.md").write_text(MEMORY, encoding="utf-8")
    (ws / "USER.md").write_text(USER, encoding="utf-8")
    (ws / "SOUL.md").write_text("# Soul\n\n- Be brief.\n", encoding="utf-8")
    store = MemoryStore(ws)
    store.append_history("- 2026-05-01: The user moved the project to ~/code/atlas.")
    store.append_history("- 2026-05-01: The user asked for answers in English.")
    store.append_history("- 2026-05-02: Small talk about the weather.")
    GitStore(ws).ensure_repo()
    return ws
