"""The Memory tab in the pseudo locale: every text it shows went through the translation system.

Each test builds the tab inside :func:`pseudo_locale`, brings it into the states that show
text (files, pins, conflicts, history, timeline, Dream runs, the review page and its editor)
and asks :func:`untranslated` for what is shown without the ``⟦…⟧`` brackets. Texts that the
check does not walk (tree and list items, model roles, the diff documents) are checked one by
one with the same rule. A last test installs the real zh_CN translation.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QListWidget, QTreeWidget, QWidget
from pytestqt.qtbot import QtBot

from desktop.core.memory.dream_result import PENDING_MESSAGE, DreamResult
from desktop.core.memory.git_types import FileDiff
from desktop.core.memory.proposal import Proposal, RefusedFile
from desktop.ui.i18n import install_language
from desktop.ui.memory import MemoryTab
from desktop.ui.memory.diff_view import dream_cursor_note
from desktop.ui.memory.dream_bar import DreamCancelled
from desktop.ui.memory.history_model import MARK
from desktop.ui.memory.memory_tab import HISTORY, REVIEW, TIMELINE
from desktop.ui.services import AppServices
from tests.typed import present
from tests.ui.conftest import run_async
from tests.ui.i18n.pseudo import _english, pseudo_locale, untranslated
from tests.ui.memory.conftest import dream_commit, make_services, replace_line
from tests.ui.memory.test_review import store_proposal

NAME = "memory/MEMORY.md"
FILES = (NAME, "SOUL.md", "USER.md")


def english(texts: Iterable[str], allow: Iterable[str] = ()) -> list[str]:
    """The texts that show English wording outside ``⟦…⟧`` (the rule of :func:`untranslated`)."""
    allowed = frozenset(allow)
    return [text for text in texts if text and _english(text, allowed)]


def untranslated_here(
    root: QWidget, allow: Iterable[str] = (), *, skip: Iterable[QWidget] = ()
) -> list[str]:
    """:func:`untranslated`, with list widgets (and their items) checked here: the shared check
    cannot read a ``QListWidget``'s model (PySide6's ``QAbstractListModel.columnCount`` wants
    its parent argument)."""
    lists = [w for w in (root, *root.findChildren(QListWidget)) if isinstance(w, QListWidget)]
    found = untranslated(root, allow, skip=[*skip, *lists])
    for widget in lists:
        items = [widget.item(i) for i in range(widget.count())]
        texts = [widget.toolTip(), widget.accessibleName(), widget.accessibleDescription()]
        texts += [item.text() for item in items] + [item.toolTip() for item in items]
        found += [f"in {type(widget).__name__}: {text!r}" for text in english(texts, allow)]
    return found


def data(tab: MemoryTab, *more: str) -> list[str]:
    """What the tab shows that is data, not wording: file names, the commits' ids and subjects."""
    commits = tab.timeline.commits.commits()
    return [NAME, *more, *(c.short_sha for c in commits), *(c.subject for c in commits)]


def tree_texts(tree: QTreeWidget, columns: int = 1) -> Iterator[str]:
    """Text and tooltip of every item (and child) of ``tree``."""
    for i in range(tree.topLevelItemCount()):
        top = present(tree.topLevelItem(i))
        for item in (top, *(present(top.child(j)) for j in range(top.childCount()))):
            for column in range(columns):
                yield item.text(column)
                yield item.toolTip(column)


@contextmanager
def shown_tab(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, services: AppServices
) -> Iterator[MemoryTab]:
    """A shown, refreshed Memory tab (build it inside ``pseudo_locale()``)."""
    tab = MemoryTab(services)
    tab.resize(1024, 700)
    tab.show()
    qtbot.waitExposed(tab)
    run_async(qtbot, qloop, tab.refreshed_once())
    try:
        yield tab
    finally:
        run_async(qtbot, qloop, tab.aclose())
        tab.close()
        tab.deleteLater()


