"""Memory-tab fixtures: a workspace with a real memory git repository and AppServices."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.config.schema import Config
from desktop.core.config.secrets import SecretStore
from desktop.core.memory.git_store import GitStore
from desktop.core.memory.store import MemoryStore
from desktop.ui.memory import MemoryTab
from desktop.ui.services import AppServices
from tests.ui.conftest import run_async

LINES = "".join(f"- fact {n}\n" for n in range(1, 21))  # 20 lines: room for separate hunks
MEMORY = "# Memory\n\n" + LINES


def write(ws: Path, path: str, text: str) -> None:
    """Write ``text`` to ``ws/path`` (parents created)."""
    target = ws / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def replace_line(ws: Path, path: str, old: str, new: str) -> None:
    """Replace one line's text in a workspace file."""
    target = ws / path
    text = target.read_text(encoding="utf-8")
    assert old in text
    target.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A workspace with memory files, five history entries (two not yet dreamed) and a repo."""
    ws = tmp_path / "ws"
    write(ws, "memory/MEMORY.md", MEMORY)
    write(ws, "SOUL.md", "# Soul\n\n- Be brief.\n")
    write(ws, "USER.md", "# User\n\n- Name: Ada\n")
    store = MemoryStore(ws)
    for text in (
        "Talked about the Atlas project.",
        "Ada moved to Lisbon.",
        "Small talk about the weather.",
        "Ada prefers metric units.\nAnd tea.",
        "Planned a trip to Porto.",
    ):
        store.append_history(text)
    store.dream_cursor = 3
    GitStore(ws).ensure_repo()
    return ws


def dream_commit(ws: Path, old: str, new: str) -> str:
    """A Dream-like commit that replaces one line of MEMORY.md."""
    replace_line(ws, "memory/MEMORY.md", old, new)
    sha = GitStore(ws).commit(f"dream: 2026-05-01 10:00, 1 change(s)\n\n[MEMORY] {new}\n")
    assert sha is not None
    return sha


def make_services(ws: Path, tmp_path: Path) -> AppServices:
    """Services for a config whose workspace is ``ws`` (no agent yet)."""
    config = Config.model_validate({"agents": {"defaults": {"workspace": str(ws)}}})
    return AppServices(config, tmp_path / "config.json", SecretStore())


@pytest.fixture
def services(workspace: Path, tmp_path: Path) -> AppServices:
    """AppServices on the test workspace."""
    return make_services(workspace, tmp_path)


@pytest.fixture
def tab(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, services: AppServices
) -> Iterator[MemoryTab]:
    """A shown, refreshed Memory tab at 1024×700."""
    widget = MemoryTab(services)
    widget.resize(1024, 700)
    widget.show()
    qtbot.waitExposed(widget)
    run_async(qtbot, qloop, widget.refreshed_once())
    yield widget
    run_async(qtbot, qloop, widget.aclose())  # before the widget goes (not qtbot.addWidget)
    widget.close()
    widget.deleteLater()
