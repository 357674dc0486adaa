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
from desktop.ui.memory.commit_list import kind_of, when
from desktop.ui.memory.diff_view import DiffView
from desktop.ui.memory.look import mute

REVERT_TIP = (
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
        self.subject = QLabel("No change selected", self)
        self.subject.setWordWrap(True)
        self.subject.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.subject.setAccessibleName("Selected change")
        font = self.subject.font()
        font.setBold(True)
        self.subject.setFont(font)
        self.meta = QLabel(self)
        self.meta.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.meta.setAccessibleName("Commit details")
        self.meta.setWordWrap(True)
        mute(self.meta)
        self.revert_button = QPushButton("Revert this change", self)
        self.revert_button.setToolTip(REVERT_TIP)
        self.revert_button.setAccessibleName("Revert the selected change")
        self.revert_button.setEnabled(False)
        self.body = QPlainTextEdit(self)
        self.body.setReadOnly(True)
        self.body.setAccessibleName("Commit message")
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
            self.subject.setText("No change selected")
            self.meta.clear()
            self.body.hide()
            self.diff.setPlaceholderText("Select a change in the timeline to see what it did.")
            self.revert_button.setEnabled(False)
            return
        _, explanation = kind_of(info.subject)
        self.subject.setText(info.subject)
        files = f"{info.files_changed} file{'s' if info.files_changed != 1 else ''}"
        self.meta.setText(
            f"{info.short_sha}  ·  {when(info)}  ·  {files}, "
            f"+{info.additions} −{info.deletions}  ·  {explanation}"
        )
        self.body.setPlainText(info.body)
        self.body.setVisible(bool(info.body))
        lines = min(6, max(1, len(info.body.splitlines())))
        margins = self.body.contentsMargins()
        self.body.setFixedHeight(
            lines * self.body.fontMetrics().lineSpacing() + 12 + margins.top() + margins.bottom()
        )
        self.diff.setPlaceholderText("Loading the changes…")
        self.revert_button.setEnabled(revertable)
        self.revert_button.setToolTip(
            REVERT_TIP if revertable else "The first entry of the history cannot be undone."
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
