"""What a chat sees while the agent works: ``typing…`` and a reaction on the message.

A turn of a Telegram chat starts typing (``sendChatAction``, renewed every few seconds, as
Telegram shows it for about five); the indicator stops when the chat's last running turn
ends. The message a turn answers gets ``reactEmoji`` when it arrives (see the channel) and
loses it when its turn ends. Every task is owned by the channel's :class:`TaskOwner`.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable

from telegram import Bot, ReactionTypeEmoji
from telegram.constants import ChatAction
from telegram.error import TelegramError

from desktop.core.bus.events import RunEvent, TurnFailed, TurnFinished, TurnStarted, TurnStopped
from desktop.core.channels.telegram.outbound import message_of, remember
from desktop.core.utils.redact import redact
from desktop.core.utils.tasks import TaskOwner

log = logging.getLogger(__name__)


class Activity:
    """Typing indicators and reactions for one channel.

    Args:
        channel: The channel name (events of other channels are ignored).
        bot: Returns the connected bot, or ``None``.
        owner: Owns the typing loops and reaction calls.
        typing_every: Seconds between two typing actions.
    """

    def __init__(
        self,
        channel: str,
        bot: Callable[[], Bot | None],
        owner: TaskOwner,
        *,
        typing_every: float = 4.0,
    ) -> None:
        self.channel = channel
        self._bot = bot
        self._owner = owner
        self.typing_every = typing_every
        self.turns: OrderedDict[str, tuple[str, str]] = OrderedDict()  # turn → (chat, request)
        self._running: dict[str, set[str]] = {}  # chat → its running turns
        self._typing: dict[str, asyncio.Task[None]] = {}

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
                self.react(chat_id, message_id, None)

    def react(self, chat_id: str, message_id: int, emoji: str | None) -> None:
        """Set (or with ``None`` remove) the bot's reaction, in the background."""
        self._owner.try_spawn(self._react(chat_id, message_id, emoji), name="reaction")

    async def _type(self, chat_id: str) -> None:
        while True:
            bot = self._bot()
            if bot is None:
                return
            try:
                await bot.send_chat_action(int(chat_id), ChatAction.TYPING)
            except (TelegramError, ValueError) as exc:
                log.debug("Telegram: typing indicator failed: %s", redact(exc))
            await asyncio.sleep(self.typing_every)

    async def _react(self, chat_id: str, message_id: int, emoji: str | None) -> None:
        bot = self._bot()
        if bot is None:
            return
        try:
            await bot.set_message_reaction(
                int(chat_id), message_id, [ReactionTypeEmoji(emoji)] if emoji else []
            )
        except (TelegramError, ValueError) as exc:
            log.debug("Telegram: reaction failed: %s", redact(exc))
