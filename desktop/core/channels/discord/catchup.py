"""Catch-up after downtime: the messages a fresh gateway session does not replay.

A resumed session gets the events it missed from Discord; a fresh one (after IDENTIFY: the app
started again, or discord.py could not resume) only gets what is created from then on. So the
channel keeps, per conversation, the id of the last message it handled (:class:`Positions`, the
``positions`` value of the channel state), and after each READY asks the REST API for what came
after it (``GET /channels/{id}/messages?after=<id>&limit=100``, :func:`fetch_after`).

Bounded: only conversations with a message in the last :data:`MAX_AGE` seconds, at most
:data:`MAX_CONVERSATIONS` of them (the most recently active), at most
:data:`MAX_MESSAGES` messages each (the oldest after the stored id; the rest are skipped, with
a warning). A conversation never seen has no position, so a first start replays nothing.
"""

from __future__ import annotations

import asyncio
import logging
import time
from functools import partial
from typing import Any

import discord

from desktop.core.channels.state import ChannelStateStore

log = logging.getLogger(__name__)

KEY = "positions"  # the state value: {chat id: {"last": id, "guild": id | None, "at": s}}
MAX_CONVERSATIONS = 50
MAX_MESSAGES = 100
MAX_AGE = 7 * 24 * 3600.0
PAGE = 100  # Discord's largest page


class Positions:
    """The last handled message per conversation, kept in the channel state.

    Args:
        state: The channel's state store.
    """

    def __init__(self, state: ChannelStateStore) -> None:
        self.state = state
        self._lock = asyncio.Lock()

    def _stored(self) -> dict[str, dict[str, Any]]:
        found = self.state.get(KEY, {})
        if not isinstance(found, dict):
            return {}
        return {
            str(chat): dict(entry)
            for chat, entry in found.items()
            if isinstance(entry, dict) and str(entry.get("last", "")).isdigit()
        }

    def due(self, now: float | None = None) -> list[tuple[int, int, int | None]]:
        """``(channel id, last message id, guild id)`` of the recent conversations, most
        recently active first (at most :data:`MAX_CONVERSATIONS`)."""
        now = time.time() if now is None else now
        recent: list[tuple[float, int, int, int | None]] = []
        for chat, entry in self._stored().items():
            at = entry.get("at")
            if not chat.isdigit() or not isinstance(at, int | float) or now - at > MAX_AGE:
                continue
            guild = str(entry.get("guild") or "")
            recent.append((float(at), int(chat), int(entry["last"]), int(guild) if guild else None))
        recent.sort(reverse=True)
        return [(chat, last, guild) for _, chat, last, guild in recent[:MAX_CONVERSATIONS]]

    async def advance(self, chat_id: int, message_id: int, guild_id: int | None) -> None:
        """Remember ``message_id`` as handled in ``chat_id`` (when it is newer); saved."""
        await self._save(chat_id, message_id, guild_id, only_new_conversation=False)

    async def know(self, chat_id: int, before_id: int, guild_id: int | None) -> None:
        """Remember ``chat_id`` as a conversation to catch up on from ``before_id`` on, when it
        has no position yet (a first message in it is about to be handed over); saved.

        Should the hand-over be interrupted before :meth:`advance` (a stop, a crash), the next
        catch-up still knows the conversation: it fetches that first message again, which the
        journal or the seen ids recognise, and whatever was sent after it.
        """
        await self._save(chat_id, before_id, guild_id, only_new_conversation=True)

    async def _save(
        self, chat_id: int, message_id: int, guild_id: int | None, *, only_new_conversation: bool
    ) -> None:
        async with self._lock:
            stored = self._stored()
            entry = stored.get(str(chat_id))
            if entry is not None and (only_new_conversation or int(entry["last"]) >= message_id):
                return
            stored[str(chat_id)] = {
                "last": str(message_id),
                "guild": str(guild_id) if guild_id is not None else None,
                "at": time.time(),
            }
            if len(stored) > MAX_CONVERSATIONS:
                newest = sorted(stored.items(), key=lambda item: -float(item[1].get("at") or 0))
                stored = dict(newest[:MAX_CONVERSATIONS])
            await asyncio.to_thread(partial(self.state.update, positions=stored))  # KEY


async def fetch_after(http: discord.http.HTTPClient, channel_id: int, after: int) -> list[Any]:
    """The raw messages of ``channel_id`` after ``after``, oldest first (at most
    :data:`MAX_MESSAGES`; Discord answers each page newest first)."""
    found: list[Any] = []
    while len(found) < MAX_MESSAGES:
        wanted = min(PAGE, MAX_MESSAGES - len(found))
        page = await http.logs_from(channel_id, wanted, after=after)
        page = sorted(page, key=lambda data: int(data["id"]))
        found.extend(page)
        if len(page) < wanted:
            return found
        after = int(page[-1]["id"])
    log.warning(
        "Discord: %d or more messages were missed in channel %s; any later ones are skipped",
        MAX_MESSAGES,
        channel_id,
    )
    return found
