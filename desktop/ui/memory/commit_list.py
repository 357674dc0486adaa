"""The Dream timeline: one row per memory commit, newest first."""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTreeWidget, QTreeWidgetItem, QWidget

from desktop.core.memory.git_types import CommitInfo
from desktop.ui.i18n import QT_TR_NOOP, tr
from desktop.ui.memory.look import Tone, dot_icon, tone

WHEN, CHANGE, FILES, LINES = range(4)
_KINDS: dict[str, tuple[Tone, str]] = {
    "dream:": ("accent", QT_TR_NOOP("A Dream run")),
    "edit:": ("success", QT_TR_NOOP("An edit (yours, in the app or outside it)")),
    "revert:": ("warning", QT_TR_NOOP("An undo of an earlier change")),
    "init:": ("muted", QT_TR_NOOP("Repository bookkeeping")),
}


def kind_of(subject: str) -> tuple[Tone, str]:
    """Tone and explanation (English: pass it through ``tr`` to show it) of a commit from its
    subject's prefix."""
    for prefix, found in _KINDS.items():
        if subject.startswith(prefix):
            return found
    return "muted", QT_TR_NOOP("Another change")


def when(info: CommitInfo) -> str:
    """The commit time in local time, ``YYYY-MM-DD HH:MM``."""
    return f"{info.time.astimezone():%Y-%m-%d %H:%M}"


def short_when(info: CommitInfo, now: datetime | None = None) -> str:
    """A compact local time: ``today 14:02``, ``05-03 14:02`` or ``2025-05-03`` (numbers only,
    so it reads the same in every language but the word "today")."""
    local = info.time.astimezone()
    now = (now or datetime.now()).astimezone()
    if local.date() == now.date():
        return tr("today {time}").format(time=f"{local:%H:%M}")
    if local.year == now.year:
        return f"{local:%m-%d %H:%M}"
    return f"{local:%Y-%m-%d}"


class CommitList(QTreeWidget):
    """Commits with time, subject, files changed and lines added/removed.

    Signals:
        commitSelected(object): the selected :class:`CommitInfo`, or ``None``.
    """

    commitSelected = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setColumnCount(4)
        self.setHeaderLabels([tr("When"), tr("Change"), tr("Files"), tr("Lines")])
        self.setRootIsDecorated(False)
        self.setUniformRowHeights(True)
        self.setAlternatingRowColors(True)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setAccessibleName(tr("Memory timeline"))
        header = self.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(WHEN, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(CHANGE, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(FILES, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(LINES, QHeaderView.ResizeMode.ResizeToContents)
        self.itemSelectionChanged.connect(self._selection_changed)
        self._last: str | None = None

    def set_commits(self, commits: list[CommitInfo]) -> None:
        """Show ``commits`` (newest first); the selection follows its commit when still there."""
        if commits == self.commits():
            return  # unchanged: keep scroll position and selection
        keep = self.selected_sha()
        self.blockSignals(True)
        try:
            self.clear()
            icons = {}
            for info in commits:
                kind, explanation = kind_of(info.subject)
                if kind not in icons:
                    icons[kind] = dot_icon(tone(kind))
                item = QTreeWidgetItem(
                    [
                        short_when(info),
                        info.subject,
                        str(info.files_changed),
                        f"+{info.additions} −{info.deletions}",
                    ]
                )
                item.setData(0, Qt.ItemDataRole.UserRole, info)
                item.setIcon(CHANGE, icons[kind])
                item.setToolTip(
                    CHANGE, "\n".join((tr(explanation), f"{info.short_sha}  {info.subject}"))
                )
                item.setToolTip(WHEN, when(info))
                item.setToolTip(
                    LINES,
                    tr("{added} line(s) added, {removed} removed").format(
                        added=info.additions, removed=info.deletions
                    ),
                )
                for column in (FILES, LINES):
                    item.setTextAlignment(
                        column, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                self.addTopLevelItem(item)
        finally:
            self.blockSignals(False)
        if keep is not None and not self.select_sha(keep):
            self._selection_changed()

    def commits(self) -> list[CommitInfo]:
        """The commits shown, top to bottom."""
        items = (self.topLevelItem(i) for i in range(self.topLevelItemCount()))
        return [item.data(0, Qt.ItemDataRole.UserRole) for item in items if item is not None]

    def selected(self) -> CommitInfo | None:
        """The selected commit."""
        items = self.selectedItems()
        return items[0].data(0, Qt.ItemDataRole.UserRole) if items else None

    def selected_sha(self) -> str | None:
        """Id of the selected commit."""
        info = self.selected()
        return info.sha if info else None

    def select_sha(self, sha: str) -> bool:
        """Select the commit ``sha`` (full or short); ``False`` when it is not listed."""
        for i in range(self.topLevelItemCount()):
            item = self.topLevelItem(i)
            if item is None:
                continue
            info = item.data(0, Qt.ItemDataRole.UserRole)
            if info.sha.startswith(sha):
                self.setCurrentItem(item)
                self.scrollToItem(item)
                return True
        return False

    def _selection_changed(self) -> None:
        info = self.selected()
        sha = info.sha if info else None
        if sha != self._last:
            self._last = sha
            self.commitSelected.emit(info)
