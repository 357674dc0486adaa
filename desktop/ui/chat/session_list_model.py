"""The chat list: sessions sorted by last activity, with drafts, flags and a filter."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt, Signal

from desktop.core.bus.events import DESKTOP_CHANNEL
from desktop.core.session.manager import SessionSummary
from desktop.core.session.naming import FIXED_TITLES
from desktop.core.session.search import SearchHit
from desktop.core.session.temporary import is_temporary
from desktop.ui.dates import day_month, weekday_short
from desktop.ui.i18n import tr

EntryRole = Qt.ItemDataRole.UserRole + 1
HitRole = Qt.ItemDataRole.UserRole + 2
Index = QModelIndex | QPersistentModelIndex


@dataclass(frozen=True)
class SessionEntry:
    """One chat in the list.

    Attributes:
        key: Session key.
        channel: ``desktop``, ``telegram``, ``cli``…
        title: Shown title.
        updated_at: ISO time of last activity.
        draft: A new chat with nothing sent yet (not on disk).
        running: A turn is running.
        unread: Something arrived while the chat was not open.
        attention: A tool call waits for approval.
    """

    key: str
    channel: str
    title: str
    updated_at: str
    draft: bool = False
    running: bool = False
    unread: bool = False
    attention: bool = False

    @classmethod
    def from_summary(cls, summary: SessionSummary) -> SessionEntry:
        """An entry for a session on disk."""
        return cls(summary.key, summary.channel, summary.title, summary.updated_at)


def when_text(iso: str, now: datetime | None = None) -> str:
    """``14:05`` today, ``Mon`` this week, ``3 Mar`` this year, else ``2023-03-03``."""
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        return ""
    now = now or datetime.now()
    if moment.date() == now.date():
        return moment.strftime("%H:%M")
    days = (now.date() - moment.date()).days
    if 0 < days < 7:
        return weekday_short(moment)
    if moment.year == now.year:
        return day_month(moment)
    return moment.strftime("%Y-%m-%d")


def shown_title(title: str) -> str:
    """A chat's title as the list shows it: the names the app gives (``New chat``,
    ``Reminders``…) in the window's language, the person's own titles as they are."""
    return tr(title) if title in FIXED_TITLES else title


class SessionListModel(QAbstractListModel):
    """Entries, newest activity first; :meth:`set_filter` narrows what is shown.

    Signals:
        renameRequested(str, str): the person edited a title in place (key, new title).
    """

    renameRequested = Signal(str, str)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._all: dict[str, SessionEntry] = {}
        self._shown: list[SessionEntry] = []
        self._filter: set[str] | None = None
        self._hits: dict[str, SearchHit] = {}

    # -- Qt API ---------------------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt API
        """Shown entries."""
        return 0 if parent.isValid() else len(self._shown)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Entry, title (display/edit) or an accessible description."""
        if not index.isValid() or not 0 <= index.row() < len(self._shown):
            return None
        entry = self._shown[index.row()]
        if role == EntryRole:
            return entry
        if role == HitRole:
            return self._hits.get(entry.key)
        title = shown_title(entry.title)
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return title
        if role == Qt.ItemDataRole.AccessibleTextRole:
            flags = [entry.channel] if entry.channel != DESKTOP_CHANNEL else []
            flags += [tr("running")] * entry.running + [tr("unread")] * entry.unread
            flags += [tr("needs approval")] * entry.attention
            hit = self._hits.get(entry.key)
            if hit is not None and hit.message_index >= 0:
                flags.append(tr("found: {snippet}").format(snippet=hit.snippet))
            return tr(", ").join([title, *flags])
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{title}\n{entry.key}"
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        """Entries are selectable and editable (rename in place)."""
        base = super().flags(index)
        return base | Qt.ItemFlag.ItemIsEditable if index.isValid() else base

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        """An in-place edit asks for a rename (applied when the store confirms)."""
        if role != Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        title = " ".join(str(value).split())
        entry = self._shown[index.row()]
        if title and title not in (entry.title, shown_title(entry.title)):
            self.renameRequested.emit(entry.key, title)
        return bool(title)

    # -- entries --------------------------------------------------------------------------
    def entry(self, key: str) -> SessionEntry | None:
        """The entry for ``key`` (shown or not)."""
        return self._all.get(key)

    def all_keys(self) -> list[str]:
        """Every key, shown or filtered out."""
        return list(self._all)

    def shown_keys(self) -> list[str]:
        """Shown keys, in order."""
        return [e.key for e in self._shown]

    def row_of(self, key: str) -> int:
        """Shown row of ``key`` or -1."""
        for row, entry in enumerate(self._shown):
            if entry.key == key:
                return row
        return -1

    def set_summaries(self, summaries: list[SessionSummary]) -> None:
        """Replace the on-disk entries, keeping drafts, temporary chats and flags."""
        entries: dict[str, SessionEntry] = {}
        for summary in summaries:
            old = self._all.get(summary.key)
            new = SessionEntry.from_summary(summary)
            if old is not None:
                new = replace(new, running=old.running, unread=old.unread, attention=old.attention)
            entries[summary.key] = new
        for key, entry in self._all.items():
            if (entry.draft or is_temporary(key)) and key not in entries:
                entries[key] = entry  # never on disk: kept while the window lives
        self._all = entries
        self._rebuild()

    def upsert(self, entry: SessionEntry) -> None:
        """Add or replace one entry."""
        self._all[entry.key] = entry
        self._rebuild()

    def update(self, key: str, **changes: Any) -> None:
        """Change fields of an entry (``running``, ``unread``, ``attention``, ``title``…)."""
        entry = self._all.get(key)
        if entry is None:
            return
        new = replace(entry, **changes)
        if new == entry:
            return
        self._all[key] = new
        row = self.row_of(key)
        if "updated_at" in changes or row < 0:
            self._rebuild()
        else:
            self._shown[row] = new
            index = self.index(row)
            self.dataChanged.emit(index, index)

    def remove(self, key: str) -> None:
        """Drop an entry."""
        if self._all.pop(key, None) is not None:
            self._rebuild()

    def set_filter(self, keys: set[str] | None) -> None:
        """Show only ``keys`` (``None``: everything; search snippets are dropped)."""
        self._filter = keys
        if keys is None and self._hits:
            self._hits = {}
            self.beginResetModel()
            self.endResetModel()
        self._rebuild()

    def set_hits(self, hits: list[SearchHit]) -> None:
        """Search results: show these chats, each with its snippet."""
        self._hits = {hit.key: hit for hit in hits}
        self._filter = (self._filter or set()) | set(self._hits)
        self.beginResetModel()
        self._rebuild_now()
        self.endResetModel()

    def hit(self, key: str) -> SearchHit | None:
        """The search result shown for ``key``."""
        return self._hits.get(key)

    def _rebuild_now(self) -> None:
        entries = sorted(self._all.values(), key=lambda e: (e.draft, e.updated_at), reverse=True)
        if self._filter is not None:
            entries = [e for e in entries if e.key in self._filter]
        self._shown = entries

    def _rebuild(self) -> None:
        entries = sorted(self._all.values(), key=lambda e: (e.draft, e.updated_at), reverse=True)
        if self._filter is not None:
            entries = [e for e in entries if e.key in self._filter]
        if entries == self._shown:
            return
        self.beginResetModel()
        self._shown = entries
        self.endResetModel()
