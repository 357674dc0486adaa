"""Sending from the chat: the window is one channel on the bus.

A message typed in the Chat tab becomes an :class:`~desktop.core.bus.events.InboundMessage`
on the ``desktop`` channel; the agent loop runs it (or queues it behind the session's running
turn) and everything shown comes back as events. Slash commands go the same way and their
answer comes back as an outbound message that carries the request's id. Failures come back as
``TurnFailed``: the banner offers Retry, which takes the pending turn out of the session and
sends it again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Signal

from desktop.core.bus.events import DESKTOP_CHANNEL, InboundMessage, OutboundMessage, TurnFailed
from desktop.ui.chat.feed import TurnFeed
from desktop.ui.chat.items import ChatItem
from desktop.ui.chat.message_model import MessageModel
from desktop.ui.chat.session_store import SessionStore

log = logging.getLogger(__name__)
QUEUED = "Queued — it will be answered after the current reply."


def chat_id_of(key: str) -> str:
    """The chat part of a session key (``desktop:abc`` → ``abc``)."""
    return key.partition(":")[2] or key


def channel_of(key: str) -> str:
    """The channel part of a session key (``telegram:42`` → ``telegram``)."""
    return key.partition(":")[0] if ":" in key else DESKTOP_CHANNEL


@dataclass
class TurnError:
    """What the banner shows for a session's failed turn."""

    kind: str
    message: str
    details: str = ""


@dataclass
class Sent:
    """A message this tab published and whose turn has not started yet."""

    key: str
    row: ChatItem


class TurnRunner(QObject):
    """Publishes the tab's messages and commands and keeps the per-session error state.

    Args:
        services: The app services (``services.runtime`` carries the bus and the agent).
        feed: Applies run events to the models.
        store: Session operations (for Retry).
        model_for: The open model of a session.
        spawn: Starts a coroutine owned by the tab.

    Signals:
        errorChanged(str): the session's error (banner) was set or cleared.
        activity(str): the session changed on disk (the list should refresh).
    """

    errorChanged = Signal(str)
    activity = Signal(str)

    def __init__(
        self,
        services: Any,
        feed: TurnFeed,
        store: SessionStore,
        model_for: Callable[[str], MessageModel | None],
        spawn: Callable[[Coroutine[Any, Any, Any]], Any],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.services = services
        self.feed = feed
        self.store = store
        self.model_for = model_for
        self.spawn = spawn
        self.errors: dict[str, TurnError] = {}
        self.sent: dict[str, Sent] = {}
        self.commands: dict[str, ChatItem] = {}

    def busy(self, key: str) -> bool:
        """Whether a turn runs in ``key`` (from the loop's own events)."""
        return self.feed.busy(key)

    def queued(self, key: str) -> list[ChatItem]:
        """Rows of messages sent to ``key`` whose turns have not started yet."""
        return [s.row for s in self.sent.values() if s.key == key]

    def own_row(self, request_id: str) -> ChatItem | None:
        """The row of a message this tab sent (its turn just started); forgets it as queued."""
        sent = self.sent.pop(request_id, None)
        if sent is None:
            return None
        if sent.row.footer == QUEUED:
            sent.row.footer = ""
            model = self.model_for(sent.key)
            if model is not None and model.row_of(sent.row) >= 0:
                model.changed(sent.row)
        return sent.row

    # -- errors ---------------------------------------------------------------------------
    def on_failed(self, event: TurnFailed) -> None:
        """A turn failed (ours or not): show the banner for its session."""
        self.errors[event.session_key] = TurnError(event.error_kind, event.message, event.details)
        self.errorChanged.emit(event.session_key)
        self.activity.emit(event.session_key)

    def set_error(self, key: str, kind: str, message: str, details: str = "") -> None:
        """Show ``message`` in the session's banner."""
        self.errors[key] = TurnError(kind, message, details)
        self.errorChanged.emit(key)

    def clear_error(self, key: str) -> None:
        """Forget the session's error."""
        if self.errors.pop(key, None) is not None:
            self.errorChanged.emit(key)

    # -- sending --------------------------------------------------------------------------
    def send(
        self,
        key: str,
        text: str,
        media: list[str],
        row: ChatItem,
        *,
        before: Coroutine[Any, Any, Any] | None = None,
    ) -> str | None:
        """Publish a message for ``key`` (``row`` already shows it); returns its id.

        ``before``: awaited first (e.g. saving a new chat's own model). ``None`` when there is
        no agent to take it.
        """
        runtime = self.services.runtime
        if runtime is None:
            if before is not None:
                before.close()
            return None
        self.clear_error(key)
        message = InboundMessage(
            channel_of(key),
            "user",
            chat_id_of(key),
            text,
            media=list(media),
            session_key_override=key,
            metadata={"origin": DESKTOP_CHANNEL},
        )
        if self.busy(key) or any(s.key == key for s in self.sent.values()):
            row.footer = QUEUED
        self.sent[message.id] = Sent(key, row)
        self.spawn(self._publish(runtime, message, before))
        return message.id

    @staticmethod
    async def _publish(
        runtime: Any, message: InboundMessage, before: Coroutine[Any, Any, Any] | None
    ) -> None:
        if before is not None:
            try:
                await before
            except OSError:  # the message still goes; the chat then uses the default model
                log.warning(
                    "saving the chat's model before its first message failed", exc_info=True
                )
        await runtime.bus.publish_inbound(message)

    def command(self, key: str, text: str, name: str) -> None:
        """Send a slash command; its answer is shown inline when it comes back."""
        runtime = self.services.runtime
        model = self.model_for(key)
        if runtime is None:
            return
        item = ChatItem("command", "Working…", tool=text.split()[0])
        if model is not None:
            model.append(ChatItem("user", text, echo=True))
            model.append(item)
        message = InboundMessage(
            channel_of(key), "user", chat_id_of(key), text, session_key_override=key
        )
        self.commands[message.id] = item
        self.spawn(runtime.bus.publish_inbound(message))

    def on_outbound(self, message: OutboundMessage) -> bool:
        """A command's answer: fill its row. Returns whether the message was one."""
        request_id = str(message.metadata.get("request_id") or "")
        item = self.commands.pop(request_id, None) if request_id else None
        if item is None:
            return False
        item.text = message.content or "(no answer)"
        key = f"{message.channel}:{message.chat_id}"
        model = self.model_for(key)
        if model is not None and model.row_of(item) >= 0:
            model.changed(item)
        self.activity.emit(key)
        return True

    def stop(self, key: str) -> None:
        """Stop ``key``'s running turn (whoever started it) and its subagents."""
        runtime = self.services.runtime
        if runtime is not None:
            self.spawn(runtime.agent.stop_session(key))

    async def retry(self, key: str) -> None:
        """Run the session's failed (pending) turn again."""
        if self.services.runtime is None or self.busy(key):
            return
        message = await self.store.take_pending(key)
        self.clear_error(key)
        if message is None:
            return
        text = str(message.get("content") or "")
        media = [m for m in message.get("media") or [] if isinstance(m, str)]
        model = self.model_for(key)
        row: ChatItem | None = None
        if model is not None:
            users = [r for r, i in enumerate(model.items) if i.kind == "user"]
            if users and model.item(users[-1]).text == text:
                model.remove_after(users[-1])
                row = model.item(users[-1])
            else:
                row = model.append(ChatItem("user", text, media=media))
        self.send(key, text, media, row or ChatItem("user", text, media=media))
