"""Running turns from the chat: send, slash commands, stop, retry, and failures.

A turn is ``AgentLoop.process_direct`` on the desktop channel; its live rows come from the
run events (see :mod:`desktop.ui.chat.feed`). On a model failure the loop leaves the user
message saved and the turn pending; :meth:`TurnRunner.retry` takes that pending turn out of the
session (:meth:`Session.take_pending_turn`) and runs it again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from PySide6.QtCore import QObject, Signal

from desktop.core.providers.base import LLMError
from desktop.ui.chat.feed import CHANNEL, TurnFeed
from desktop.ui.chat.items import ChatItem
from desktop.ui.chat.message_model import MessageModel
from desktop.ui.chat.session_store import SessionStore

log = logging.getLogger(__name__)
STOPPED = "Stopped."


def chat_id_of(key: str) -> str:
    """The chat part of a session key (``desktop:abc`` → ``abc``)."""
    return key.partition(":")[2] or key


class TurnRunner(QObject):
    """Starts and tracks the turns this tab runs.

    Args:
        services: The app services (``services.agent`` runs the turns).
        feed: Applies run events to the models.
        store: Session operations (for Retry).
        model_for: The open model of a session, or ``None``.
        spawn: Starts a coroutine owned by the tab.
        reload: Re-reads a session into its model (after ``/new``).

    Signals:
        busyChanged(str): a turn of this session started or ended.
        errorChanged(str): the session's error (banner) was set or cleared.
        activity(str): the session changed on disk (the list should refresh).
    """

    busyChanged = Signal(str)
    errorChanged = Signal(str)
    activity = Signal(str)

    def __init__(
        self,
        services: Any,
        feed: TurnFeed,
        store: SessionStore,
        model_for: Callable[[str], MessageModel | None],
        spawn: Callable[[Coroutine[Any, Any, Any]], Any],
        reload: Callable[[str], Awaitable[None]],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.services = services
        self.feed = feed
        self.store = store
        self.model_for = model_for
        self.spawn = spawn
        self.reload = reload
        self.running: set[str] = set()
        self.errors: dict[str, tuple[str, str]] = {}
        self.closed = False

    def busy(self, key: str) -> bool:
        """Whether a turn runs in ``key`` (ours or one the agent started)."""
        return key in self.running or key in self.feed.live

    # -- errors ---------------------------------------------------------------------------
    def fail(self, key: str, kind: str, message: str) -> None:
        """Record a failure for the banner and close the live rows."""
        self.errors[key] = (kind, message)
        self.feed.end(key)
        self.errorChanged.emit(key)

    def clear_error(self, key: str) -> None:
        """Forget the session's error."""
        if self.errors.pop(key, None) is not None:
            self.errorChanged.emit(key)

    # -- turns ----------------------------------------------------------------------------
    def start(self, key: str, text: str, media: list[str]) -> None:
        """Run a turn (the user row is already shown)."""
        self.clear_error(key)
        self.running.add(key)
        self.feed.begin(key)
        self.busyChanged.emit(key)
        self.spawn(self._turn(key, text, media))

    async def _turn(self, key: str, text: str, media: list[str]) -> None:
        agent = self.services.agent
        assert agent is not None
        try:
            reply = await agent.process_direct(
                text, session_key=key, channel=CHANNEL, chat_id=chat_id_of(key), media=media
            )
        except asyncio.CancelledError:
            if not self.closed:
                self.feed.end(key)
            raise
        except LLMError as exc:
            self.fail(key, exc.kind, exc.message)
        except Exception as exc:  # a bug: keep the tab alive, say what happened
            log.exception("turn in %s failed", key)
            self.fail(key, "unknown", f"{type(exc).__name__}: {exc}")
        else:
            if key in self.feed.live:  # no TurnFinished: stopped, or answered without a turn
                if reply == STOPPED:
                    self.feed.end(key, STOPPED)
                else:
                    self.feed.finish(key, reply)
        finally:
            self.running.discard(key)
            if not self.closed:
                self.busyChanged.emit(key)
                self.activity.emit(key)

    def stop(self, key: str) -> None:
        """Stop ``key``'s running turn and its subagents."""
        agent = self.services.agent
        if agent is not None and self.busy(key):
            self.spawn(agent.stop_session(key))

    async def command(self, key: str, text: str, name: str) -> None:
        """Answer a slash command inline (its reply is not part of the conversation)."""
        agent = self.services.agent
        assert agent is not None
        model = self.model_for(key)
        item = ChatItem("command", "Working…", tool=text.split()[0])
        if model is not None:
            model.append(ChatItem("user", text))
            model.append(item)
        try:
            reply = await agent.process_direct(
                text, session_key=key, channel=CHANNEL, chat_id=chat_id_of(key)
            )
        except Exception as exc:  # commands answer text; a failure is shown, not raised
            log.exception("command %s failed", name)
            reply = f"{name} failed: {exc}"
        item.text = reply or "(no answer)"
        if model is not None and model.row_of(item) >= 0:
            model.changed(item)
        if name == "/new":
            await self.reload(key)
            model = self.model_for(key)
            if model is not None:
                model.append(ChatItem("command", reply, tool=name))
            self.activity.emit(key)

    async def retry(self, key: str) -> None:
        """Run the session's failed (pending) turn again."""
        if self.services.agent is None or self.busy(key):
            return
        message = await self.store.take_pending(key)
        self.clear_error(key)
        if message is None:
            return
        text = str(message.get("content") or "")
        media = [m for m in message.get("media") or [] if isinstance(m, str)]
        model = self.model_for(key)
        if model is not None:
            users = [r for r, i in enumerate(model.items) if i.kind == "user"]
            if users and model.item(users[-1]).text == text:
                model.remove_after(users[-1])
            else:
                model.append(ChatItem("user", text, media=media))
        self.start(key, text, media)
