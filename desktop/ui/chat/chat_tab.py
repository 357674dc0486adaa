"""The Chat tab: the chat list on the left, the open conversation on the right.

The tab is the ``desktop`` channel: what the person sends is published on the bus
(:mod:`desktop.ui.chat.turns`), and everything shown about a turn — its start, streamed text,
tool cards, its end — comes back as events through :class:`~desktop.ui.bridge.CoreBridge`.
The events feed one Qt-free :class:`~desktop.ui.chat.state.ChatState`; what it reports changed
is rendered by :class:`~desktop.ui.chat.feed.TurnFeed` (rows) and this tab (the rest). Turns
started elsewhere (a reminder, a chat network, a subagent report) are shown the same way. Tool
approval questions reach the person through :attr:`ChatTab.approver` (registered with the
runtime's approval gate for every channel) and are answered in the chat (no dialog, no nested
event loop).
"""

from __future__ import annotations

import asyncio
import logging
import secrets as random
import time
from collections import OrderedDict
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, assert_never

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QHBoxLayout, QSplitter, QWidget

from desktop.core.bus.events import DESKTOP_CHANNEL, OutboundMessage, RunEvent
from desktop.core.engine.skills import SkillsLoader
from desktop.core.providers.chat_model import ModelChoice
from desktop.core.session.handles import list_chats
from desktop.core.session.temporary import is_temporary, new_temporary_key
from desktop.core.utils.tasks import TaskOwner
from desktop.ui.chat.actions import ChatActions
from desktop.ui.chat.approval_presenter import ApprovalPresenter
from desktop.ui.chat.approver import UiApprover
from desktop.ui.chat.archive_action import ChatArchiver
from desktop.ui.chat.changes import (
    ErrorChanged,
    GuidanceChanged,
    ListChanged,
    Reload,
    RowAdded,
    SessionChange,
    TurnBegan,
    TurnEnded,
    Unread,
    UsageChanged,
)
from desktop.ui.chat.context_view import ContextViews
from desktop.ui.chat.conversation import ConversationPane
from desktop.ui.chat.feed import TurnFeed
from desktop.ui.chat.message_model import MessageModel
from desktop.ui.chat.opening import ChatOpening
from desktop.ui.chat.preview_pane import attach_preview
from desktop.ui.chat.project_bar import ProjectController
from desktop.ui.chat.sending import ChatSending
from desktop.ui.chat.session_list_model import SessionListModel
from desktop.ui.chat.session_panel import SessionPanel
from desktop.ui.chat.session_store import SessionStore
from desktop.ui.chat.sessions_controller import SessionsController
from desktop.ui.chat.state import ChatState
from desktop.ui.chat.steering import Steering
from desktop.ui.chat.temporary import forget as forget_temporary
from desktop.ui.chat.thumbnails import ThumbnailLoader
from desktop.ui.chat.turns import TurnRunner
from desktop.ui.i18n import tr

if TYPE_CHECKING:
    from desktop.ui.services import AppServices

log = logging.getLogger(__name__)
CHANNEL = DESKTOP_CHANNEL


def new_session_key() -> str:
    """A fresh desktop session key: ``desktop:<time>-<random>``."""
    return f"{CHANNEL}:{time.strftime('%Y%m%d-%H%M%S')}-{random.token_hex(3)}"


