"""Discord's typing indicator (``POST /channels/{id}/typing``, renewed every 8 s, as Discord shows
it for about ten) and the reaction on the message a turn answers (see
:mod:`desktop.core.channels.activity`)."""

from __future__ import annotations

import logging
from collections.abc import Callable

import discord

from desktop.core.channels.activity import TurnActivity
from desktop.core.utils.redact import redact
from desktop.core.utils.tasks import TaskOwner

log = logging.getLogger(__name__)


class Activity(TurnActivity):
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
        super().__init__("discord", owner, typing_every=typing_every)
        self._client = client

    async def show_typing(self, chat_id: str) -> bool:
        """One typing call."""
        client = self._client()
        if client is None:
            return False
        try:
            await client.get_partial_messageable(int(chat_id)).typing()
        except (discord.DiscordException, ValueError) as exc:
            log.debug("Discord: typing indicator failed: %s", redact(exc))
        return True

    async def set_reaction(self, chat_id: str, message_id: int, emoji: str, *, add: bool) -> None:
        """Add or remove the bot's own reaction."""
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
