"""What a chat sees while the agent works: ``typing…`` and a reaction on the message.

A turn of a chat starts the platform's typing indicator, renewed every ``typing_every``
seconds (platforms show it for a few seconds only); it stops when the chat's last running
turn ends. The message a turn answers gets a reaction when it arrives (the channel adds it)
and loses it when its turn ends. Every call runs in the background, owned by the channel's
:class:`TaskOwner`; a failed call is logged and never ends the turn.

Channels subclass :class:`TurnActivity` with the two platform calls (Telegram, Discord).
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections import OrderedDict
from typing import Any

from desktop.core.bus.events import RunEvent, TurnFailed, TurnFinished, TurnStarted, TurnStopped
from desktop.core.utils.tasks import TaskOwner

REMEMBERED = 1000  # turns remembered (oldest forgotten first)


def remember(store: OrderedDict[Any, Any], key: Any, value: Any) -> None:
    """Store ``key`` (as the newest) and forget the oldest entries beyond :data:`REMEMBERED`."""
    store[key] = value
    store.move_to_end(key)
    while len(store) > REMEMBERED:
        store.popitem(last=False)


def message_of(chat_id: str, request_id: str) -> int | None:
    """The platform's message id in an inbound message id (``"<chat>:<message>"``)."""
    chat, _, message = request_id.rpartition(":")
    return int(message) if chat == chat_id and message.isdigit() else None


class TurnActivity(ABC):
    """Typing indicators and reactions for one channel.

    Args:
        channel: The channel name (events of other channels are ignored).
        owner: Owns the typing loops and reaction calls.
        typing_every: Seconds between two typing calls.
    """

    def __init__(self, channel: str, owner: TaskOwner, *, typing_every: float) -> None:
        self.channel = channel
        self._owner = owner
        self.typing_every = typing_every
        self.turns: OrderedDict[str, tuple[str, str]] = OrderedDict()  # turn → (chat, request)
        self._running: dict[str, set[str]] = {}  # chat → its running turns
        self._typing: dict[str, asyncio.Task[None]] = {}

    @abstractmethod
    async def show_typing(self, chat_id: str) -> bool:
        """Show the typing indicator once; ``False`` when the channel is not connected."""

    @abstractmethod
    async def set_reaction(self, chat_id: str, message_id: int, emoji: str, *, add: bool) -> None:
        """Add (or remove) the bot's reaction ``emoji`` on a message; failures are logged."""

    @property
    def typing_chats(self) -> set[str]:
        """Chats whose typing indicator runs now."""
        return {chat for chat, task in self._typing.items() if not task.done()}

    def request_of(self, turn_id: str) -> str | None:
        """The inbound message id a turn answers (``"<chat>:<message>"``), if known."""
        turn = self.turns.get(turn_id)
        return turn[1] if turn is not None else None

    def on_event(self, event: RunEvent, *, reaction: str) -> None:
        """Start typing when a turn starts; stop (and unreact) when it ends."""
        if isinstance(event, TurnStarted):
            if event.channel != self.channel:
                return
            remember(self.turns, event.turn_id, (event.chat_id, event.request_id))
            self._running.setdefault(event.chat_id, set()).add(event.turn_id)
            task = self._typing.get(event.chat_id)
            if task is None or task.done():
                started = self._owner.try_spawn(self._type(event.chat_id), name="typing")
                if started is not None:
                    self._typing[event.chat_id] = started
        elif isinstance(event, TurnFinished | TurnStopped | TurnFailed):
            turn = self.turns.get(event.turn_id)
            if turn is None:
                return
            chat_id, request_id = turn
            running = self._running.get(chat_id, set())
            running.discard(event.turn_id)
            if not running:
                self._running.pop(chat_id, None)
                task = self._typing.pop(chat_id, None)
                if task is not None:
                    task.cancel()
            message_id = message_of(chat_id, request_id)
            if message_id is not None and reaction:
                self.react(chat_id, message_id, reaction, add=False)

    def react(self, chat_id: str, message_id: int, emoji: str, *, add: bool = True) -> None:
        """Add (or remove) the bot's reaction, in the background."""
        self._owner.try_spawn(
            self.set_reaction(chat_id, message_id, emoji, add=add), name="reaction"
        )

    async def _type(self, chat_id: str) -> None:
        # Not a busy wait: the indicator fades by itself, so it is sent again every few seconds.
        while await self.show_typing(chat_id):  # noqa: ASYNC110
            await asyncio.sleep(self.typing_every)