class ChatTab(ChatOpening, ChatSending, ChatActions, QWidget):
    """Chats with the agent.

    Args:
        services: Shared app objects (the runtime arrives with ``agentReady``).
        parent: Parent widget.

    Signals:
        openSettingsRequested(str): open this settings section (``providers``, ``agent``).
        attentionChanged(int): tool calls waiting for approval, across all chats (for the tray).
        sessionOpened(str): the shown chat changed (session key).
        modelShown(str): the model the shown chat uses ("name · provider", "… (this chat)"
            when it is the chat's own model), for the status bar.
    """

    openSettingsRequested = Signal(str)
    attentionChanged = Signal(int)
    sessionOpened = Signal(str)
    modelShown = Signal(str)

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.tasks = TaskOwner("chat")
        self.state = ChatState()
        self.store = SessionStore(services.workspace, services.config_path.parent)
        self.approver = UiApprover(self)
        self._remove_approver: Callable[[], None] | None = None
        self.sessions = SessionListModel(self)
        self.panel = SessionPanel(self.sessions, self)
        self.pane = ConversationPane(self)
        self.tasks.adopt(self.pane.view.reader.tasks)  # closing the tab awaits its reading
        self.pane.composer.media_dir = services.workspace / "media"
        self.pane.composer.voice.app_config = lambda: self.services.config
        self.feed = TurnFeed(self.state, self._model_for, self._session_changed, self)
        self.thumbnails = ThumbnailLoader(self)
        self.thumbnails.loaded.connect(self.pane.view.set_thumbnail)
        self.list_controller = SessionsController(
            self.store, self.sessions, self.panel, self._spawn, self
        )
        self._models: OrderedDict[str, MessageModel] = OrderedDict()
        self._loading: set[str] = set()
        self.approvals = ApprovalPresenter(
            self.approver,
            self.pane.approval,
            self.feed,
            self.sessions,
            lambda: self.current,
            self,
        )
        self.turns = TurnRunner(
            services, self.state, self.feed.render, self.store, self._model_for, self._spawn
        )
        self.steering = Steering(
            services, self.state, self.feed.render, self._send_to, self.turns.stop
        )
        self.archiver = ChatArchiver(self)  # "Archive into memory now"; /new archives first
        self.projects = ProjectController(self)  # the chat's project folder and access mode
        self._drafts: dict[str, str] = {}
        self._recent: list[dict[str, str]] = []
        self._editing: tuple[str, int, str] | None = None  # key, ordinal, original text
        self._titling: set[str] = set()
        self._chat_models: dict[str, ModelChoice | None] = {}  # a chat's own model, once known
        self._via: dict[ModelChoice, str] = {}  # who serves a chat's own model
        self.auto_titles = True  # a cheap model call names a new chat after its first answer
        self._export_dialog: Any = None
        self._jump: tuple[str, int, str] | None = None  # key, message index, query
        self._asked_to_open = False  # a chat was asked for: start-up must not open another
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self.panel)
        splitter.addWidget(self.pane)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([260, 760])
        splitter.setChildrenCollapsible(False)
        self.preview = attach_preview(self, splitter)  # files opened from links, beside the chat
        self.panel.setMinimumWidth(200)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)
        self._wire()
        QTimer.singleShot(0, self.pane.view.warm_up)
        self.refresh_model()
        if services.runtime is not None:
            self._agent_ready()
        self._spawn(self._start())

    @property
    def current(self) -> str:
        """The session shown (``""`` before the first one is opened)."""
        return self.state.current

    @current.setter
    def current(self, key: str) -> None:
        self.state.current = key

    def working_folder(self) -> Path:
        """The folder the shown chat's relative paths start from: its project, else the
        agent's workspace (the file preview opens paths from here)."""
        scope = self.projects.scope_of(self.current)
        return scope.root if scope is not None else self.services.workspace

    # -- plumbing -------------------------------------------------------------------------
    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Future[Any]:
        task = self.tasks.try_spawn(coro, name=getattr(coro, "__name__", "chat"))
        if task is None:  # closing: start nothing new
            future: asyncio.Future[Any] = asyncio.get_event_loop().create_future()
            future.cancel()
            return future
        return task

    def _wire(self) -> None:
        bridge, pane = self.services.bridge, self.pane
        bridge.runEvent.connect(self._on_event)
        bridge.outbound.connect(self._on_outbound)
        self.context_views = ContextViews(self)  # the context meter's per-round view
        self.services.agentReady.connect(self._agent_ready)
        self.services.agentFailed.connect(
            # The full reason is in the window's banner; the one-line box only points there.
            lambda _message: pane.composer.set_ready(
                False, tr("Not connected — see the message at the top of the window")
            )
        )
        self.panel.sessionActivated.connect(self.open_session)
        self.panel.newChatRequested.connect(self.new_chat)
        self.panel.newTemporaryRequested.connect(self.new_temporary_chat)
        self.list_controller.deleted.connect(self._on_deleted)
        self.list_controller.restored.connect(self.open_session)
        self.list_controller.refreshed.connect(lambda: self.panel.select(self.current))
        pane.composer.sendRequested.connect(self.send)
        pane.composer.stopRequested.connect(self.stop_current)
        pane.guidance.sendNow.connect(lambda gid: self.steering.send_now(self.current, gid))
        pane.guidance.removeRequested.connect(lambda gid: self.steering.remove(self.current, gid))
        pane.banner.retryRequested.connect(self.retry)
        pane.banner.settingsRequested.connect(self.openSettingsRequested)
        pane.view.copied.connect(pane.flash_copied)
        pane.view.editRequested.connect(self.start_edit)
        pane.view.regenerateRequested.connect(self.regenerate)
        pane.view.versionRequested.connect(self.show_version)
        pane.regenerateRequested.connect(self.regenerate)
        pane.exportRequested.connect(self.export)
        pane.picker.modelChosen.connect(self.choose_model)
        pane.picker.otherRequested.connect(self.open_other_model)
        pane.picker.defaultRequested.connect(self.make_default)
        pane.picker.followDefaultRequested.connect(self.follow_default)
        pane.picker.settingsRequested.connect(lambda: self.openSettingsRequested.emit("providers"))
        pane.picker.presetChosen.connect(self.choose_preset)
        pane.other_model.chosen.connect(self.choose_model)
        pane.editing.cancelled.connect(self.cancel_edit)
        pane.composer.edit.editLastRequested.connect(self.edit_last)
        pane.composer.edit.textChanged.connect(self._warm_provider)
        pane.composer.edit.mentions.wanted.connect(self._load_mentions)
        self.services.configChanged.connect(self.refresh_model)
        regenerate = QShortcut(QKeySequence("Ctrl+Shift+R"), self)
        regenerate.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        regenerate.activated.connect(self.regenerate)
        self.panel.searchResultActivated.connect(self.open_search_result)
        self.approvals.attentionChanged.connect(self.attentionChanged)

    def _warm_provider(self) -> None:
        """The person is typing: load the provider layer now, so the answer does not wait for
        it (nothing loads it while the app merely waits)."""
        starter = self.services.starter
        if starter is None or not self.pane.composer.edit.toPlainText():
            return
        self.pane.composer.edit.textChanged.disconnect(self._warm_provider)
        starter.warm_up()

    def _agent_ready(self) -> None:
        runtime = self.services.runtime
        if runtime is None:
            return
        self.store.attach(runtime)
        if self._remove_approver is not None:
            self._remove_approver()
            self._remove_approver = None
        if runtime.approval is not None:
            # The desktop answers approval questions of every channel's turns.
            self._remove_approver = runtime.approval.add_approver(self.approver)
        self.pane.composer.set_ready(True)
        self.refresh_model()
        self.list_controller.refresh_soon()

    async def _start(self) -> None:
        await self.list_controller.refresh()
        if self.current or self._asked_to_open:
            return
        recent = next((k for k in self.sessions.shown_keys() if k.startswith(f"{CHANNEL}:")), None)
        if recent is not None:
            await self._open(recent)
        else:
            self.new_chat()
        self.focus_composer()

    # -- public slots ---------------------------------------------------------------------
    def new_chat(self, *, temporary: bool = False) -> None:
        """Start a new desktop chat (or focus the current one if it is still empty and of
        the same kind); ``temporary``: one that keeps nothing (:mod:`.temporary`)."""
        self._asked_to_open = True
        model = self._models.get(self.current)
        entry = self.sessions.entry(self.current)
        if (
            entry is not None
            and entry.draft
            and model is not None
            and not model.rowCount()
            and is_temporary(self.current) == temporary
        ):
            self.focus_composer()
            return
        key = new_temporary_key() if temporary else new_session_key()
        self.list_controller.add_draft(key)
        self._models[key] = MessageModel(key)
        self._spawn(self._open(key))
        self.focus_composer()

    def new_temporary_chat(self) -> None:
        """Start a temporary chat (Ctrl+Shift+N): nothing of it is saved or remembered."""
        self.new_chat(temporary=True)

    def focus_search(self) -> None:
        """Put the cursor in the chat search (Ctrl+K)."""
        self.panel.focus_search()

    def focus_composer(self) -> None:
        """Put the cursor in the message editor."""
        self.pane.composer.edit.setFocus(Qt.FocusReason.OtherFocusReason)

    def stop_current(self) -> None:
        """Stop the shown chat's running turn (Esc, the Stop button, ``/stop``)."""
        self.turns.stop(self.current)

    def open_session(self, key: str) -> None:
        """Show the chat ``key`` (a notification click, the list)."""
        self._asked_to_open = True
        self._spawn(self._open(key))

    def retry(self) -> None:
        """Run the shown chat's failed turn again."""
        self.pane.view.scroll_to_bottom()
        self._spawn(self.turns.retry(self.current))

    def _stop(self) -> None:
        """Deny waiting approvals and cancel running work (the tab is closing)."""
        if self._remove_approver is not None:
            self._remove_approver()
            self._remove_approver = None
        self.approver.deny_all()
        self.pane.composer.cancel_tasks()
        self.pane.view.reader.close()
        self.thumbnails.cancel()
        for task in self.tasks.tasks:
            task.cancel()

    async def aclose(self) -> None:
        """Stop everything this tab started and wait for it (the one close protocol)."""
        self._stop()
        await self.tasks.aclose()

    def closeEvent(self, event: QCloseEvent) -> None:
        """Closing the tab cancels its work (``await`` :meth:`aclose` to wait for it too)."""
        self._stop()
        super().closeEvent(event)

    def _load_mentions(self) -> None:
        """The other chats for the composer's @-mention picker, read off the event loop."""
        runtime = self.services.runtime
        if runtime is None:
            return
        current = self.current

        async def load() -> None:
            chats = await asyncio.to_thread(list_chats, runtime.sessions)
            skills = await asyncio.to_thread(SkillsLoader(self.services.workspace).list_skills)
            self.pane.composer.edit.mentions.set_chats(
                [(c.handle, c.title, c.key) for c in chats if c.key != current],
                [(s.name, s.description) for s in skills],
                sorted(self.services.config.tools.mcp_servers),
            )

        self._spawn(load())

    # -- events ---------------------------------------------------------------------------
    def _on_event(self, event: RunEvent) -> None:
        self.feed.apply(event)

    def _on_outbound(self, message: OutboundMessage) -> None:
        """A message for a desktop chat that is not part of a turn's answer: a command's
        reply, or something the agent sent on its own (the ``message`` tool)."""
        changes = self.state.outbound(message)
        self.feed.render(changes)
        added = [c.item for c in changes if isinstance(c, RowAdded) and c.item.media]
        if added:  # images the agent sent (generate_image): their thumbnails
            self._load_thumbnails(added)

    def _session_changed(self, change: SessionChange) -> None:  # noqa: C901  # one case per kind of session change
        """Show a change of the chat state that is not about one row."""
        match change:
            case TurnBegan(key=key):
                self._update_busy(key)
                if key not in self.sessions.all_keys():
                    self.list_controller.refresh_soon()
            case TurnEnded(key=key):
                self.steering.turn_ended(key)  # what it never took in goes next
                self._update_busy(key)
                self.list_controller.refresh_soon()
                self.title_soon(key)
            case UsageChanged(key=key):
                if key == self.current:
                    self.pane.show_usage(self.state.usage.get(key))
            case ErrorChanged(key=key):
                if key == self.current:
                    self._show_error(key)
            case Unread(key=key):
                self.sessions.update(key, unread=True)
            case ListChanged():
                self.list_controller.refresh_soon()
            case Reload(key=key):
                if key == self.current:
                    self._spawn(self._load(key))
                else:
                    self._models.pop(key, None)
            case GuidanceChanged(key=key):
                if key == self.current:
                    self.pane.guidance.show_guidance(self.state.guidance_of(key))
            case _:
                assert_never(change)

    def _on_deleted(self, key: str) -> None:
        if is_temporary(key):
            self._spawn(forget_temporary(self.services.runtime, key))
        self._models.pop(key, None)
        self._chat_models.pop(key, None)
        self.turns.clear_error(key)
        self.services.policy.forget_session(key)
        if key == self.current:
            self.current = ""
            remaining = self.sessions.shown_keys()
            if remaining:
                self.open_session(remaining[0])
            else:
                self.new_chat()

    # -- errors and approvals -------------------------------------------------------------
    def _show_error(self, key: str) -> None:
        error = self.state.errors.get(key)
        if error is None:
            self.pane.banner.hide()
        else:
            self.pane.banner.show_error(error.kind, error.message, error.details)
