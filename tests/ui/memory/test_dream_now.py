""" "Dream now" against the scripted OpenAI server, through the real agent and LiteLLM path."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.assembly import build_runtime
from desktop.core.memory.git_store import GitStore
from desktop.core.memory.store import MemoryStore
from desktop.ui.memory import MemoryTab
from desktop.ui.memory.memory_tab import TIMELINE
from desktop.ui.services import AppServices
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer, Stall

ANALYSIS = "[MEMORY] Ada moved to Lisbon\n[USER] Prefers metric units"
MEMORY = "memory/MEMORY.md"


def edit(path: str, old: str, new: str) -> tuple[str, str]:
    return ("edit_file", json.dumps({"path": path, "old_text": old, "new_text": new}))


def route_phase1(server: ScriptedOpenAIServer, reply: Any) -> None:
    """Phase 1 (the only call without tools) gets ``reply``; phase 2 follows the script."""
    server.route = lambda body: None if body.get("tools") else reply


@pytest.fixture
def ready(
    qtbot: QtBot, services: AppServices, scripted_server: ScriptedOpenAIServer, tab: MemoryTab
) -> MemoryTab:
    """The tab after the agent (a real AgentLoop on the scripted server) became ready."""
    assert not tab.timeline.dream_bar.dream_button.isEnabled()
    runtime = build_runtime(services.config, make_provider(scripted_server.url))
    services.set_runtime(runtime)
    assert tab.timeline.dream_bar.dream_button.isEnabled()
    tab.pages.setCurrentIndex(TIMELINE)
    return tab


def test_dream_now_runs_dream_and_shows_the_summary_and_its_commit(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    workspace: Path,
    scripted_server: ScriptedOpenAIServer,
    ready: MemoryTab,
) -> None:
    route_phase1(scripted_server, Reply(ANALYSIS))
    scripted_server.push(
        Reply(tool_calls=[edit(MEMORY, "- fact 2\n", "- fact 2\n- Ada lives in Lisbon\n")]),
        Reply("Updated MEMORY.md."),
    )
    bar = ready.timeline.dream_bar
    bar.dream_button.click()
    assert bar.running and bar.progress.isVisibleTo(bar) and bar.cancel_button.isVisibleTo(bar)
    assert not bar.dream_button.isEnabled()
    assert "Dreaming…" in bar.status.text()

    notice = ready.timeline.notice
    qtbot.waitUntil(lambda: not bar.running and notice.isVisible(), timeout=60_000)
    head = GitStore(workspace).log(limit=1)[0]
    assert head.subject.startswith("dream:") and head.subject.endswith("1 change(s)")
    assert notice.tone == "success"
    assert "Dream made 1 change(s) (memory/MEMORY.md)" in notice.text
    assert head.short_sha in notice.text
    assert not bar.progress.isVisibleTo(bar) and bar.dream_button.isEnabled()
    # the new commit appears on top, selected, with its diff; the history has no new entries
    qtbot.waitUntil(lambda: ready.timeline.commits.selected_sha() == head.sha, timeout=5_000)
    qtbot.waitUntil(lambda: bool(ready.timeline.detail.diff.diffs), timeout=5_000)
    assert "+- Ada lives in Lisbon" in ready.timeline.detail.diff.toPlainText()
    assert MemoryStore(workspace).dream_cursor == 5
    qtbot.waitUntil(lambda: "up to date" in bar.status.text(), timeout=5_000)
    assert ready.pages.tabText(1) == "History log"
    assert "Ada lives in Lisbon" in ready.files.editor(MEMORY).toPlainText()


def test_cancel_keeps_partial_edits_as_a_dream_commit(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    workspace: Path,
    scripted_server: ScriptedOpenAIServer,
    ready: MemoryTab,
) -> None:
    route_phase1(scripted_server, Reply(ANALYSIS))
    scripted_server.push(
        Reply(tool_calls=[edit(MEMORY, "- fact 2\n", "- fact 2\n- Ada lives in Lisbon\n")]),
        Stall(3.0, Reply("late")),
    )
    bar = ready.timeline.dream_bar
    bar.dream_button.click()
    qtbot.waitUntil(
        lambda: "Lisbon" in (workspace / MEMORY).read_text(encoding="utf-8"), timeout=60_000
    )
    bar.cancel_button.click()
    notice = ready.timeline.notice
    qtbot.waitUntil(lambda: not bar.running and notice.isVisible(), timeout=10_000)
    head = GitStore(workspace).log(limit=1)[0]
    assert head.subject.startswith("dream:") and head.subject.endswith("cancelled")
    assert "cancelled" in notice.text and head.short_sha in notice.text
    assert MemoryStore(workspace).dream_cursor == 3  # the batch is read again next time
    assert not bar.progress.isVisibleTo(bar)


def test_cancel_before_any_change(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    workspace: Path,
    scripted_server: ScriptedOpenAIServer,
    ready: MemoryTab,
) -> None:
    route_phase1(scripted_server, Stall(3.0, Reply(ANALYSIS)))
    before = [c.sha for c in GitStore(workspace).log(limit=None)]
    bar = ready.timeline.dream_bar
    bar.dream_button.click()
    qtbot.waitUntil(lambda: len(scripted_server.chat_requests()) == 1, timeout=10_000)
    bar.cancel_button.click()
    qtbot.waitUntil(lambda: not bar.running, timeout=10_000)
    assert "before it changed anything" in ready.timeline.notice.text
    assert [c.sha for c in GitStore(workspace).log(limit=None)] == before
