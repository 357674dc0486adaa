"""The review page never offers a proposal Dream did not write, and never writes what Dream may
not change (issue #20), on the real files of a workspace at ``$HOME/.nanobot/workspace``."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from desktop.core.memory.proposal import PROPOSAL_FILE, ProposalStore
from desktop.ui.memory import MemoryTab
from desktop.ui.memory.memory_tab import FILES, REVIEW
from desktop.ui.memory.proposal_watch import ProposalWatch
from desktop.ui.memory.review_view import REFUSED_TITLE
from desktop.ui.services import AppServices
from desktop.ui.tray import Tray
from tests.core.memory.dreaming import USER
from tests.core.memory.test_proposal_guard import (
    entry,
    make_workspace,
    plant,
    plant_links,
    recorded_with_attacks,
    state,
    targets,
)
from tests.typed import present
from tests.ui.conftest import run_async
from tests.ui.memory.conftest import make_services


@pytest.fixture
def ws(isolated_env: Path) -> Path:
    return make_workspace(isolated_env)


@pytest.fixture
def guard_tab(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, ws: Path, tmp_path: Path
) -> Iterator[MemoryTab]:
    """A shown Memory tab on ``ws`` (refreshed by the test itself)."""
    widget = MemoryTab(make_services(ws, tmp_path))
    widget.resize(1024, 700)
    widget.show()
    qtbot.waitExposed(widget)
    yield widget
    run_async(qtbot, qloop, widget.aclose())
    widget.close()
    widget.deleteLater()


def test_refused_entries_are_listed_and_never_written(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, ws: Path, guard_tab: MemoryTab
) -> None:
    recorded_with_attacks(ws)
    plant_links(ws)
    before = state(ws)
    run_async(qtbot, qloop, guard_tab.refreshed_once())
    review = guard_tab.review
    assert guard_tab.pages.isTabVisible(REVIEW)
    refused = review.refused_labels()
    assert len(refused) == 9
    assert "memory/MEMORY.md: it is a symbolic link, which is not followed; not written" in refused
    assert "../../.bashrc: it has an empty, '.' or '..' component" in refused
    assert any(label.startswith("cron/jobs.json: Dream may only change") for label in refused)
    assert "9 file entries refused (listed last): never written" in review.subtitle.text()
    assert review.notice.tone == "warning"
    assert review.notice.text.startswith("9 file entries of this proposal name files Dream may")
    # the refused entries have no check box; selecting one explains it
    top = review.tree.topLevelItem(review.tree.topLevelItemCount() - 1)
    assert top is not None and not (top.flags() & Qt.ItemFlag.ItemIsUserCheckable)
    review.tree.setCurrentItem(top)
    assert review.diff.toPlainText().startswith("Refused: ")
    assert review.current_path() is None and review.edit_current() is None

    outcome = run_async(qtbot, qloop, review.accept(None))
    assert outcome is not None and outcome.files == ("USER.md",)
    assert len(outcome.refused) == 9
    after = state(ws)
    assert after.pop(str(ws / "USER.md")) == USER + "- Prefers tea\n"
    before.pop(str(ws / "USER.md"))
    assert after == before
    assert "9 file entries refused, not written:" in guard_tab.timeline.notice.text
    assert guard_tab.timeline.notice.tone == "warning"


def test_a_planted_proposal_is_refused_not_offered(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, ws: Path, guard_tab: MemoryTab
) -> None:
    """Review mode is off and no Dream ran: the planted file is set aside, the page says why,
    offers nothing to accept, and Dismiss closes it."""
    plant(ws, [entry(ws, raw, target) for raw, target in targets(ws).items()])
    before = state(ws)
    counts: list[int] = []
    guard_tab.proposalChanged.connect(counts.append)
    run_async(qtbot, qloop, guard_tab.refreshed_once())

    review = guard_tab.review
    assert review.proposal is None and counts == []
    assert guard_tab.pages.isTabVisible(REVIEW)
    assert guard_tab.pages.tabText(REVIEW) == "Dream review"
    assert "was found and refused" in guard_tab.notice.text
    guard_tab.notice.trigger("Details")
    assert guard_tab.pages.currentIndex() == REVIEW
    assert review.title.text() == REFUSED_TITLE
    assert "Dream did not write it (no record of a Dream run matches it)" in review.subtitle.text()
    assert "unrecorded-" in review.subtitle.text()
    assert review.tree.topLevelItemCount() == 0
    for button in (review.accept_all_button, review.accept_selected_button, review.reject_button):
        assert not button.isEnabled()
    assert review.dismiss_button.isVisible()
    assert not (ws / PROPOSAL_FILE).exists()
    assert list((ws / "memory").glob(".dream_proposal.json.unrecorded-*"))
    assert state(ws) == before

    run_async(qtbot, qloop, guard_tab.refreshed_once())  # stays until dismissed
    assert review.title.text() == REFUSED_TITLE
    review.dismiss_button.click()
    qtbot.waitUntil(lambda: not guard_tab.pages.isTabVisible(REVIEW), timeout=10_000)
    assert guard_tab.pages.currentIndex() == FILES


def test_the_tray_never_offers_a_planted_proposal(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, ws: Path, tmp_path: Path
) -> None:
    services: AppServices = make_services(ws, tmp_path)
    tray = Tray()
    watch = ProposalWatch(services)
    watch.changed.connect(tray.set_dream_review)
    try:
        watch.start()
        recorded = ProposalStore(ws)
        plant(ws, [entry(ws, "USER.md", ws / "USER.md")])
        run_async(qtbot, qloop, watch._check())
        assert watch.count == 0 and tray.state == "idle"
        assert "Review Dream changes" not in tray.action_texts()
        assert (ws / PROPOSAL_FILE).exists()  # a quick look moves nothing
        recorded_with_attacks(ws)  # Dream's own (recorded) proposal is offered
        qtbot.waitUntil(lambda: tray.state == "attention", timeout=10_000)
        assert watch.count == present(recorded.load(set_aside=False)).change_count
    finally:
        run_async(qtbot, qloop, watch.aclose())
        tray.hide()
        tray.menu.deleteLater()
