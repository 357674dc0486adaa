"""The Dream timeline on real git repositories: diffs, revert, conflicts."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from desktop.core.memory.git_store import GitStore
from desktop.ui.memory import MemoryTab
from desktop.ui.memory.memory_tab import TIMELINE
from tests.typed import present
from tests.ui.conftest import run_async
from tests.ui.memory.conftest import dream_commit, replace_line

MEMORY = "memory/MEMORY.md"


def subjects(tab: MemoryTab) -> list[str]:
    return [info.subject for info in tab.timeline.commits.commits()]


def select(qtbot: QtBot, tab: MemoryTab, sha: str) -> None:
    assert tab.timeline.commits.select_sha(sha)
    qtbot.waitUntil(lambda: bool(tab.timeline.detail.diff.diffs))


def test_timeline_lists_commits_with_counts_and_shows_a_coloured_diff(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, tab: MemoryTab
) -> None:
    sha = dream_commit(workspace, "- fact 5\n", "- fact 5, revised by Dream\n")
    run_async(qtbot, qloop, tab.refreshed_once())
    tab.pages.setCurrentIndex(TIMELINE)

    first = tab.timeline.commits.commits()[0]
    assert first.sha == sha and first.subject.startswith("dream:")
    item = tab.timeline.commits.topLevelItem(0)
    assert present(item).text(2) == "1" == str(first.files_changed)  # MEMORY.md
    assert present(item).text(3) == f"+{first.additions} −{first.deletions}"
    select(qtbot, tab, sha)
    diff = tab.timeline.detail.diff
    text = diff.toPlainText()
    assert "memory/MEMORY.md   modified" in text
    assert "-- fact 5\n+- fact 5, revised by Dream" in text
    assert "diff --git" not in text  # git's header is replaced by our own per-file header
    # added / removed lines carry a background; context lines do not
    document = diff.document()
    backgrounds = {}
    for number in range(document.blockCount()):
        block = document.findBlockByNumber(number)
        backgrounds[block.text()[:1]] = block.blockFormat().background()
    added, removed, context = backgrounds["+"], backgrounds["-"], backgrounds[" "]
    assert context.style() == Qt.BrushStyle.NoBrush
    assert added.style() == removed.style() == Qt.BrushStyle.SolidPattern
    assert added.color().green() > added.color().red()  # green-ish
    assert removed.color().red() > removed.color().green()  # red-ish
    assert "[MEMORY]" in tab.timeline.detail.body.toPlainText()  # the Dream's analysis


def test_revert_of_a_dream_commit_changes_the_file_and_adds_a_revert_commit(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, tab: MemoryTab
) -> None:
    sha = dream_commit(workspace, "- fact 5\n", "- fact 5, revised by Dream\n")
    # a later, unrelated edit must survive the revert
    replace_line(workspace, MEMORY, "- fact 18\n", "- fact 18, edited by Ada\n")
    GitStore(workspace).commit_edit(MEMORY)
    run_async(qtbot, qloop, tab.refreshed_once())
    tab.pages.setCurrentIndex(TIMELINE)
    select(qtbot, tab, sha)
    assert tab.timeline.detail.revert_button.isEnabled()

    tab.timeline.detail.revert_button.click()
    qtbot.waitUntil(lambda: subjects(tab)[0].startswith("revert:"), timeout=10_000)

    text = (workspace / MEMORY).read_text(encoding="utf-8")
    assert "- fact 5\n" in text and "revised by Dream" not in text
    assert "- fact 18, edited by Ada\n" in text
    log = GitStore(workspace).log(limit=2)
    assert log[0].subject == "revert: dream: 2026-05-01 10:00, 1 change(s)"
    assert sha in log[0].body
    assert tab.timeline.notice.tone == "success" and "Undid" in tab.timeline.notice.text
    assert tab.timeline.commits.selected_sha() == log[0].sha  # the new commit is selected
    # the Memory files page shows the reverted text too
    assert "revised by Dream" not in tab.files.editor(MEMORY).toPlainText()

    tab.timeline.notice.trigger("Undo the revert")
    qtbot.waitUntil(lambda: subjects(tab)[0].startswith("revert: revert:"), timeout=10_000)
    assert "revised by Dream" in (workspace / MEMORY).read_text(encoding="utf-8")


def test_conflicting_revert_changes_nothing_and_explains_why(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, tab: MemoryTab
) -> None:
    sha = dream_commit(workspace, "- fact 5\n", "- fact 5, revised by Dream\n")
    replace_line(workspace, MEMORY, "- fact 5, revised by Dream\n", "- fact 5, then by Ada\n")
    later = GitStore(workspace).commit_edit(MEMORY)
    assert later is not None
    run_async(qtbot, qloop, tab.refreshed_once())
    before_text = (workspace / MEMORY).read_text(encoding="utf-8")
    before_log = [c.sha for c in GitStore(workspace).log(limit=None)]
    tab.pages.setCurrentIndex(TIMELINE)
    select(qtbot, tab, sha)

    tab.timeline.detail.revert_button.click()
    qtbot.waitUntil(lambda: tab.timeline.notice.isVisible(), timeout=10_000)

    notice = tab.timeline.notice
    assert notice.tone == "error"
    assert "memory/MEMORY.md" in notice.text and "same lines" in notice.text
    assert later[:7] in notice.text and "edit: memory/MEMORY.md" in notice.text
    assert "Nothing was changed" in notice.text
    assert (workspace / MEMORY).read_text(encoding="utf-8") == before_text
    assert [c.sha for c in GitStore(workspace).log(limit=None)] == before_log
    assert tab.timeline.commits.selected_sha() == sha


def test_first_commit_cannot_be_reverted(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, tab: MemoryTab
) -> None:
    tab.pages.setCurrentIndex(TIMELINE)
    root = tab.timeline.commits.commits()[-1]
    assert root.subject.startswith("init:")
    tab.timeline.commits.select_sha(root.sha)
    assert not tab.timeline.detail.revert_button.isEnabled()


def test_dream_now_waits_for_the_agent(tab: MemoryTab) -> None:
    bar = tab.timeline.dream_bar
    assert not bar.dream_button.isEnabled()
    assert "once the agent has connected" in bar.status.text()
    assert bar.start() is None


def test_the_dream_cursor_reads_as_a_sentence(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, tab: MemoryTab
) -> None:
    from desktop.core.memory.store import MemoryStore

    MemoryStore(workspace).dream_cursor = 5
    sha = dream_commit(workspace, "- fact 7\n", "- fact 7 (Dream)\n")
    run_async(qtbot, qloop, tab.refreshed_once())
    select(qtbot, tab, sha)
    text = tab.timeline.detail.diff.toPlainText()
    assert "memory/.dream_cursor   Dream has read the history up to #5 (was #3)" in text
    assert "No newline at end of file" not in text.split("memory/MEMORY.md")[0]
