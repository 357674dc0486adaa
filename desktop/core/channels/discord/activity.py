"""What a Discord chat sees while the agent works: ``typing…`` and a reaction on the message.

A turn of a Discord chat starts the typing indicator (``POST /channels/{id}/typing``, renewed
every 8 s, as Discord shows it for about ten); it stops when the chat's last running turn
ends. The message a turn answers gets ``readReceiptEmoji`` when it arrives (see the channel)
and loses it when its turn ends. Every task is owned by the channel's :class:`TaskOwner`.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable

import discord

from desktop.core.bus.events import RunEvent, TurnFailed, TurnFinished, TurnStarted, TurnStopped
from desktop.core.utils.redact import redact
from desktop.core.utils.tasks import TaskOwner

log = logging.getLogger(__name__)

REMEMBERED = 1000


def remember(store: OrderedDict[str, tuple[str, str]], key: str, value: tuple[str, str]) -> None:
    """Store ``key`` and forget the oldest entries beyond :data:`REMEMBERED`."""
    store[key] = value
    while len(store) > REMEMBERED:
        store.popitem(last=False)


def message_of(chat_id: str, request_id: str) -> int | None:
    """The Discord message id in an inbound message id (``"<channel>:<message>"``)."""
    chat, _, message = request_id.rpartition(":")
    return int(message) if chat == chat_id and message.isdigit() else None


class Activity:
    """Typing indicators and reactions for the Discord channel.

    Args:
        client: Returns the connected client, or ``None``.
        owner: Owns the typing loops and reaction calls.
        typing_every: Seconds between two typing calls.
    """

    def __init__(
        self,
        client: Callable[[], discord.Client | None],
        owner: TaskOwner,
        *,
        typing_every: float = 8.0,
    ) -> None:
        self._client = client
        self._owner = owner
        self.typing_every = typing_every
        self.turns: OrderedDict[str, tuple[str, str]] = OrderedDict()  # turn → (chat, request)
        self._running: dict[str, set[str]] = {}
        self._typing: dict[str, asyncio.Task[None]] = {}

    def request_of(self, turn_id: str) -> str | None:
        """The inbound message id a turn answers, if known."""
        turn = self.turns.get(turn_id)
        return turn[1] if turn is not None else None

    def on_event(self, event: RunEvent, *, reaction: str) -> None:
        """Start typing when a turn starts; stop (and unreact) when it ends."""
        if isinstance(event, TurnStarted):
            if event.channel != "discord":
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
        self._owner.try_spawn(self._react(chat_id, message_id, emoji, add), name="reaction")

    async def _type(self, chat_id: str) -> None:
        while True:
            client = self._client()
            if client is None:
                return
            try:
                await client.get_partial_messageable(int(chat_id)).typing()
            except (discord.DiscordException, ValueError) as exc:
                log.debug("Discord: typing indicator failed: %s", redact(exc))
            await asyncio.sleep(self.typing_every)

    async def _react(self, chat_id: str, message_id: int, emoji: str, add: bool) -> None:
        client = self._client()
        if client is None or client.user is None:
            return
        message = client.get_partial_messageable(int(chat_id)).get_partial_message(message_id)
        try:
            if add:
                await message.add_reaction(emoji)
            else:
                await message.remove_reaction(emoji, client.user)
        except (discord.DiscordException, ValueError) as exc:
            log.debug("Discord: reaction failed: %s", redact(exc))
