"""The Dream review page: a pending proposal, a check box per change, Accept / Edit / Reject.

File entries of a proposal that name a file Dream may not change are listed as refused (with
the reason, never ticked, never written); a proposal Dream did not write is not offered at all:
the page says it was refused instead."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QTextBlockFormat, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.core.memory.git_store import GitStore
from desktop.core.memory.hunks import Hunk
from desktop.core.memory.proposal import Proposal, ProposalBusy
from desktop.core.memory.review import (
    ReviewOutcome,
    accept_proposal,
    edit_proposal,
    reject_proposal,
)
from desktop.core.utils.tasks import TaskOwner
from desktop.ui.i18n import QT_TR_NOOP, tr
from desktop.ui.memory.files_view import mono_font
from desktop.ui.memory.look import Tone, mute, tint, tone
from desktop.ui.memory.notice_bar import NoticeBar
from desktop.ui.phrase_text import shown

log = logging.getLogger(__name__)

HUNK_ROLE = Qt.ItemDataRole.UserRole
PATH_ROLE = Qt.ItemDataRole.UserRole + 1
REFUSED_ROLE = Qt.ItemDataRole.UserRole + 2
REFUSED_TITLE = QT_TR_NOOP("Dream proposal refused")


def _when(created: str) -> str:
    try:
        return datetime.fromisoformat(created).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return created or tr("an unknown time")


def _hunk_label(hunk: Hunk) -> str:
    where = tr("line {number}").format(number=hunk.old_start + 1)
    return f"{where}   +{hunk.additions} −{hunk.deletions}   {hunk.summary(48)}"


class ProposalEditor(QDialog):
    """Edit the proposed text of one file; opened with :meth:`open` (never ``exec``).

    Args:
        path: The file.
        text: The proposed text to start from.
        parent: Parent widget.
    """

    def __init__(self, path: str, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.path = path
        self.setWindowTitle(tr("Edit the proposed {file}").format(file=path))
        self.resize(720, 520)
        hint = QLabel(
            tr(
                "This text becomes Dream's proposal for {file}. Its changes are then listed for "
                "review again; nothing is written until you accept."
            ).format(file=path),
            self,
        )
        hint.setWordWrap(True)
        self.editor = QPlainTextEdit(self)
        self.editor.setFont(mono_font())
        self.editor.setPlainText(text)
        self.editor.setAccessibleName(tr("Proposed {file}").format(file=path))
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText(tr("Use this text"))
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(hint)
        layout.addWidget(self.editor, 1)
        layout.addWidget(buttons)


class ReviewView(QWidget):
    """Shows the pending Dream proposal and lets the person decide it.

    Every change (hunk) has a check box; files can be ticked as a whole. Accept selected
    writes and commits only the ticked changes, Accept all every one, Reject all none (the
    history entries then count as read). Edit replaces a file's proposed text. Refused file
    entries are listed below the files, without a check box. Without a proposal the page can
    show why one was refused (:meth:`set_proposal` with ``refusal``), with Dismiss.

    Args:
        workspace: The workspace folder.
        git: Its memory timeline.
        parent: Parent widget.

    Signals:
        decided(object): the proposal was accepted or rejected: the
            :class:`~desktop.core.memory.review.ReviewOutcome`.
        edited(): a file's proposed text was replaced (the owner re-reads the proposal).
        refusalDismissed(): the person dismissed the message about a refused proposal.
    """

    decided = Signal(object)
    edited = Signal()
    refusalDismissed = Signal()

    def __init__(self, workspace: Path, git: GitStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.git = git
        self._tasks = TaskOwner("review-view")
        self._proposal: Proposal | None = None
        self._unticked: set[str] = set()  # kept across reloads of the same proposal
        self._editor: ProposalEditor | None = None

        self.title = QLabel(self)
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        font.setBold(True)
        self.title.setFont(font)
        self.title.setAccessibleName(tr("Dream proposal"))
        self.subtitle = QLabel(self)
        self.subtitle.setWordWrap(True)
        mute(self.subtitle)
        self.accept_selected_button = QPushButton(tr("Accept selected"), self)
        self.accept_selected_button.setDefault(True)
        self.accept_selected_button.setToolTip(tr("Write and commit only the ticked changes"))
        self.accept_all_button = QPushButton(tr("Accept all"), self)
        self.reject_button = QPushButton(tr("Reject all"), self)
        self.reject_button.setToolTip(
            tr("Change nothing; Dream will not propose these history entries again")
        )
        self.dismiss_button = QPushButton(tr("Dismiss"), self)
        self.dismiss_button.setToolTip(tr("Close this message"))
        self.dismiss_button.hide()
        self.notice = NoticeBar(self)
        self.tree = QTreeWidget(self)
        self.tree.setHeaderHidden(True)
        self.tree.setAccessibleName(tr("Proposed changes"))
        self.tree.setRootIsDecorated(True)
        self.edit_button = QPushButton(tr("Edit file…"), self)
        self.edit_button.setToolTip(tr("Change the proposed text of the selected file yourself"))
        self.analysis = QPlainTextEdit(self)
        self.analysis.setReadOnly(True)
        self.analysis.setAccessibleName(tr("Dream's analysis"))
        self.analysis.setMaximumHeight(110)
        self.diff = QPlainTextEdit(self)
        self.diff.setReadOnly(True)
        self.diff.setFont(mono_font())
        self.diff.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.diff.setAccessibleName(tr("Proposed changes of the selected file"))

        header = QHBoxLayout()
        titles = QVBoxLayout()
        titles.setSpacing(2)
        titles.addWidget(self.title)
        titles.addWidget(self.subtitle)
        header.addLayout(titles, 1)
        for button in (
            self.accept_selected_button,
            self.accept_all_button,
            self.reject_button,
            self.dismiss_button,
        ):
            header.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.tree, 1)
        left_layout.addWidget(self.edit_button, 0, Qt.AlignmentFlag.AlignLeft)
        right = QWidget(self)
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        analysis_label = QLabel(tr("Dream's analysis"), right)
        mute(analysis_label)
        right_layout.addWidget(analysis_label)
        right_layout.addWidget(self.analysis)
        right_layout.addWidget(self.diff, 1)
        self.body = QSplitter(Qt.Orientation.Horizontal, self)
        self.body.addWidget(left)
        self.body.addWidget(right)
        self.body.setChildrenCollapsible(False)
        self.body.setStretchFactor(1, 1)
        self.body.setSizes([400, 600])
        layout = QVBoxLayout(self)
        layout.addLayout(header)
        layout.addWidget(self.notice)
        layout.addWidget(self.body, 1)
        layout.addStretch(0)

        self.tree.itemChanged.connect(self._item_changed)
        self.tree.currentItemChanged.connect(lambda *_: self._show_diff())
        self.accept_selected_button.clicked.connect(
            lambda: self._tasks.try_spawn(self.accept(self.selection()), name="review-accept")
        )
        self.accept_all_button.clicked.connect(
            lambda: self._tasks.try_spawn(self.accept(None), name="review-accept")
        )
        self.reject_button.clicked.connect(
            lambda: self._tasks.try_spawn(self.reject(), name="review-reject")
        )
        self.edit_button.clicked.connect(self.edit_current)
        self.dismiss_button.clicked.connect(self.refusalDismissed)
        self.set_proposal(None)

    # -- data in ------------------------------------------------------------------------
    @property
    def proposal(self) -> Proposal | None:
        """The proposal shown."""
        return self._proposal

    def set_proposal(self, proposal: Proposal | None, refusal: str | None = None) -> None:  # noqa: C901  # each part of the proposal view updated in turn
        """Show ``proposal`` (``None``: nothing pending; then ``refusal`` says why a proposal
        was refused, if one was). Unticked changes stay unticked."""
        same = (
            self._proposal is not None
            and proposal is not None
            and proposal.id == self._proposal.id
            and proposal.created == self._proposal.created
            and proposal.last == self._proposal.last
        )
        if proposal == self._proposal and proposal is not None:
            return
        if not same:
            self._unticked.clear()
        current = self.current_path()
        self._proposal = proposal
        self.tree.blockSignals(True)
        self.tree.clear()
        self._set_busy(False)
        self.dismiss_button.setVisible(proposal is None and refusal is not None)
        for widget in (
            self.accept_selected_button,
            self.accept_all_button,
            self.reject_button,
            self.body,
        ):
            widget.setVisible(proposal is not None)
        if proposal is None:
            self.notice.clear()
            if refusal is not None:
                self.title.setText(tr(REFUSED_TITLE))
                self.subtitle.setText(
                    tr("{reason} Nothing in your memory was changed.").format(reason=shown(refusal))
                )
            else:
                self.title.setText(tr("No Dream proposal is waiting"))
                self.subtitle.setText(
                    tr(
                        "With “Review Dream changes before they land” on (Settings → Dream & "
                        "heartbeat), Dream's changes wait here for you before they are written."
                    )
                )
            self.analysis.clear()
            self.diff.clear()
            self.tree.blockSignals(False)
            return
        count = proposal.change_count
        self.title.setText(
            tr("Dream proposes 1 change")
            if count == 1
            else tr("Dream proposes {count} changes").format(count=count)
        )
        parts = [
            tr(
                "From history entries {first}..{last}, {when}. Untick what you do not want: "
                "only the ticked changes are written and committed."
            ).format(first=proposal.first, last=proposal.last, when=_when(proposal.created))
        ]
        if proposal.stop_reason not in ("answer", ""):
            parts.append(tr("The run stopped early, so the proposal may be incomplete."))
        if len(proposal.refused) == 1:
            parts.append(tr("1 file entry refused (listed last): never written."))
        elif proposal.refused:
            parts.append(
                tr("{count} file entries refused (listed last): never written.").format(
                    count=len(proposal.refused)
                )
            )
        self.subtitle.setText(" ".join(parts))
        self.analysis.setPlainText(proposal.analysis)
        select: QTreeWidgetItem | None = None
        for entry in proposal.files:
            hunks = proposal.hunks[entry.path]
            adds = sum(h.additions for h in hunks)
            dels = sum(h.deletions for h in hunks)
            label = f"{entry.path}   +{adds} −{dels}"
            if entry.edited:
                label = "   ".join((label, tr("(edited by you)")))
            item = QTreeWidgetItem(self.tree, [label])
            item.setData(0, PATH_ROLE, entry.path)
            item.setFlags(
                item.flags() | Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsAutoTristate
            )
            for hunk in hunks:
                child = QTreeWidgetItem(item, [_hunk_label(hunk)])
                child.setData(0, HUNK_ROLE, hunk.id)
                child.setData(0, PATH_ROLE, entry.path)
                child.setFlags(child.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                child.setCheckState(
                    0,
                    Qt.CheckState.Unchecked if hunk.id in self._unticked else Qt.CheckState.Checked,
                )
                child.setToolTip(0, "\n".join(hunk.patch_lines()))
            item.setExpanded(True)
            if select is None or entry.path == current:
                select = item
        for refusal_entry in proposal.refused:
            item = QTreeWidgetItem(
                self.tree, [tr("Refused: {entry}").format(entry=shown(refusal_entry.label))]
            )
            item.setData(0, REFUSED_ROLE, refusal_entry.label)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
            item.setForeground(0, tone("error"))
            item.setToolTip(
                0, "\n".join((shown(refusal_entry.label), tr("This file is never written.")))
            )
        self.tree.blockSignals(False)
        if proposal.refused:
            count = len(proposal.refused)
            self.notice.show_message(
                "warning",
                tr(
                    "1 file entry of this proposal names a file Dream may not change (or that "
                    "a link now stands in the way of). It is refused and never written; it is "
                    "listed last, in red."
                )
                if count == 1
                else tr(
                    "{count} file entries of this proposal name files Dream may not change (or "
                    "that a link now stands in the way of). They are refused and never written; "
                    "they are listed last, in red."
                ).format(count=count),
            )
        elif proposal.dropped:
            self.notice.show_message(
                "info",
                tr(
                    "Dream also tried to change pinned lines; those changes were left out: "
                    "{changes}."
                ).format(changes="; ".join(proposal.dropped)),
            )
        if select is not None:
            self.tree.setCurrentItem(select)
        self._show_diff()

    # -- selection ----------------------------------------------------------------------
    def hunk_items(self) -> list[QTreeWidgetItem]:
        """Every hunk's tree item, in order."""
        found: list[QTreeWidgetItem] = []
        for i in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(i)
            if top is None:
                continue
            for j in range(top.childCount()):
                child = top.child(j)
                if child is not None:
                    found.append(child)
        return found

    def set_hunk_checked(self, hunk_id: str, checked: bool) -> None:
        """Tick or untick one change."""
        for item in self.hunk_items():
            if item.data(0, HUNK_ROLE) == hunk_id:
                item.setCheckState(0, Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
                return
        raise KeyError(hunk_id)

    def selection(self) -> dict[str, list[str]]:
        """The ticked hunk ids per file."""
        chosen: dict[str, list[str]] = {}
        for item in self.hunk_items():
            path = str(item.data(0, PATH_ROLE))
            chosen.setdefault(path, [])
            if item.checkState(0) == Qt.CheckState.Checked:
                chosen[path].append(str(item.data(0, HUNK_ROLE)))
        return chosen

    def current_path(self) -> str | None:
        """The file selected in the tree (``None`` for none or a refused entry)."""
        item = self.tree.currentItem()
        path = item.data(0, PATH_ROLE) if item is not None else None
        return str(path) if path is not None else None

    def refused_labels(self) -> list[str]:
        """The refused entries listed (``path: reason``)."""
        found = []
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            if item is not None and item.data(0, REFUSED_ROLE) is not None:
                found.append(str(item.data(0, REFUSED_ROLE)))
        return found

    # -- actions ------------------------------------------------------------------------
    async def accept(self, selected: dict[str, list[str]] | None) -> ReviewOutcome | None:
        """Accept ``selected`` hunks (``None``: all); returns the outcome."""
        if selected is not None and not any(selected.values()):
            self.notice.show_message(
                "warning",
                tr("No change is ticked. Tick the changes to keep, or choose Reject all."),
            )
            return None
        return await self._decide(accept_proposal, self.workspace, self.git, selected)

    async def reject(self) -> ReviewOutcome | None:
        """Reject the whole proposal."""
        return await self._decide(reject_proposal, self.workspace)

    async def _decide(
        self, action: Callable[..., ReviewOutcome], *args: object
    ) -> ReviewOutcome | None:
        self._set_busy(True)
        try:
            outcome = await asyncio.to_thread(action, *args)
        except (ProposalBusy, OSError) as exc:
            self.notice.show_message(
                "error", tr("The proposal was not decided: {error}").format(error=shown(exc))
            )
            return None
        finally:
            self._set_busy(False)
        level: Tone = (
            "warning"
            if outcome.not_applicable or outcome.git_error or outcome.refused
            else "success"
        )
        self.notice.show_message(  # the core's message, translated
            level if outcome.status == "accepted" else "info", shown(outcome.message)
        )
        self.decided.emit(outcome)
        return outcome

    def edit_current(self) -> ProposalEditor | None:
        """Open the editor for the selected file's proposed text (non-blocking)."""
        path = self.current_path()
        if self._proposal is None or path is None:
            return None
        editor = ProposalEditor(path, self._proposal.file(path).after, self)
        editor.accepted.connect(
            lambda: self._tasks.try_spawn(
                self.save_edit(path, editor.editor.toPlainText()), name="review-edit"
            )
        )
        editor.finished.connect(editor.deleteLater)
        self._editor = editor
        editor.open()
        return editor

    async def save_edit(self, path: str, text: str) -> Proposal | None:
        """Make ``text`` the proposed text of ``path``."""
        try:
            proposal = await asyncio.to_thread(edit_proposal, self.workspace, path, text)
        except (LookupError, ProposalBusy, OSError) as exc:
            self.notice.show_message(
                "error", tr("The edit was not kept: {error}").format(error=shown(exc))
            )
            return None
        self.set_proposal(proposal)
        self.notice.show_message(
            "success",
            tr("Your text is now the proposal for {file}; review its changes below.").format(
                file=path
            ),
        )
        self.edited.emit()
        return proposal

    async def aclose(self) -> None:
        """Cancel running work."""
        await self._tasks.aclose()

    # -- internals ----------------------------------------------------------------------
    def _set_busy(self, busy: bool) -> None:
        proposal = self._proposal
        enabled = not busy and proposal is not None
        can_accept = enabled and proposal is not None and proposal.change_count > 0
        self.accept_selected_button.setEnabled(can_accept)
        self.accept_all_button.setEnabled(can_accept)
        self.reject_button.setEnabled(enabled)
        self.edit_button.setEnabled(can_accept)

    def _item_changed(self, item: QTreeWidgetItem, _column: int) -> None:
        hunk_id = item.data(0, HUNK_ROLE)
        if hunk_id is not None:
            if item.checkState(0) == Qt.CheckState.Checked:
                self._unticked.discard(str(hunk_id))
            else:
                self._unticked.add(str(hunk_id))
        self._show_diff()

    def _refused_label(self, label: str) -> str:
        """The refused entry's label as the core made it (a phrase), found by its English."""
        entries = self._proposal.refused if self._proposal is not None else ()
        return next((r.label for r in entries if r.label == label), label)

    def _show_diff(self) -> None:
        proposal, path = self._proposal, self.current_path()
        self.diff.clear()
        item = self.tree.currentItem()
        refused = item.data(0, REFUSED_ROLE) if item is not None else None
        if refused is not None:
            self.diff.setCurrentCharFormat(QTextCharFormat())
            self.diff.setPlainText(
                "\n\n".join(
                    (
                        tr("Refused: {entry}").format(entry=shown(self._refused_label(refused))),
                        tr(
                            "This entry of the proposal names a file Dream may not change, or "
                            "one that a link now stands in the way of. It is not offered, and "
                            "accepting the proposal never writes it."
                        ),
                    )
                )
            )
            return
        if proposal is None or path is None:
            return
        cursor = QTextCursor(self.diff.document())
        cursor.beginEditBlock()
        plain = QTextCharFormat()
        plain.setFont(self.diff.font())
        first = True
        for number, hunk in enumerate(proposal.hunks[path], 1):
            kept = hunk.id not in self._unticked
            head = QTextCharFormat(plain)
            head.setFontWeight(QFont.Weight.Bold)
            head.setForeground(tone("hunk") if kept else tone("muted"))
            block = QTextBlockFormat()
            block.setBackground(tint("info", strength=0.10))
            label = tr("Change {number}: line {line}").format(
                number=number, line=hunk.old_start + 1
            )
            if not kept:
                label = "   ".join((label, tr("— left out (unticked)")))
            self._line(cursor, label, block, head, first)
            first = False
            for line in hunk.patch_lines()[1:]:
                char = QTextCharFormat(plain)
                line_block = QTextBlockFormat()
                if not kept:
                    char.setForeground(tone("muted"))
                    char.setFontStrikeOut(line[:1] in "+-")
                elif line.startswith("+"):
                    line_block.setBackground(tint("added"))
                elif line.startswith("-"):
                    line_block.setBackground(tint("removed"))
                self._line(cursor, line, line_block, char, False)
            cursor.insertBlock(QTextBlockFormat(), plain)
        cursor.endEditBlock()
        self.diff.moveCursor(QTextCursor.MoveOperation.Start)

    @staticmethod
    def _line(
        cursor: QTextCursor, text: str, block: QTextBlockFormat, char: QTextCharFormat, first: bool
    ) -> None:
        if first:
            cursor.setBlockFormat(block)
        else:
            cursor.insertBlock(block, char)
        cursor.insertText(text, char)