def test_the_files_page_shows_no_untranslated_text(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, services: AppServices
) -> None:
    (workspace / "USER.md").unlink()  # a file that does not exist yet has its own placeholder
    with pseudo_locale(), shown_tab(qtbot, qloop, services) as tab:
        files = tab.files
        for name in FILES:
            files.select(name)
            assert untranslated_here(tab, allow=data(tab)) == []
        # pins: one whose line is there, one whose line is gone; the panel lists both
        run_async(qtbot, qloop, files.pin(NAME, "- fact 1"))
        assert untranslated_here(files, allow=data(tab)) == []
        run_async(qtbot, qloop, files.pin(NAME, "- fact 2"))
        replace_line(workspace, NAME, "- fact 2\n", "- fact II\n")
        run_async(qtbot, qloop, tab.refreshed_once())
        files.select(NAME)
        qtbot.waitUntil(lambda: files.pins.list.count() == 2)
        assert untranslated_here(files, allow=data(tab, "- fact 1", "- fact 2")) == []
        pins = [files.pins.list.item(i) for i in range(files.pins.list.count())]
        labels = [item.text() for item in pins] + [item.toolTip() for item in pins]
        assert english(labels, allow=["- fact 1", "- fact 2"]) == []
        assert "⟦{line}   (not in the file now)⟧" not in labels  # the field was filled in
        # the editor's context menu (Pin / Unpin) and the unpin notice
        editor = files.editor(NAME)
        editor.setTextCursor(QTextCursor(editor.document().findBlockByNumber(2)))  # "- fact 1"
        files._context_menu(NAME, editor.cursorRect().center())
        menu = present(files._menu)
        assert untranslated_here(menu) == []
        menu.hide()
        run_async(qtbot, qloop, files.unpin(NAME, "- fact 1"))
        assert untranslated_here(files.notice) == []
        editor.setTextCursor(QTextCursor(editor.document().findBlockByNumber(2)))
        files._context_menu(NAME, QPoint(4, 4))
        assert untranslated_here(present(files._menu)) == []
        present(files._menu).hide()
        # unsaved edits: the list's marker for screen readers
        editor.setPlainText(editor.toPlainText() + "- new line\n")
        editor.document().setModified(True)
        marked = files._list.item(0).data(Qt.ItemDataRole.AccessibleTextRole)
        assert english([marked], allow=["MEMORY.md"]) == []
        # a change on disk under the edit, then saving over it, then saving
        replace_line(workspace, NAME, "- fact 3\n", "- fact III\n")
        run_async(qtbot, qloop, tab.refreshed_once())
        assert files.notice.action_labels() == ["⟦Reload (discard my edits)⟧", "⟦Keep my edits⟧"]
        assert untranslated_here(files, allow=data(tab)) == []
        assert run_async(qtbot, qloop, files.save(NAME)) is None  # the conflict warning
        assert untranslated_here(files, allow=data(tab)) == []
        assert run_async(qtbot, qloop, files.save(NAME, force=True)) is not None
        assert files.notice.tone == "success"
        assert untranslated_here(files, allow=data(tab)) == []
        assert run_async(qtbot, qloop, files.save("SOUL.md")) is None  # nothing to save
        assert untranslated_here(files.notice) == []
        files.preview_button.click()
        assert untranslated_here(tab, allow=data(tab)) == []


def test_the_history_page_shows_no_untranslated_text(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, services: AppServices
) -> None:
    with (workspace / "memory" / "history.jsonl").open("a", encoding="utf-8") as log:
        log.write("not json\n")  # an unreadable line is counted in the summary
    with pseudo_locale(), shown_tab(qtbot, qloop, services) as tab:
        tab.pages.setCurrentIndex(HISTORY)
        history = tab.history
        assert "⟦{count} unreadable line(s) skipped⟧" not in history.summary.text()
        assert untranslated_here(tab, allow=data(tab)) == []
        model = history.model
        tips = [
            model.headerData(MARK, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole),
            *(
                model.index(row, MARK).data(role)
                for row in range(model.rowCount())
                for role in (Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.AccessibleTextRole)
            ),
        ]
        assert english(tips) == []
        history.select_cursor(5)  # not yet dreamed
        header = history.detail.toPlainText().splitlines()[0]
        assert english([header]) == [] and "⟦Not yet processed by Dream⟧" in header
        history.select_cursor(1)
        assert english([history.detail.toPlainText().splitlines()[0]]) == []
        history.pending_only.setChecked(True)
        history.search.setText("no such words anywhere")
        assert untranslated_here(tab, allow=data(tab, "no such words anywhere")) == []


