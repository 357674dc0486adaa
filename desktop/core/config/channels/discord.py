"""Settings of the discord channel (``channels.discord`` in nanobot's config.json).

The field names and defaults are nanobot's (``token``, ``allowFrom``, ``allowChannels``,
``intents``, ``groupPolicy``, ``readReceiptEmoji``, ``gatewayUrl``…), so an existing nanobot
config loads unchanged. ``token`` and ``proxyPassword`` are kept in the keyring by Settings.
``apiBase`` is ours (a Discord-compatible API elsewhere, e.g. a proxy or a test server).
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from desktop.core.config.base import ChannelBase

DEFAULT_API_BASE = "https://discord.com/api/v10"
DEFAULT_GATEWAY_URL = "wss://gateway.discord.gg/?v=10&encoding=json"
DEFAULT_INTENTS = 37377  # GUILDS, GUILD_MESSAGES, DIRECT_MESSAGES, MESSAGE_CONTENT


class DiscordConfig(ChannelBase):
    """Discord bot."""

    # nanobot settings read and saved unchanged but not used here (no control in Settings).
    kept_fields: ClassVar[frozenset[str]] = frozenset(
        {"working_emoji", "working_emoji_delay", "streaming"}
    )

    token: str = Field(
        "",
        title="Bot token",
        description=(
            "The bot's token (Developer Portal → your application → Bot → Reset Token). Kept "
            "in the keyring."
        ),
    )
    group_policy: Literal["mention", "open"] = Field(
        "mention",
        title="Server channel policy",
        description=(
            'In server channels, answer every message ("open") or only messages that mention '
            'the bot or reply to it ("mention"). Direct messages are always answered.'
        ),
    )
    allow_channels: list[str] = Field(
        default_factory=list,
        title="Allowed channels",
        description="Channel ids the bot listens in (empty: every channel it can read).",
    )
    intents: int = Field(
        DEFAULT_INTENTS,
        ge=0,
        title="Gateway intents",
        description=(
            "The gateway intents bit field. The default (37377) is servers, server messages, "
            "direct messages and message content."
        ),
    )
    read_receipt_emoji: str = Field(
        "👀",
        title="Reaction",
        description="Emoji the bot reacts with while it works on a message (empty: none).",
    )
    working_emoji: str = Field(
        "🔧",
        title="Working emoji",
        description="nanobot's second reaction for long tasks; not used by the desktop app.",
    )
    working_emoji_delay: float = Field(
        2.0,
        ge=0,
        title="Working emoji delay",
        description="nanobot's seconds before the working emoji; not used by the desktop app.",
    )
    streaming: bool = Field(
        True,
        title="Streaming",
        description="nanobot's streamed answers (message edits); not used by the desktop app.",
    )
    proxy: str | None = Field(
        None,
        title="Proxy",
        description='HTTP proxy for Discord, e.g. "http://127.0.0.1:8080".',
    )
    proxy_username: str | None = Field(
        None, title="Proxy user name", description="For a proxy that needs a login."
    )
    proxy_password: str | None = Field(
        None, title="Proxy password", description="For a proxy that needs a login."
    )
    gateway_url: str = Field(
        DEFAULT_GATEWAY_URL,
        title="Gateway",
        description=(
            "The gateway WebSocket address. Left at Discord's, the address the API names "
            "(GET /gateway/bot) is used."
        ),
    )
    api_base: str = Field(
        DEFAULT_API_BASE,
        title="API address",
        description="Where Discord's REST API is. Change it only for a Discord-compatible proxy.",
    )
