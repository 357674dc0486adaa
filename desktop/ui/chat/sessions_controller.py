"""The chat list's behaviour: refresh, drafts, rename, delete with undo, search."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from desktop.core.bus.events import DESKTOP_CHANNEL
from desktop.core.session.naming import NEW_CHAT
from desktop.core.session.temporary import is_temporary
from desktop.ui.chat.session_list_model import SessionEntry, SessionListModel, shown_title
from desktop.ui.chat.session_panel import SessionPanel
from desktop.ui.chat.session_store import SessionStore
from desktop.ui.i18n import tr

log = logging.getLogger(__name__)
Spawn = Callable[[Coroutine[Any, Any, Any]], "asyncio.Future[Any]"]
UNDO_MS = 8000


class SessionsController(QObject):
    """Keeps the list in step with the sessions on disk.

    Signals:
        deleted(str): a chat was deleted (set aside); the tab should leave it.
        restored(str): a deleted chat came back (Undo).
        refreshed(): the list was re-read.
    """

    deleted = Signal(str)
    restored = Signal(str)
    refreshed = Signal()

    def __init__(
        self,
        store: SessionStore,
        model: SessionListModel,
        panel: SessionPanel,
        spawn: Spawn,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.store = store
        self.model = model
        self.panel = panel
        self.spawn = spawn
        self.last_deleted: tuple[str, Path] | None = None
        self._search_generation = 0
        self._query = ""
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(300)
        self._timer.timeout.connect(lambda: self.spawn(self.refresh()))
        model.renameRequested.connect(lambda key, title: self.spawn(self.rename(key, title)))
        panel.deleteRequested.connect(lambda key: self.spawn(self.delete(key)))
        panel.searchChanged.connect(self.search)
        panel.snackbar.actionTriggered.connect(lambda: self.spawn(self.undo()))

    # -- list -----------------------------------------------------------------------------
    def refresh_soon(self) -> None:
        """Re-read the list shortly (coalesces bursts of activity)."""
        self._timer.start()

    async def refresh(self) -> None:
        """Re-read every session's summary now."""
        try:
            summaries = await self.store.summaries()
        except OSError:
            log.exception("listing sessions failed")
            return
        self.model.set_summaries(summaries)
        if self._query:
            self.search(self._query)
        self.refreshed.emit()

    def add_draft(self, key: str) -> None:
        """Show a new, unsaved chat at the top."""
        self.model.upsert(
            SessionEntry(key, DESKTOP_CHANNEL, NEW_CHAT, datetime.now().isoformat(), draft=True)
        )

    def touched(self, key: str, title: str | None = None) -> None:
        """Activity in ``key`` (a message was sent): move it up, end its draft state."""
        entry = self.model.entry(key)
        changes: dict[str, Any] = {"updated_at": datetime.now().isoformat(), "draft": False}
        if title and entry is not None and (entry.draft or entry.title == NEW_CHAT):
            text = " ".join(title.split())
            changes["title"] = text[:60] + ("…" if len(text) > 60 else "")
        if entry is None:
            self.model.upsert(
                SessionEntry(
                    key, key.partition(":")[0], changes.get("title", key), changes["updated_at"]
                )
            )
        else:
            self.model.update(key, **changes)

    # -- operations -----------------------------------------------------------------------
    async def rename(self, key: str, title: str) -> None:
        """Rename a chat (drafts just change their label)."""
        entry = self.model.entry(key)
        if entry is not None and (entry.draft or is_temporary(key)):
            self.model.update(key, title=title)
            return
        try:
            await self.store.rename(key, title)
        except OSError as exc:
            self.panel.snackbar.show_message(tr("Could not rename: {error}").format(error=exc))
            return
        self.model.update(key, title=title)

    async def delete(self, key: str) -> None:
        """Set the chat aside and offer Undo for a few seconds."""
        entry = self.model.entry(key)
        if entry is None:
            return
        if entry.draft or is_temporary(key):  # nothing on disk: closing it is the end of it
            self.model.remove(key)
            self.deleted.emit(key)
            return
        try:
            aside = await self.store.set_aside(key)
        except OSError as exc:
            self.panel.snackbar.show_message(tr("Could not delete: {error}").format(error=exc))
            return
        self.model.remove(key)
        self.deleted.emit(key)
        shown = shown_title(entry.title)
        title = shown if len(shown) <= 40 else shown[:39] + "…"
        if aside is None:
            self.last_deleted = None
            self.panel.snackbar.show_message(tr("Deleted “{title}”.").format(title=title))
            return
        self.last_deleted = (key, aside)
        self.panel.snackbar.show_message(
            tr("Deleted “{title}”.").format(title=title), tr("Undo"), timeout_ms=UNDO_MS
        )

    async def undo(self) -> None:
        """Bring the last deleted chat back."""
        if self.last_deleted is None:
            return
        key, aside = self.last_deleted
        self.last_deleted = None
        try:
            await self.store.restore(key, aside)
        except OSError as exc:
            self.panel.snackbar.show_message(tr("Could not restore: {error}").format(error=exc))
            return
        await self.refresh()
        self.restored.emit(key)

    # -- search ---------------------------------------------------------------------------
    def search(self, text: str) -> None:
        """Filter by title at once, then by message content (in a worker thread)."""
        query = text.strip()
        self._query = query
        self._search_generation += 1
        if not query:
            self.model.set_filter(None)
            self.panel.show_search_state("", searching=False)
            return
        needle = query.casefold()
        titles = {
            key
            for key in self.model.all_keys()
            if needle in (self.model.entry(key) or SessionEntry("", "", "", "")).title.casefold()
        }
        self.model.set_filter(titles)
        self.panel.show_search_state(query, searching=True)
        self.spawn(self._search_content(query, titles, self._search_generation))

    async def _search_content(self, query: str, titles: set[str], generation: int) -> None:
        try:
            hits = await self.store.search_hits(query)
        except OSError:
            log.exception("searching sessions failed")
            hits = []
        if generation == self._search_generation:
            self.model.set_filter(titles)
            self.model.set_hits(hits)
            self.panel.show_search_state(query, searching=False)

    @property
    def query(self) -> str:
        """The search in force (``""``: none)."""
        return self._query
