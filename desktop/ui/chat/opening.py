"""Opening a chat in the Chat tab: its messages read from disk into a cached model, shown
with its title, usage, error, approvals, guidance and draft; search results scrolled to.

Mixed into :class:`~desktop.ui.chat.chat_tab.ChatTab` (it uses the tab's store, models, state
and panes, declared below for the type checker).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QWidget

from desktop.core.session.temporary import is_temporary
from desktop.ui.chat.items import ChatItem
from desktop.ui.chat.message_model import MessageModel
from desktop.ui.i18n import tr

if TYPE_CHECKING:
    from collections import OrderedDict
    from collections.abc import Coroutine

    from PySide6.QtCore import Signal

    from desktop.core.providers.chat_model import ModelChoice
    from desktop.ui.chat.approval_presenter import ApprovalPresenter
    from desktop.ui.chat.context_view import ContextViews
    from desktop.ui.chat.conversation import ConversationPane
    from desktop.ui.chat.session_list_model import SessionListModel
    from desktop.ui.chat.session_panel import SessionPanel
    from desktop.ui.chat.session_store import SessionStore
    from desktop.ui.chat.state import ChatState
    from desktop.ui.chat.thumbnails import ThumbnailLoader
    from desktop.ui.chat.turns import TurnRunner
    from desktop.ui.services import AppServices

    _Host = QWidget  # the widget this is mixed into, for the type checker
else:
    _Host = object

OPEN_MODELS = 8  # chats kept in memory (the shown one and busy ones always are)


class ChatOpening(_Host):
    """Opening chats for :class:`ChatTab` (a mixin; the attributes below are the tab's)."""

    services: AppServices
    store: SessionStore
    state: ChatState
    sessions: SessionListModel
    panel: SessionPanel
    pane: ConversationPane
    approvals: ApprovalPresenter
    turns: TurnRunner
    thumbnails: ThumbnailLoader
    context_views: ContextViews
    current: str
    sessionOpened: Signal
    _models: OrderedDict[str, MessageModel]
    _loading: set[str]
    _drafts: dict[str, str]
    _editing: tuple[str, int, str] | None
    _chat_models: dict[str, ModelChoice | None]
    _jump: tuple[str, int, str] | None

    if TYPE_CHECKING:

        def _spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Future[Any]: ...
        def cancel_edit(self) -> None: ...
        def refresh_model(self) -> None: ...
        def open_session(self, key: str) -> None: ...
        def _show_error(self, key: str) -> None: ...
        async def show_preset(self, key: str) -> None: ...

    def _model_for(self, key: str) -> MessageModel | None:
        return None if key in self._loading else self._models.get(key)

    async def _open(self, key: str) -> None:
        previous = self.current
        if self._editing is not None and self._editing[0] != key:
            self.cancel_edit()
        if previous and previous != key:
            self._drafts[previous] = self.pane.composer.text()
            entry = self.sessions.entry(previous)
            old = self._models.get(previous)
            if entry is not None and entry.draft and (old is None or not old.rowCount()):
                self.sessions.remove(previous)
                self._models.pop(previous, None)
        self.current = key
        model = self._models.get(key)
        if model is None:
            model = self._models[key] = MessageModel(key)
            self._show(key, model)
            await self._load(key)
        else:
            self._models.move_to_end(key)
            self._show(key, model)
        self._evict()

    def _show(self, key: str, model: MessageModel) -> None:
        pane = self.pane
        pane.view.setModel(model)
        pane.temporary.setVisible(is_temporary(key))
        entry = self.sessions.entry(key)
        pane.set_title(entry.title if entry else tr("New chat"), key.partition(":")[0])
        pane.show_usage(self.state.usage.get(key))
        self.context_views.chat_shown(key)  # a chat with no turn yet: its meter from the ledger
        self._show_error(key)
        self.approvals.show_current()
        pane.composer.set_busy(self.state.busy(key))
        pane.guidance.show_guidance(self.state.guidance_of(key))
        pane.composer.edit.setPlainText(self._drafts.pop(key, ""))
        self.sessions.update(key, unread=False)
        self.panel.select(key)
        self.sessionOpened.emit(key)
        self.refresh_model()
        self._apply_jump(key)
        self._spawn(self.show_preset(key))

    async def _load(self, key: str) -> None:
        """(Re)read ``key`` from disk into its model, keeping the live turn's rows."""
        if is_temporary(key) and key in self._models:
            return  # never on disk: its rows are the only copy
        self._loading.add(key)
        try:
            loaded = await self.store.load(key, live=self.state.busy(key))
        finally:
            self._loading.discard(key)
        model = self._models.get(key)
        if model is None:
            return
        model.set_items(loaded.items + self.state.live_rows(key) + self.state.queued(key))
        self._load_thumbnails(model.items)
        entry = self.sessions.entry(key)
        if entry is None or not entry.draft:  # a new chat's choice waits for its first message
            self._chat_models[key] = loaded.model
        if loaded.pending and not self.state.busy(key) and key not in self.state.errors:
            self.turns.set_error(key, "interrupted", tr("Retry runs it again."))
        if key == self.current:
            self.pane.set_title(loaded.title, key.partition(":")[0])
            self._show_error(key)
            self.refresh_model()
            self._apply_jump(key)

    def open_search_result(self, key: str, message_index: int, query: str) -> None:
        """Open ``key`` scrolled to the message a search found (highlighted)."""
        self._jump = (key, message_index, query)
        if key == self.current and key not in self._loading:
            self._apply_jump(key)
        else:
            self.open_session(key)

    def _apply_jump(self, key: str) -> None:
        jump = self._jump
        model = self._models.get(key)
        if jump is None or jump[0] != key or model is None or key in self._loading:
            return
        _, index, query = jump
        needle = query.casefold()
        rows = [r for r, item in enumerate(model.items) if item.message_index == index]
        rows = [r for r in rows if needle in model.item(r).text.casefold()] or rows
        if rows:
            self._jump = None
            self.pane.view.reveal(rows[0], highlight=query)
        elif model.rowCount() and not self.state.busy(key):  # live rows of a finished turn
            # (they have no message index): read the chat back from disk
            self._spawn(self._load(key))

    def _load_thumbnails(self, items: list[ChatItem]) -> None:
        media = [m for item in items if item.media for m in item.media]
        if media:
            self.thumbnails.request(media[-200:])

    def _evict(self) -> None:
        for key in list(self._models):
            if len(self._models) <= OPEN_MODELS:
                break
            if key != self.current and not self.state.busy(key) and not is_temporary(key):
                del self._models[key]
