"""The Dream review page, pinning from the files view, and the tray while a proposal waits."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor
from pytestqt.qtbot import QtBot

from desktop.core.assembly import build_runtime
from desktop.core.memory.git_store import GitStore
from desktop.core.memory.pins import PinStore
from desktop.core.memory.proposal import Proposal, ProposalStore, ProposedFile, now_iso
from desktop.core.memory.store import MemoryStore
from desktop.ui.memory import MemoryTab
from desktop.ui.memory.memory_tab import REVIEW, TIMELINE
from desktop.ui.memory.proposal_watch import ProposalWatch
from desktop.ui.services import AppServices
from desktop.ui.tray import Tray
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.typed import present
from tests.ui.conftest import run_async
from tests.ui.memory.conftest import MEMORY
from tests.ui.memory.test_dream_now import edit

NAME = "memory/MEMORY.md"
USER = "# User\n\n- Name: Ada\n"


def store_proposal(ws: Path) -> Proposal:
    """A proposal as a review-mode Dream leaves it: three changes in two files."""
    after = MEMORY.replace("- fact 2\n", "- fact 2\n- Ada lives in Lisbon\n").replace(
        "- fact 15\n", "- fact 15 (corrected)\n"
    )
    proposal = Proposal(
        now_iso(),
        4,
        5,
        "[MEMORY] Ada moved to Lisbon\n[MEMORY] fact 15 was wrong\n[USER] Prefers metric units",
        (
            ProposedFile(NAME, MEMORY, after),
            ProposedFile("USER.md", USER, USER + "- Prefers metric units\n"),
        ),
    )
    ProposalStore(ws).save(proposal)
    return proposal


def test_a_pending_proposal_is_shown_and_accepted_without_an_unticked_hunk(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, services: AppServices
) -> None:
    proposal = store_proposal(workspace)  # on disk before the tab exists (as after a restart)
    tab = MemoryTab(services)
    tab.resize(1024, 700)
    tab.show()
    qtbot.waitExposed(tab)
    try:
        counts: list[int] = []
        tab.proposalChanged.connect(counts.append)
        run_async(qtbot, qloop, tab.refreshed_once())
        assert counts == [3]
        assert tab.pages.isTabVisible(REVIEW) and tab.pages.tabText(REVIEW) == "Dream review (3)"
        assert "Dream proposes 3 changes" in tab.notice.text
        tab.notice.trigger("Review")
        assert tab.pages.currentIndex() == REVIEW
        review = tab.review
        assert review.title.text() == "Dream proposes 3 changes"
        assert "history entries 4..5" in review.subtitle.text()
        assert review.analysis.toPlainText() == proposal.analysis
        items = review.hunk_items()
        assert len(items) == 3 and all(i.checkState(0) == Qt.CheckState.Checked for i in items)
        lisbon, fact15 = proposal.hunks[NAME]

        review.set_hunk_checked(fact15.id, False)  # the person rejects one change
        assert review.selection() == {
            NAME: [lisbon.id],
            "USER.md": [proposal.hunks["USER.md"][0].id],
        }
        assert "left out (unticked)" in review.diff.toPlainText()
        review.accept_selected_button.click()
        qtbot.waitUntil(lambda: not tab.pages.isTabVisible(REVIEW), timeout=10_000)

        text = (workspace / NAME).read_text(encoding="utf-8")
        assert "- Ada lives in Lisbon\n" in text and "(corrected)" not in text
        head = GitStore(workspace).log(limit=1)[0]
        assert head.subject.startswith("dream: ") and head.subject.endswith("2 change(s)")
        patch = "\n".join(d.patch for d in GitStore(workspace).show(head.sha))
        assert "+- Ada lives in Lisbon" in patch and "+- Prefers metric units" in patch
        assert "corrected" not in patch
        assert "Rejected:\n- memory/MEMORY.md: + - fact 15 (corrected)" in head.body
        assert MemoryStore(workspace).dream_cursor == 5
        assert not ProposalStore(workspace).exists()
        assert tab.pages.currentIndex() == TIMELINE
        assert counts == [3, 0]
        assert "Accepted 2 of 3 proposed change(s)" in tab.timeline.notice.text
    finally:
        run_async(qtbot, qloop, tab.aclose())
        tab.close()
        tab.deleteLater()


def test_reject_all_changes_nothing(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, tab: MemoryTab
) -> None:
    store_proposal(workspace)
    run_async(qtbot, qloop, tab.refreshed_once())
    commits = len(GitStore(workspace).log(limit=None))
    outcome = run_async(qtbot, qloop, tab.review.reject())
    assert outcome is not None and outcome.status == "rejected"
    assert (workspace / NAME).read_text(encoding="utf-8") == MEMORY
    assert len(GitStore(workspace).log(limit=None)) == commits
    assert MemoryStore(workspace).dream_cursor == 5
    qtbot.waitUntil(lambda: not tab.pages.isTabVisible(REVIEW), timeout=10_000)


def test_nothing_ticked_is_not_an_accept(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, tab: MemoryTab
) -> None:
    proposal = store_proposal(workspace)
    run_async(qtbot, qloop, tab.refreshed_once())
    for hunks in proposal.hunks.values():
        for hunk in hunks:
            tab.review.set_hunk_checked(hunk.id, False)
    assert run_async(qtbot, qloop, tab.review.accept(tab.review.selection())) is None
    assert "No change is ticked" in tab.review.notice.text
    assert ProposalStore(workspace).exists()


def test_edit_a_file_of_the_proposal(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, tab: MemoryTab
) -> None:
    store_proposal(workspace)
    run_async(qtbot, qloop, tab.refreshed_once())
    review = tab.review
    review.tree.setCurrentItem(present(review.tree.topLevelItem(1)))  # USER.md
    editor = review.edit_current()
    assert editor is not None and editor.isVisible()
    assert editor.editor.toPlainText() == USER + "- Prefers metric units\n"
    editor.editor.setPlainText(USER + "- Prefers metric units (km, kg)\n")
    editor.accept()
    qtbot.waitUntil(
        lambda: "(edited by you)" in present(review.tree.topLevelItem(1)).text(0), timeout=10_000
    )
    stored = ProposalStore(workspace).load()
    assert stored is not None and stored.file("USER.md").edited
    run_async(qtbot, qloop, review.accept(None))
    assert (workspace / "USER.md").read_text(encoding="utf-8").endswith("(km, kg)\n")


def test_pin_a_line_from_the_files_view(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, tab: MemoryTab
) -> None:
    files = tab.files
    editor = files.editor(NAME)
    block = editor.document().findBlockByNumber(3)  # "- fact 2"
    cursor = QTextCursor(block)
    editor.setTextCursor(cursor)
    files._context_menu(NAME, editor.cursorRect(cursor).center())
    menu = files._menu
    assert menu is not None
    action = next(a for a in menu.actions() if a.text().startswith("Pin this line"))
    action.trigger()
    menu.hide()
    qtbot.waitUntil(lambda: files.pins.texts() == ["- fact 2"], timeout=10_000)
    assert [(p.path, p.text) for p in PinStore(workspace).load()] == [(NAME, "- fact 2")]
    assert len(editor.extraSelections()) == 1
    assert "Pinned “- fact 2”" in files.notice.text
    data = json.loads((workspace / "memory" / ".pins.json").read_text(encoding="utf-8"))
    assert data["pins"][0]["line"] == "- fact 2"

    # an edit of the pinned line through the app moves the pin with it
    run_async(qtbot, qloop, tab.refreshed_once())
    editor.setPlainText(MEMORY.replace("- fact 2\n", "- fact two\n"))
    editor.document().setModified(True)
    run_async(qtbot, qloop, files.save(NAME))
    assert [p.text for p in PinStore(workspace).load()] == ["- fact two"]
    assert "now holds “- fact two”" in files.notice.text
    qtbot.waitUntil(lambda: files.pins.texts() == ["- fact two"], timeout=10_000)

    # the context menu on a pinned line offers Unpin
    block = editor.document().findBlockByNumber(3)
    editor.setTextCursor(QTextCursor(block))
    files._context_menu(NAME, editor.cursorRect(QTextCursor(block)).center())
    assert files._menu is not None
    unpin = next(a for a in files._menu.actions() if a.text() == "Unpin this line")
    unpin.trigger()
    files._menu.hide()
    qtbot.waitUntil(lambda: files.pins.texts() == [], timeout=10_000)
    assert PinStore(workspace).load() == []


def test_the_tray_shows_a_pending_proposal_and_offers_the_review(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, services: AppServices
) -> None:
    tray = Tray()
    watch = ProposalWatch(services)
    watch.changed.connect(tray.set_dream_review)
    try:
        watch.start()
        qtbot.wait(200)
        assert tray.state == "idle" and "Review Dream changes" not in tray.action_texts()
        store_proposal(workspace)
        qtbot.waitUntil(lambda: tray.state == "attention", timeout=10_000)
        assert tray.badge == "!"
        assert "Dream proposes 3 changes to review" in tray.icon.toolTip()
        assert tray.action_texts()[:3] == ["Show nanobot", "New chat", "Review Dream changes"]
        with qtbot.waitSignal(tray.reviewDreamRequested, timeout=2_000):
            tray.action("Review Dream changes").trigger()
        ProposalStore(workspace).delete()
        qtbot.waitUntil(lambda: tray.state == "idle", timeout=10_000)
        assert "Review Dream changes" not in tray.action_texts()
    finally:
        run_async(qtbot, qloop, watch.aclose())
        tray.hide()
        tray.menu.deleteLater()


def test_dream_now_in_review_mode_ends_on_the_review_page(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    workspace: Path,
    services: AppServices,
    scripted_server: ScriptedOpenAIServer,
    tab: MemoryTab,
) -> None:
    """The runtime reads the setting per run; the proposal shows up without a restart."""
    review = {"on": True}
    runtime = build_runtime(
        services.config, make_provider(scripted_server.url), dream_review=lambda: review["on"]
    )
    services.set_runtime(runtime)
    scripted_server.route = lambda body: None if body.get("tools") else Reply("[MEMORY] Lisbon")
    scripted_server.push(
        Reply(tool_calls=[edit(NAME, "- fact 2\n", "- fact 2\n- Ada lives in Lisbon\n")]),
        Reply("Updated MEMORY.md."),
    )
    commits = len(GitStore(workspace).log(limit=None))
    tab.pages.setCurrentIndex(TIMELINE)
    bar = tab.timeline.dream_bar
    bar.dream_button.click()
    qtbot.waitUntil(lambda: tab.pages.isTabVisible(REVIEW), timeout=60_000)
    assert "Dream proposes 1 change(s)" in tab.timeline.notice.text
    assert tab.timeline.notice.tone == "info"
    assert tab.review.title.text() == "Dream proposes 1 change"
    assert (workspace / NAME).read_text(encoding="utf-8") == MEMORY  # nothing written yet
    assert len(GitStore(workspace).log(limit=None)) == commits
    # a second run is refused while the proposal waits
    qtbot.waitUntil(lambda: not bar.running, timeout=10_000)
    bar.dream_button.click()
    qtbot.waitUntil(
        lambda: "still waiting for your review" in tab.timeline.notice.text, timeout=10_000
    )
    assert tab.timeline.notice.tone == "warning"  # type: ignore[comparison-overlap]  # mypy keeps the narrowing above
