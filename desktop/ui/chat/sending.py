"""Sending in the Chat tab: a message, a slash command, guidance for a running turn, or a
message of guidance that a turn never took in.

Mixed into :class:`~desktop.ui.chat.chat_tab.ChatTab` (it uses the tab's store, models, state
and panes, declared below for the type checker).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QWidget

from desktop.core.agent.commands import parse_command
from desktop.core.bus.events import DESKTOP_CHANNEL
from desktop.core.bus.limits import TOO_LONG, describe_size, max_inbound_kb, refusal, utf8_size
from desktop.ui.chat.items import ChatItem
from desktop.ui.i18n import tr

if TYPE_CHECKING:
    from collections import OrderedDict

    from desktop.core.providers.chat_model import ModelChoice
    from desktop.ui.chat.archive_action import ChatArchiver
    from desktop.ui.chat.conversation import ConversationPane
    from desktop.ui.chat.message_model import MessageModel
    from desktop.ui.chat.project_bar import ProjectController
    from desktop.ui.chat.session_list_model import SessionListModel
    from desktop.ui.chat.session_store import SessionStore
    from desktop.ui.chat.sessions_controller import SessionsController
    from desktop.ui.chat.state import ChatState
    from desktop.ui.chat.steering import Steering
    from desktop.ui.chat.turns import TurnRunner
    from desktop.ui.services import AppServices

    _Host = QWidget  # the widget this is mixed into, for the type checker
else:
    _Host = object

CHANNEL = DESKTOP_CHANNEL


class ChatSending(_Host):
    """Sending for :class:`ChatTab` (a mixin; the attributes below are the tab's)."""

    services: AppServices
    store: SessionStore
    state: ChatState
    sessions: SessionListModel
    pane: ConversationPane
    list_controller: SessionsController
    turns: TurnRunner
    steering: Steering
    archiver: ChatArchiver
    projects: ProjectController
    current: str
    _models: OrderedDict[str, MessageModel]
    _editing: tuple[str, int, str] | None
    _chat_models: dict[str, ModelChoice | None]

    if TYPE_CHECKING:

        def stop_current(self) -> None: ...
        def new_chat(self, *, temporary: bool = False) -> None: ...
        def send_edit(self, text: str) -> bool: ...
        def _load_thumbnails(self, items: list[ChatItem]) -> None: ...

    def send(self, text: str, media: list[str]) -> None:
        """Send ``text`` (and images) in the shown chat; slash commands are answered inline.

        A message sent while the chat's turn runs is queued (shown as such) and answered next.
        ``/new`` archives the chat into memory (as nanobot's does) and opens a new chat (the
        current one stays, with its title). A message longer than ``channels.maxInboundKb``
        stays in the composer and the banner says why.
        """
        key, composer = self.current, self.pane.composer
        if self.services.runtime is None or not key:
            return
        command = parse_command(text) if not media else None
        limit = max_inbound_kb(self.services.config)
        too_long = refusal(text, limit) if command is None else None
        if too_long is not None:  # kept in the composer, never sent
            size = describe_size(utf8_size(text))
            self.turns.set_error(key, "too_long", tr(TOO_LONG).format(size=size, limit=limit))
            return
        if command is None and self._editing is not None and self.send_edit(text):
            return
        if command is not None:
            composer.clear_input()
            if command.name == "/stop":
                self.stop_current()
            elif command.name == "/new" and key.startswith(f"{CHANNEL}:"):
                self.archiver.archive(key)
                self.new_chat()
            else:
                self.turns.command(key, text)
            return
        if self.state.busy(key) and not media and self.steering.steer(key, text):
            composer.clear_input()  # the running turn takes it in at its next step
            return
        mentions = composer.edit.mentions.structured(text)
        composer.edit.mentions.forget()
        composer.clear_input()
        self.pane.view.scroll_to_bottom()  # what you send, and its answer, are in view
        row = ChatItem("user", text, media=list(media))
        model = self._models.get(key)
        if model is not None:
            self._load_thumbnails([model.append(row)])
        entry = self.sessions.entry(key)
        own = self._chat_models.get(key) if entry is not None and entry.draft else None
        self.list_controller.touched(key, text or tr("Image"))
        entry = self.sessions.entry(key)
        if entry is not None:
            self.pane.set_title(entry.title, entry.channel)
        # A new chat given its own model keeps it from its first message on.
        before = self.store.set_chat_model(key, own) if own is not None else None
        before = self.projects.before_send(key, before)  # a new chat's project, too
        self.turns.send(key, text, media, row, before=before, mentions=mentions)
        self._update_busy(key)

    def _send_to(self, key: str, text: str) -> None:
        """Send ``text`` as a message in chat ``key`` (shown or not): guidance a turn never
        took in, or taken back with "Send now"."""
        row = ChatItem("user", text)
        model = self._models.get(key)
        if model is not None:
            model.append(row)
        self.list_controller.touched(key, text)
        self.turns.send(key, text, [], row)
        self._update_busy(key)

    def _update_busy(self, key: str) -> None:
        # Running (the loop's events say so) or sent and about to start.
        busy = self.state.busy(key) or bool(self.state.queued(key))
        self.sessions.update(key, running=busy)
        if key == self.current:
            self.pane.composer.set_busy(busy)
