"""Telegram's ``typing…`` (``sendChatAction``, renewed every 4 s, as Telegram shows it for about
five) and the reaction on the message a turn answers (``setMessageReaction``; see
:mod:`desktop.core.channels.activity`)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from telegram import Bot, ReactionTypeEmoji
from telegram.constants import ChatAction
from telegram.error import TelegramError

from desktop.core.channels.activity import TurnActivity
from desktop.core.utils.redact import redact
from desktop.core.utils.tasks import TaskOwner

log = logging.getLogger(__name__)


class Activity(TurnActivity):
    """Typing indicators and reactions for the Telegram channel.

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
        super().__init__(channel, owner, typing_every=typing_every)
        self._bot = bot

    async def show_typing(self, chat_id: str) -> bool:
        """One ``sendChatAction(typing)``."""
        bot = self._bot()
        if bot is None:
            return False
        try:
            await bot.send_chat_action(int(chat_id), ChatAction.TYPING)
        except (TelegramError, ValueError) as exc:
            log.debug("Telegram: typing indicator failed: %s", redact(exc))
        return True

    async def set_reaction(self, chat_id: str, message_id: int, emoji: str, *, add: bool) -> None:
        """Set the message's reactions to ``emoji`` (or to none)."""
        bot = self._bot()
        if bot is None:
            return
        try:
            await bot.set_message_reaction(
                int(chat_id), message_id, [ReactionTypeEmoji(emoji)] if add else []
            )
        except (TelegramError, ValueError) as exc:
            log.debug("Telegram: reaction failed: %s", redact(exc))
