"""Editing the memory files: atomic save, ``edit: <file>`` commits, nothing lost."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pytestqt.qtbot import QtBot

from desktop.core.memory.git_store import GitStore
from desktop.ui.memory import MemoryTab
from tests.ui.conftest import run_async
from tests.ui.memory.conftest import MEMORY, replace_line

NAME = "memory/MEMORY.md"


def test_files_are_shown(tab: MemoryTab, workspace: Path) -> None:
    assert tab.files.editor(NAME).toPlainText() == MEMORY
    assert tab.files.editor("SOUL.md").toPlainText() == "# Soul\n\n- Be brief.\n"
    assert tab.files.editor("USER.md").toPlainText() == "# User\n\n- Name: Ada\n"
    assert not any(tab.files.is_dirty(n) for n in ("memory/MEMORY.md", "SOUL.md", "USER.md"))


def test_editing_memory_commits_edit_memory_md(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, tab: MemoryTab
) -> None:
    editor = tab.files.editor(NAME)
    editor.setPlainText(MEMORY + "- Ada likes green tea\n")
    editor.document().setModified(True)
    assert tab.files.is_dirty(NAME)
    assert tab.files._list.item(0).text().endswith("•")  # unsaved marker

    tab.files.save_button.click()
    qtbot.waitUntil(lambda: not tab.files.is_dirty(NAME), timeout=10_000)

    assert (workspace / NAME).read_text(encoding="utf-8").endswith("- Ada likes green tea\n")
    head = GitStore(workspace).log(limit=1)[0]
    assert head.subject == "edit: memory/MEMORY.md"
    assert head.files_changed == 1 and head.additions == 1
    assert tab.files.notice.tone == "success" and head.short_sha in tab.files.notice.text
    # the timeline shows the new commit once the tab refreshed
    qtbot.waitUntil(lambda: tab.timeline.commits.commits()[0].sha == head.sha, timeout=10_000)
    # no leftover temporary files from the atomic write
    assert not [p for p in (workspace / "memory").iterdir() if p.name.endswith(".tmp")]


def test_an_outside_change_is_recorded_before_the_edit(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, tab: MemoryTab
) -> None:
    (workspace / "SOUL.md").write_text("# Soul\n\n- Be brief.\n- Outside edit.\n", encoding="utf-8")
    run_async(qtbot, qloop, tab.refreshed_once())  # not dirty: the editor follows the disk
    editor = tab.files.editor("SOUL.md")
    assert "Outside edit" in editor.toPlainText()
    editor.setPlainText(editor.toPlainText() + "- In-app edit.\n")
    run_async(qtbot, qloop, tab.files.save("SOUL.md"))
    log = GitStore(workspace).log(limit=2)
    assert [c.subject for c in log] == ["edit: SOUL.md", "edit: SOUL.md"]
    assert log[0].additions == 1  # the in-app commit holds only the in-app line
    assert "outside" in log[1].body


def test_a_change_on_disk_during_editing_keeps_the_edits_and_asks(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, tab: MemoryTab
) -> None:
    editor = tab.files.editor(NAME)
    editor.appendPlainText("- my unsaved line")
    mine = editor.toPlainText()
    replace_line(workspace, NAME, "- fact 3\n", "- fact 3 (Dream)\n")
    run_async(qtbot, qloop, tab.refreshed_once())
    assert editor.toPlainText() == mine  # never overwritten
    assert tab.files.notice.tone == "warning" and "changed on disk" in tab.files.notice.text

    # saving does not silently replace the other change ...
    result = run_async(qtbot, qloop, tab.files.save(NAME))
    assert result is None
    assert "(Dream)" in (workspace / NAME).read_text(encoding="utf-8")
    assert tab.files.notice.action_labels() == ["Save anyway", "Reload (discard my edits)"]
    # ... until asked to: the other change is recorded first, then ours replaces it
    tab.files.notice.trigger("Save anyway")
    qtbot.waitUntil(lambda: not tab.files.is_dirty(NAME), timeout=10_000)
    assert (workspace / NAME).read_text(encoding="utf-8") == mine
    subjects = [c.subject for c in GitStore(workspace).log(limit=2)]
    assert subjects == ["edit: memory/MEMORY.md", "edit: memory/MEMORY.md"]


def test_reload_discards_edits(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, tab: MemoryTab
) -> None:
    editor = tab.files.editor("USER.md")
    tab.files.select("USER.md")
    editor.appendPlainText("- scratch")
    tab.files.reload_button.click()
    qtbot.waitUntil(lambda: not tab.files.is_dirty("USER.md"), timeout=10_000)
    assert editor.toPlainText() == "# User\n\n- Name: Ada\n"


def test_preview_renders_markdown(tab: MemoryTab) -> None:
    tab.files.select("SOUL.md")
    tab.files.preview_button.setChecked(True)
    assert tab.files._pages.currentWidget() is tab.files._preview
    assert "Be brief." in tab.files._preview.toPlainText()
    assert "#" not in tab.files._preview.toPlainText()  # the heading was rendered, not shown raw


def test_changes_on_disk_show_up_by_themselves(
    qtbot: QtBot, workspace: Path, tab: MemoryTab
) -> None:
    """The file watcher refreshes the tab (no turn, no button)."""
    (workspace / "USER.md").write_text("# User\n\n- Name: Ada\n- Outside.\n", encoding="utf-8")
    qtbot.waitUntil(lambda: "Outside." in tab.files.editor("USER.md").toPlainText(), timeout=5_000)


def test_a_missing_workspace_is_explained_and_not_created(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    from tests.ui.memory.conftest import make_services

    missing = tmp_path / "not-yet"
    widget = MemoryTab(make_services(missing, tmp_path))
    widget.show()
    try:
        run_async(qtbot, qloop, widget.refreshed_once())
        assert widget._body.currentWidget() is widget._missing
        assert "does not exist yet" in widget._missing.text()
        assert not missing.exists()
    finally:
        run_async(qtbot, qloop, widget.aclose())
        widget.close()
        widget.deleteLater()
