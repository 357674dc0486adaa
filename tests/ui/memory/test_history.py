"""The history log: newest first, marker on entries Dream has not consumed, search."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pytestqt.qtbot import QtBot

from desktop.core.bus.events import TurnFinished
from desktop.core.memory.store import MemoryStore
from desktop.ui.memory import MemoryTab
from desktop.ui.memory.history_model import MARK, PENDING_TIP, PendingRole
from desktop.ui.memory.memory_tab import HISTORY
from tests.ui.conftest import run_async


def test_newest_first_with_pending_marker(tab: MemoryTab) -> None:
    view = tab.history
    assert [e.cursor for e in view.visible_entries()] == [5, 4, 3, 2, 1]
    model = view.proxy
    pending = [model.index(r, 0).data(PendingRole) for r in range(model.rowCount())]
    assert pending == [True, True, False, False, False]  # .dream_cursor is 3
    marker = model.index(0, MARK)
    assert marker.data(0x0003) == PENDING_TIP  # tooltip
    assert marker.data(0x0001) is not None  # the dot icon
    assert model.index(4, MARK).data(0x0001) is None
    assert "2 not yet processed by Dream" in view.summary.text()
    assert tab.pages.tabText(HISTORY) == "History log (2 new)"
    assert "2 history entries waiting for Dream" in tab.timeline.dream_bar.status.text()


def test_search_filters_and_pending_switch(qtbot: QtBot, tab: MemoryTab) -> None:
    view = tab.history
    view.search.setText("ada")
    assert [e.cursor for e in view.visible_entries()] == [4, 2]
    assert view.summary.text().endswith("2 shown")
    view.search.setText("#3")
    assert [e.cursor for e in view.visible_entries()] == [3]
    view.search.setText("nothing like this")
    assert view.visible_entries() == []
    assert view._stack.currentWidget() is view._empty and "No entries match" in view._empty.text()
    view.search.clear()
    view.pending_only.setChecked(True)
    assert [e.cursor for e in view.visible_entries()] == [5, 4]
    view.pending_only.setChecked(False)
    assert len(view.visible_entries()) == 5


def test_selecting_shows_the_whole_entry(tab: MemoryTab) -> None:
    tab.history.select_cursor(4)
    text = tab.history.detail.toPlainText()
    assert text.startswith("#4") and "not yet processed" in text.lower()
    assert "Ada prefers metric units.\nAnd tea." in text


def test_new_entries_appear_after_a_turn(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, tab: MemoryTab
) -> None:
    MemoryStore(workspace).append_history("A brand-new entry.")
    tab.history.search.setText("brand-new")
    tab.services.bridge.deliver(TurnFinished("t1", "desktop:1", "done"))
    qtbot.waitUntil(lambda: len(tab.history.visible_entries()) == 1, timeout=5_000)
    assert tab.history.visible_entries()[0].cursor == 6
    assert tab.history.search.text() == "brand-new"  # the search survives the refresh


def test_empty_history_explains_itself(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, tab: MemoryTab
) -> None:
    (workspace / "memory" / "history.jsonl").write_text("", encoding="utf-8")
    run_async(qtbot, qloop, tab.refreshed_once())
    assert tab.history._stack.currentWidget() is tab.history._empty
    assert "No history yet" in tab.history._empty.text()


def test_the_empty_history_says_what_really_archives_a_chat(qtbot: QtBot) -> None:
    """The window never summarises a chat "when a new chat starts": the hint names what does
    (the context window, /new, the chat menu's action, spelt as the menu spells it)."""
    from desktop.ui.chat.archive_action import LABEL
    from desktop.ui.memory.history_view import HistoryView

    view = HistoryView()
    qtbot.addWidget(view)
    text = view._empty.text()
    assert "new chat starts" not in text
    assert "context window" in text and "/new" in text and f"“{LABEL}”" in text
