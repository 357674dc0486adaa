"""One timeline entry in full: subject, id, time, message body, per-file diff, Revert."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.memory.git_types import CommitInfo, FileDiff
from desktop.ui.i18n import QT_TR_NOOP, tr
from desktop.ui.memory.commit_list import kind_of, when
from desktop.ui.memory.diff_view import DiffView
from desktop.ui.memory.look import mute

REVERT_TIP = QT_TR_NOOP(
    "Undo this change with a three-way merge: what it changed goes back, every later "
    "change is kept. The undo is itself a new entry you can undo again."
)


class CommitDetail(QWidget):
    """The selected commit and its diff.

    Signals:
        revertRequested(object): the person asked to undo this :class:`CommitInfo`.
    """

    revertRequested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._info: CommitInfo | None = None
        self._can_revert = True
        self.subject = QLabel(tr("No change selected"), self)
        self.subject.setWordWrap(True)
        self.subject.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.subject.setAccessibleName(tr("Selected change"))
        font = self.subject.font()
        font.setBold(True)
        self.subject.setFont(font)
        self.meta = QLabel(self)
        self.meta.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.meta.setAccessibleName(tr("Commit details"))
        self.meta.setWordWrap(True)
        mute(self.meta)
        self.revert_button = QPushButton(tr("Revert this change"), self)
        self.revert_button.setToolTip(tr(REVERT_TIP))
        self.revert_button.setAccessibleName(tr("Revert the selected change"))
        self.revert_button.setEnabled(False)
        self.body = QPlainTextEdit(self)
        self.body.setReadOnly(True)
        self.body.setAccessibleName(tr("Commit message"))
        self.body.hide()
        self.diff = DiffView(self)

        header = QHBoxLayout()
        titles = QVBoxLayout()
        titles.setSpacing(2)
        titles.addWidget(self.subject)
        titles.addWidget(self.meta)
        header.addLayout(titles, 1)
        header.addWidget(self.revert_button, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(header)
        layout.addWidget(self.body)
        layout.addWidget(self.diff, 1)
        self.revert_button.clicked.connect(self._revert)

    @property
    def info(self) -> CommitInfo | None:
        """The commit shown."""
        return self._info

    def set_commit(self, info: CommitInfo | None, *, revertable: bool = True) -> None:
        """Show ``info``'s header (the diff comes with :meth:`set_diffs`)."""
        self._info = info
        self._can_revert = revertable
        self.diff.set_diffs([])
        if info is None:
            self.subject.setText(tr("No change selected"))
            self.meta.clear()
            self.body.hide()
            self.diff.setPlaceholderText(tr("Select a change in the timeline to see what it did."))
            self.revert_button.setEnabled(False)
            return
        _, explanation = kind_of(info.subject)
        self.subject.setText(info.subject)
        files = (
            tr("1 file")
            if info.files_changed == 1
            else tr("{count} files").format(count=info.files_changed)
        )
        self.meta.setText(
            "  ·  ".join(
                (
                    info.short_sha,
                    when(info),
                    f"{files}, +{info.additions} −{info.deletions}",
                    tr(explanation),
                )
            )
        )
        self.body.setPlainText(info.body)
        self.body.setVisible(bool(info.body))
        lines = min(6, max(1, len(info.body.splitlines())))
        margins = self.body.contentsMargins()
        self.body.setFixedHeight(
            lines * self.body.fontMetrics().lineSpacing() + 12 + margins.top() + margins.bottom()
        )
        self.diff.setPlaceholderText(tr("Loading the changes…"))
        self.revert_button.setEnabled(revertable)
        self.revert_button.setToolTip(
            tr(REVERT_TIP) if revertable else tr("The first entry of the history cannot be undone.")
        )

    def set_diffs(self, sha: str, diffs: list[FileDiff]) -> None:
        """Show the diff of ``sha`` if it is still the commit shown."""
        if self._info is not None and self._info.sha == sha:
            self.diff.set_diffs(diffs)

    def set_busy(self, busy: bool) -> None:
        """Disable Revert while something else changes the memory."""
        self.revert_button.setEnabled(not busy and self._info is not None and self._can_revert)

    def _revert(self) -> None:
        if self._info is not None:
            self.revertRequested.emit(self._info)
