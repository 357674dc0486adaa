"""discord.py's client as the Discord channel uses it: built for the settings, events handed on.

:func:`build_client` points discord.py at ``apiBase`` (``discord.http.Route.BASE``, process
wide), applies the proxy and ``intents``, and wraps every gateway event parser but READY and
RESUMED so that one event discord.py cannot read is logged and skipped instead of ending the
connection. A READY (a fresh session, not a resume) is reported through
:attr:`ClientEvents.fresh_session` before any message of the new session.

:func:`close_client` closes a client and also ends the task discord.py starts after READY,
which ``Client.close`` leaves running.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import aiohttp
import discord
from discord.http import Route

from desktop.core.channels.base import ChannelUnavailable
from desktop.core.config.channels.discord import DEFAULT_API_BASE, DiscordConfig
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.redact import redact
from desktop.core.utils.tasks import cancel_and_wait

log = logging.getLogger(__name__)

UNGUARDED = frozenset({"READY", "RESUMED"})  # their failure must end the connection


@dataclass(frozen=True)
class ClientEvents:
    """Where the client's events go (the channel's handlers).

    Attributes:
        connected: The gateway connection is up (connected or resumed).
        disconnected: The gateway connection dropped (discord.py reconnects it).
        ready: discord.py dispatched ``ready`` (the servers have been announced).
        fresh_session: A READY arrived: a new session, whose messages follow.
        message: A message was created.
        interaction: A button was pressed (or another interaction arrived).
    """

    connected: Callable[[], None]
    disconnected: Callable[[], None]
    ready: Callable[[], None]
    fresh_session: Callable[[], None]
    message: Callable[[discord.Message], None]
    interaction: Callable[[discord.Interaction], Awaitable[None]]


class GatewayClient(discord.Client):
    """discord.py's client, its events handed to :class:`ClientEvents`."""

    def __init__(self, events: ClientEvents, **options: Any) -> None:
        super().__init__(**options)
        self._events = events

    async def on_connect(self) -> None:
        self._events.connected()

    async def on_resumed(self) -> None:
        self._events.connected()

    async def on_disconnect(self) -> None:
        self._events.disconnected()

    async def on_ready(self) -> None:
        self._events.ready()

    async def on_message(self, message: discord.Message) -> None:
        self._events.message(message)

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        await self._events.interaction(interaction)

    async def on_error(self, event_method: str, /, *args: Any, **kwargs: Any) -> None:
        log.exception("Discord: handling %s failed", event_method)


def build_client(
    config: DiscordConfig, events: ClientEvents, *, guild_ready_timeout: float = 2.0
) -> GatewayClient:
    """A client for ``config`` (and discord.py pointed at its ``apiBase``).

    Args:
        config: The channel's settings.
        events: Where the client's events go.
        guild_ready_timeout: After READY, how long discord.py waits for one more
            GUILD_CREATE before it dispatches ``ready`` (discord.py's own default, 2 s: it
            does not count the servers READY announced, it waits for a quiet spell).

    Raises:
        ChannelUnavailable: ``apiBase`` is not an http(s) address.
    """
    base = (config.api_base or DEFAULT_API_BASE).strip().rstrip("/")
    if not base.startswith(("http://", "https://")):
        raise ChannelUnavailable(
            Phrase(
                QT_TR_NOOP("The API address {base} is not an http(s) address."), base=repr(base)
            ),
            QT_TR_NOOP("Fix the API address in Settings → Channels → Discord (or clear it)."),
        )
    Route.BASE = base
    proxy = (config.proxy or "").strip() or None
    if proxy and "://" not in proxy:
        proxy = f"http://{proxy}"
    auth = None
    if proxy and config.proxy_username:
        auth = aiohttp.BasicAuth(config.proxy_username, config.proxy_password or "")
    intents = discord.Intents._from_value(int(config.intents))
    client = GatewayClient(
        events,
        intents=intents,
        proxy=proxy,
        proxy_auth=auth,
        max_messages=None,
        guild_ready_timeout=guild_ready_timeout,
    )
    parsers = client._connection.parsers
    for event, parse in list(parsers.items()):
        if event not in UNGUARDED:
            parsers[event] = _guarded(event, parse)
    ready = parsers["READY"]

    def fresh_session(data: Any) -> None:
        ready(data)
        events.fresh_session()

    parsers["READY"] = fresh_session
    return client


async def close_client(client: discord.Client) -> None:
    """Close ``client`` and end the task its last READY started.

    After READY, discord.py waits in a task of its own (``ConnectionState._delay_ready``) for
    the servers' GUILD_CREATE events before it dispatches ``ready``; ``Client.close`` leaves
    that task running (``Client.run`` cancels every task of its loop instead, which an app
    sharing its loop cannot do). discord.py offers no call for it, so it is ended here, after
    the close, when no new READY can start another.
    """
    try:
        await client.close()
    finally:
        ready = getattr(client._connection, "_ready_task", None)
        if isinstance(ready, asyncio.Task) and not ready.done():
            await cancel_and_wait(ready)


def _guarded(event: str, parse: Callable[[Any], None]) -> Callable[[Any], None]:
    """``parse`` that logs and skips an event it cannot read instead of raising."""

    def guarded(data: Any) -> None:
        try:
            parse(data)
        except Exception as exc:  # noqa: BLE001 - one bad event must not end the connection
            log.warning("Discord: skipped a malformed %s event (%s)", event, redact(repr(exc)))

    return guarded
