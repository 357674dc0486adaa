"""Sending from the chat: the window is one channel on the bus.

A message typed in the Chat tab becomes an :class:`~desktop.core.bus.events.InboundMessage`
on the ``desktop`` channel; the agent loop runs it (or queues it behind the session's running
turn) and everything shown comes back as events. Slash commands go the same way and their
answer comes back as an outbound message that carries the request's id. Failures come back as
``TurnFailed``: the banner offers Retry, which takes the pending turn out of the session and
sends it again. What waits (a message for its turn, a command for its answer) and the errors
are kept in :class:`~desktop.ui.chat.state.ChatState`; this class publishes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from desktop.core.agent.mentions import MENTIONS
from desktop.core.bus.events import DESKTOP_CHANNEL, InboundMessage
from desktop.ui.chat.changes import Changes
from desktop.ui.chat.items import ChatItem
from desktop.ui.chat.message_model import MessageModel
from desktop.ui.chat.session_store import SessionStore
from desktop.ui.chat.state import ChatState

if TYPE_CHECKING:
    from desktop.core.runtime import Runtime
    from desktop.ui.services import AppServices

log = logging.getLogger(__name__)


def chat_id_of(key: str) -> str:
    """The chat part of a session key (``desktop:abc`` → ``abc``)."""
    return key.partition(":")[2] or key


def channel_of(key: str) -> str:
    """The channel part of a session key (``telegram:42`` → ``telegram``)."""
    return key.partition(":")[0] if ":" in key else DESKTOP_CHANNEL


class TurnRunner:
    """Publishes the tab's messages and commands; records them (and errors) in the state.

    Args:
        services: The app services (``services.runtime`` carries the bus and the agent).
        state: The chat's state.
        render: Shows what a change of the state changed.
        store: Session operations (for Retry).
        model_for: The open model of a session.
        spawn: Starts a coroutine owned by the tab.
    """

    def __init__(
        self,
        services: AppServices,
        state: ChatState,
        render: Callable[[Changes], None],
        store: SessionStore,
        model_for: Callable[[str], MessageModel | None],
        spawn: Callable[[Coroutine[Any, Any, Any]], object],
    ) -> None:
        self.services = services
        self.state = state
        self.render = render
        self.store = store
        self.model_for = model_for
        self.spawn = spawn

    # -- errors ---------------------------------------------------------------------------
    def set_error(self, key: str, kind: str, message: str, details: str = "") -> None:
        """Show ``message`` in the session's banner."""
        self.render(self.state.set_error(key, kind, message, details))

    def clear_error(self, key: str) -> None:
        """Forget the session's error."""
        self.render(self.state.clear_error(key))

    # -- sending --------------------------------------------------------------------------
    def send(
        self,
        key: str,
        text: str,
        media: list[str],
        row: ChatItem,
        *,
        before: Coroutine[Any, Any, Any] | None = None,
        mentions: list[dict[str, str]] | None = None,
    ) -> str | None:
        """Publish a message for ``key`` (``row`` already shows it); returns its id.

        ``before``: awaited first (e.g. saving a new chat's own model). ``mentions``: the
        chats, skills and MCP servers picked after ``@`` (:mod:`desktop.core.agent.mentions`).
        ``None`` when there is no agent to take it.
        """
        runtime = self.services.runtime
        if runtime is None:
            if before is not None:
                before.close()
            return None
        message = InboundMessage(
            channel_of(key),
            "user",
            chat_id_of(key),
            text,
            media=list(media),
            session_key_override=key,
            metadata={"origin": DESKTOP_CHANNEL, **({MENTIONS: mentions} if mentions else {})},
        )
        self.render(self.state.queue(message.id, key, row))
        self.spawn(self._publish(runtime, message, before))
        return message.id

    @staticmethod
    async def _publish(
        runtime: Runtime, message: InboundMessage, before: Coroutine[Any, Any, Any] | None
    ) -> None:
        if before is not None:
            try:
                await before
            except OSError:  # the message still goes; the chat then uses the default model
                log.warning(
                    "saving the chat's model before its first message failed", exc_info=True
                )
        await runtime.bus.publish_inbound(message)

    def command(self, key: str, text: str) -> None:
        """Send a slash command; its answer is shown inline when it comes back."""
        runtime = self.services.runtime
        if runtime is None:
            return
        message = InboundMessage(
            channel_of(key), "user", chat_id_of(key), text, session_key_override=key
        )
        self.render(self.state.command(message.id, key, text))
        self.spawn(runtime.bus.publish_inbound(message))

    def stop(self, key: str) -> None:
        """Stop ``key``'s running turn (whoever started it) and its subagents."""
        runtime = self.services.runtime
        if runtime is not None:
            self.spawn(runtime.agent.stop_session(key))

    async def retry(self, key: str) -> None:
        """Run the session's failed (pending) turn again."""
        if self.services.runtime is None or self.state.busy(key):
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
