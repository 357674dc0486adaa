"""The core's memory messages in the window's language (issue #25 §6, round 2).

Each test brings a message about for real (an accept where a change no longer applies, a
reject, a revert that clashes with a later change, one with nothing left to undo, a damaged
pins file, an edit made outside the app) and checks that the English is the same as before,
that the pseudo locale shows it bracketed (no English outside ``⟦…⟧`` apart from data), and
that the zh_CN translation shows Chinese. The last test walks the family of Dream's result
sentences, so a new f-string message there fails it.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pygit2
from pytestqt.qtbot import QtBot

from desktop.core.memory.dream import _kept, _summary
from desktop.core.memory.dream_result import PENDING_MESSAGE, pins_note, stop_note
from desktop.core.memory.git_store import GitStore
from desktop.core.memory.pins import PinStore
from desktop.core.memory.proposal import ProposalStore, ProposedFile
from desktop.core.memory.review import NO_PROPOSAL, reject_proposal
from desktop.core.utils.i18n import Phrase
from desktop.ui.i18n import install_language, localized
from desktop.ui.memory import MemoryTab
from desktop.ui.memory.memory_tab import TIMELINE
from tests.ui.conftest import run_async
from tests.ui.i18n.pseudo import _english, pseudo_locale
from tests.ui.memory.conftest import dream_commit, make_services, replace_line
from tests.ui.memory.test_review import store_proposal

NAME = "memory/MEMORY.md"


def english(text: str, *data: str) -> str:
    """The English wording of ``text`` outside ``⟦…⟧``, ``data`` aside."""
    return _english(text, frozenset(data))


def test_an_accept_with_a_stale_change_is_shown_in_the_window_language(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, tab: MemoryTab
) -> None:
    store_proposal(workspace)
    replace_line(workspace, NAME, "- fact 15\n", "- fact 15, edited by Ada\n")  # stale hunk
    run_async(qtbot, qloop, tab.refreshed_once())
    with pseudo_locale():
        outcome = run_async(qtbot, qloop, tab.review.accept(None))
        assert outcome is not None and outcome.commit is not None
        assert (
            outcome.message
            == (  # the English is what it was
                f"Accepted 2 of 3 proposed change(s) ({NAME}, USER.md), committed as "
                f"{outcome.commit[:7]}. 1 could not be applied because the file changed since "
                f"Dream ran: {outcome.not_applicable[0]}."
            )
        )
        qtbot.waitUntil(lambda: tab.pages.currentIndex() == TIMELINE, timeout=10_000)
        shown = tab.timeline.notice.text
        assert shown.startswith("⟦Accepted") and "⟦ 1 could not be applied" in shown
        assert not english(shown, NAME, *outcome.not_applicable), shown


def test_a_reject_is_shown_in_chinese(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, tab: MemoryTab
) -> None:
    store_proposal(workspace)
    run_async(qtbot, qloop, tab.refreshed_once())
    assert install_language("zh_CN") == "zh_CN"
    try:
        outcome = run_async(qtbot, qloop, tab.review.reject())
        assert outcome is not None
        assert outcome.message == (
            "Rejected Dream's proposal; nothing was changed. History entries 4..5 count as "
            "read, so Dream will not propose them again."
        )
        qtbot.waitUntil(lambda: bool(tab.files.notice.text), timeout=10_000)
        assert "已拒绝梦境整理的建议" in tab.files.notice.text
        assert "4..5" in tab.files.notice.text
        nothing = reject_proposal(workspace)  # none pending any more: the fixed text
        assert nothing.message == NO_PROPOSAL and localized(nothing.message) != NO_PROPOSAL
    finally:
        install_language("en")


def test_a_revert_conflict_is_explained_in_the_window_language(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, tab: MemoryTab
) -> None:
    sha = dream_commit(workspace, "- fact 5\n", "- fact 5, revised by Dream\n")
    replace_line(workspace, NAME, "- fact 5, revised by Dream\n", "- fact 5, then by Ada\n")
    later = GitStore(workspace).commit_edit(NAME)
    assert later is not None
    run_async(qtbot, qloop, tab.refreshed_once())
    subjects = ("dream: 2026-05-01 10:00, 1 change(s)", f"edit: {NAME}", NAME)
    with pseudo_locale():
        assert run_async(qtbot, qloop, tab.timeline.revert(sha)) is None
        shown = tab.timeline.notice.text
        assert shown.startswith("⟦Cannot undo") and "⟦Nothing was changed." in shown
        assert not english(shown, *subjects), shown
    assert install_language("zh_CN") == "zh_CN"
    try:
        assert run_async(qtbot, qloop, tab.timeline.revert(sha)) is None
        shown = tab.timeline.notice.text
        assert "无法撤销" in shown and "未做任何改动" in shown and later[:7] in shown
    finally:
        install_language("en")


def test_a_revert_with_nothing_left_to_undo_is_refused_in_the_window_language(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, tab: MemoryTab
) -> None:
    sha = dream_commit(workspace, "- fact 5\n", "- fact 5, revised by Dream\n")
    replace_line(workspace, NAME, "- fact 5, revised by Dream\n", "- fact 5\n")  # undone by hand
    assert GitStore(workspace).commit_edit(NAME) is not None
    run_async(qtbot, qloop, tab.refreshed_once())
    with pseudo_locale():
        assert run_async(qtbot, qloop, tab.timeline.revert(sha)) is None
        shown = tab.timeline.notice.text
        assert shown.startswith("⟦nothing to undo")
        assert not english(shown, "dream: 2026-05-01 10:00, 1 change(s)"), shown
    assert install_language("zh_CN") == "zh_CN"
    try:
        assert run_async(qtbot, qloop, tab.timeline.revert(sha)) is None
        assert "无可撤销" in tab.timeline.notice.text
    finally:
        install_language("en")


def test_the_pins_warning_is_shown_in_the_window_language(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, tab: MemoryTab
) -> None:
    pins = PinStore(workspace)
    pins.path.parent.mkdir(parents=True, exist_ok=True)
    pins.path.write_text('{"version": 1, "pins": "not a list"}', encoding="utf-8")
    with pseudo_locale():
        run_async(qtbot, qloop, tab.refreshed_once())
        shown = tab.notice.text
        assert shown.startswith("⟦Memory history: ⟦The pinned lines in")
        assert "⟦it does not hold a list of pins⟧" in shown
        kept = [p.name for p in pins.path.parent.iterdir() if ".corrupt" in p.name]
        assert kept and f"⟦it was kept as {kept[0]}⟧" in shown
        assert not english(shown, str(pins.path), *kept), shown
    assert tab.notice.text.replace("⟦", "").replace("⟧", "") == (  # the English as it was
        f"Memory history: The pinned lines in {pins.path} could not all be read (it does not "
        f"hold a list of pins); it was kept as {kept[0]}. Pins that could not be read are not "
        "enforced."
    )


def test_every_dream_result_sentence_is_a_phrase_shown_translated(
    qtbot: QtBot, tmp_path: Path
) -> None:
    class Limits:
        token_budget = 20_000
        max_iterations = 8

    family: list[str] = [
        PENDING_MESSAGE,
        *(stop_note(reason, Limits()) for reason in ("budget", "max_iterations", "empty")),
        pins_note([f"{NAME}: - fact 1"]),
        _kept([NAME]),
        _summary("answer", [NAME], "abcdef1234", Limits()),  # type: ignore[arg-type]
        _summary("budget", [], None, Limits()),  # type: ignore[arg-type]
    ]
    with pseudo_locale():
        for message in family:
            assert isinstance(message, Phrase), message
            shown = localized(message)
            assert shown.startswith("⟦"), shown
            assert not english(shown, NAME, "abcdef1"), shown
    assert install_language("zh_CN") == "zh_CN"
    try:
        assert localized(family[1]) == "提前停止：令牌预算（20000）已用完。"
        assert (
            localized(family[-1])
            == "梦境整理做了 0 处修改（无文件）。提前停止：令牌预算（20000）已用完。"
        )
    finally:
        install_language("en")


def test_a_refused_entry_of_a_real_proposal_is_explained_in_the_window_language(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, tab: MemoryTab
) -> None:
    proposal = store_proposal(workspace)
    outside = ProposedFile("notes/plan.md", "", "- a plan\n")  # Dream may not change it
    ProposalStore(workspace).save(replace(proposal, files=(*proposal.files, outside)))
    loaded = ProposalStore(workspace).load()
    assert loaded is not None and [r.label for r in loaded.refused] == [
        "notes/plan.md: Dream may only change SOUL.md, USER.md, memory/MEMORY.md and files of "
        "workspace skills (skills/<name>/…)"
    ]
    with pseudo_locale():
        run_async(qtbot, qloop, tab.refreshed_once())
        review = tab.review
        items = [review.tree.topLevelItem(i) for i in range(review.tree.topLevelItemCount())]
        refused = [item for item in items if item is not None and "notes/plan.md" in item.text(0)]
        assert len(refused) == 1
        text = refused[0].text(0)
        assert "⟦Dream may only change" in text, text
        assert not english(text, "notes/plan.md", "skills/<name>/…"), text
        review.tree.setCurrentItem(refused[0])
        shown = review.diff.toPlainText()
        assert "⟦Dream may only change" in shown
        assert not english(shown, "notes/plan.md", "skills/<name>/…"), shown


def test_memory_history_off_inside_another_repository_reads_in_the_window_language(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    outer = tmp_path / "project"
    pygit2.init_repository(str(outer))
    ws = outer / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "memory" / "MEMORY.md").write_text("# Memory\n", encoding="utf-8")
    off = GitStore(ws).off_reason()
    assert off is not None and off.startswith(
        f"Memory history is off: this workspace lies inside the git repository {outer}, "
    )
    tab = MemoryTab(make_services(ws, tmp_path))
    tab.show()
    qtbot.waitExposed(tab)
    try:
        with pseudo_locale():
            run_async(qtbot, qloop, tab.refreshed_once())
            shown = tab.notice.text
            assert shown.startswith("⟦Memory history is off:"), shown
            assert not english(shown, str(outer), ".git"), shown
        assert install_language("zh_CN") == "zh_CN"
        try:
            assert localized(off).startswith("记忆历史已关闭：此工作区位于 git 仓库 ")
        finally:
            install_language("en")
    finally:
        run_async(qtbot, qloop, tab.aclose())
        tab.close()
        tab.deleteLater()