def test_the_empty_and_missing_states_show_no_untranslated_text(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    with pseudo_locale():
        with shown_tab(qtbot, qloop, make_services(empty, tmp_path)) as tab:
            for page in range(tab.pages.count() - 1):
                tab.pages.setCurrentIndex(page)
                assert untranslated_here(tab, allow=data(tab)) == []
        with shown_tab(qtbot, qloop, make_services(tmp_path / "nowhere", tmp_path)) as tab:
            assert untranslated_here(tab, allow=data(tab)) == []
            assert "⟦The workspace" in tab._missing.text()


def test_the_timeline_page_shows_no_untranslated_text(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, services: AppServices
) -> None:
    sha = dream_commit(workspace, "- fact 5\n", "- fact 5, revised by Dream\n")
    with pseudo_locale(), shown_tab(qtbot, qloop, services) as tab:
        tab.pages.setCurrentIndex(TIMELINE)
        timeline = tab.timeline
        assert timeline.commits.select_sha(sha)
        qtbot.waitUntil(lambda: bool(timeline.detail.diff.diffs))
        assert untranslated_here(tab, allow=data(tab)) == []
        items = [present(timeline.commits.topLevelItem(i)) for i in range(2)]
        shown = [item.text(0) for item in items] + [
            item.toolTip(column) for item in items for column in range(4)
        ]
        assert english(shown, allow=data(tab)) == []
        header = timeline.detail.diff.toPlainText().splitlines()[0]
        assert english([header], allow=data(tab)) == [] and "⟦modified⟧" in header
        cursor = FileDiff("memory/.dream_cursor", "modified", "@@ -1 +1 @@\n-3\n+5\n", 1, 1)
        assert english([present(dream_cursor_note(cursor))]) == []
        # the root cannot be undone: its tooltip says so
        assert timeline.commits.select_sha(items[1].data(0, Qt.ItemDataRole.UserRole).sha)
        assert untranslated_here(timeline.detail, allow=data(tab)) == []
        # an undo and its message with "Undo the revert"
        assert run_async(qtbot, qloop, timeline.revert(sha)) is not None
        assert untranslated_here(timeline.notice, allow=data(tab)) == []
        # Dream now before the agent exists, while running, and each way a run ends
        for pending in (2, 1, 0):
            timeline.dream_bar.set_pending(pending)
            assert untranslated_here(timeline.dream_bar) == [], pending
        timeline.dream_bar._tick()
        assert untranslated_here(timeline.dream_bar) == []
        for outcome in (
            DreamCancelled("0123456789abcdef"),
            DreamCancelled(None),
            DreamResult("failed"),
            DreamResult("pending", message=PENDING_MESSAGE),  # the core's fixed texts
            DreamResult("nothing", message="Nothing new to dream about."),
            RuntimeError("the model is away"),
        ):
            timeline._dream_finished(outcome)
            assert untranslated_here(timeline.notice, allow=["the model is away"]) == []
            # (the pseudo translator blanks a text that is not listed: it must show something)
            assert timeline.notice._text.text().strip("⟦⟧ ."), outcome
        timeline.set_commits([], "git is broken")
        assert untranslated_here(timeline.notice, allow=["git is broken"]) == []


def test_the_review_page_shows_no_untranslated_text(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, services: AppServices
) -> None:
    proposal = store_proposal(workspace)
    with pseudo_locale(), shown_tab(qtbot, qloop, services) as tab:
        # the banner over the tab, and the tab's title with its count
        assert tab.notice.action_labels() == ["⟦Review⟧"]
        assert untranslated_here(tab, allow=data(tab)) == []
        tab.pages.setCurrentIndex(REVIEW)
        review = tab.review
        assert untranslated_here(review, allow=[proposal.analysis, NAME]) == []
        # files as "path   +a −d", changes as "line n   +a −d   <the changed text>"
        labels = [text.split("   ")[0] for text in tree_texts(review.tree) if "   " in text]
        assert english(labels, allow=[NAME, "USER.md"]) == []
        assert sum(label.startswith("⟦line ") for label in labels) == 3
        # the diff's headers, with one change left out
        review.set_hunk_checked(proposal.hunks[NAME][0].id, False)
        review.tree.setCurrentItem(present(review.tree.topLevelItem(0)))
        heads = [
            line for line in review.diff.toPlainText().splitlines() if line and line[0] not in " +-"
        ]
        assert len(heads) == 2 and english(heads) == []
        assert "⟦— left out (unticked)⟧" in heads[0]
        # nothing ticked
        assert run_async(qtbot, qloop, review.accept({NAME: [], "USER.md": []})) is None
        assert untranslated_here(review.notice) == []
        # the editor of a file's proposed text, and its result
        editor = present(review.edit_current())
        assert untranslated_here(editor, allow=data(tab)) == []
        editor.reject()
        assert run_async(qtbot, qloop, review.save_edit(NAME, proposal.file(NAME).after + "x\n"))
        assert untranslated_here(review.notice, allow=data(tab)) == []
        assert english(list(tree_texts(review.tree))[:1], allow=data(tab)) == []
        # refused entries and changes dropped for pins (as the core's reader leaves them)
        refused = RefusedFile("../outside.txt", "it is outside the workspace")
        for variant in (
            Proposal(proposal.created, 4, 5, "x", proposal.files, refused=(refused,)),
            Proposal(proposal.created, 4, 5, "x", proposal.files, refused=(refused, refused)),
            Proposal(
                proposal.created, 4, 5, "x", proposal.files, ("USER.md: “- Name: Ada”",), "budget"
            ),
        ):
            review.set_proposal(variant)
            assert untranslated_here(review, allow=[NAME, "x", "- Name: Ada"]) == []
            if variant.refused:  # selecting a refused entry explains it
                review.tree.setCurrentItem(
                    present(review.tree.topLevelItem(review.tree.topLevelItemCount() - 1))
                )
                paragraphs = review.diff.toPlainText().split("\n\n")
                assert english(paragraphs, allow=[refused.label]) == []
                # (a change's own text and its patch tooltip are data)
                shown = [
                    text.split("   ")[0] for text in tree_texts(review.tree) if text[:1] != "@"
                ]
                assert english(shown, allow=[refused.label, NAME, "USER.md"]) == []
                assert any(  # the label is a phrase (path and reason inside) since round 2
                    t.startswith("⟦Refused: ") and "../outside.txt" in t for t in shown
                ), shown
        # deciding when the proposal is gone already (the core's fixed text)
        assert run_async(qtbot, qloop, review.reject()) is not None  # the stored one
        outcome = run_async(qtbot, qloop, review.reject())
        assert outcome is not None and outcome.status == "none"
        reported = tab.timeline.notice._text.text()  # where the tab reports the decision
        assert reported and english([reported]) == []
        # no proposal waiting, and a refused one
        review.set_proposal(None)
        assert untranslated_here(review) == []
        review.set_proposal(None, "That proposal was not written by Dream.")
        assert untranslated_here(review) == []


def test_the_memory_tab_shows_chinese_with_the_zh_cn_translation(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, services: AppServices
) -> None:
    try:
        assert install_language("zh_CN") == "zh_CN"
        with shown_tab(qtbot, qloop, services) as tab:
            assert [tab.pages.tabText(i) for i in range(3)] == [
                "记忆文件",
                "历史日志（新增 2 条）",
                "梦境整理时间线",
            ]
            assert tab.files.save_button.text() == "保存"
            assert tab.timeline.dream_bar.dream_button.text() == "立即梦境整理"
            assert tab.history.summary.text().startswith("5 个条目")
    finally:
        install_language("en")
