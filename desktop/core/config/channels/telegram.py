"""Settings of the telegram channel (``channels.telegram`` in nanobot's config.json).

The field names and defaults are nanobot 0.3.5's, so an existing nanobot config loads as it
is. The desktop app always long-polls; the webhook fields are kept for nanobot (a config with
``mode: "webhook"`` makes the channel unavailable here rather than silently deleting the
webhook another nanobot relies on). ``baseUrl`` is ours (a self-hosted Bot API server).
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from desktop.core.config.base import ChannelBase

DEFAULT_BASE_URL = "https://api.telegram.org"


class TelegramConfig(ChannelBase):
    """Telegram bot."""

    # nanobot settings read and saved unchanged but not used here (no control in Settings).
    kept_fields: ClassVar[frozenset[str]] = frozenset(
        {
            "streaming",
            "inline_keyboards",
            "rich_messages",
            "stream_edit_interval",
            "webhook_url",
            "webhook_listen_host",
            "webhook_listen_port",
            "webhook_path",
            "webhook_secret_token",
            "webhook_max_connections",
        }
    )

    token: str = Field(
        "",
        title="Bot token",
        description="The token @BotFather gave you for your bot (/newbot). Kept in the keyring.",
    )
    mode: Literal["polling", "webhook"] = Field(
        "polling",
        title="Mode",
        description=(
            "How updates arrive. The desktop app long-polls; webhook mode is nanobot's (a "
            "public HTTPS server) and is not available here."
        ),
    )
    proxy: str | None = Field(
        None,
        title="Proxy",
        description='HTTP or SOCKS proxy for the Bot API, e.g. "http://127.0.0.1:8080".',
    )
    reply_to_message: bool = Field(
        False,
        title="Reply to the message",
        description="Send answers as replies to the message they answer.",
    )
    react_emoji: str = Field(
        "👀",
        title="Reaction",
        description="Emoji the bot reacts with while it works on a message (empty: none).",
    )
    group_policy: Literal["open", "mention"] = Field(
        "mention",
        title="Group policy",
        description=(
            'In groups, answer every message ("open") or only messages that mention the bot '
            'or reply to it ("mention").'
        ),
    )
    connection_pool_size: int = Field(
        32, ge=1, title="Connection pool size", description="Parallel connections for sending."
    )
    pool_timeout: float = Field(
        5.0,
        ge=0,
        title="Pool timeout",
        description="Seconds to wait for a free connection before a send fails.",
    )
    streaming: bool = Field(
        True,
        title="Streaming",
        description="nanobot's streamed answers (message edits); not used by the desktop app.",
    )
    inline_keyboards: bool = Field(
        False,
        title="Inline keyboards",
        description=(
            "nanobot's buttons in answers; not used by the desktop app (approval questions "
            "always come with buttons)."
        ),
    )
    rich_messages: bool = Field(
        False,
        title="Rich messages",
        description="nanobot's Bot API 10.1 rich messages; not used by the desktop app.",
    )
    stream_edit_interval: float = Field(
        0.6,
        ge=0.1,
        title="Stream edit interval",
        description="nanobot's seconds between streamed edits; not used by the desktop app.",
    )
    webhook_url: str = Field(
        "", title="Webhook URL", description="nanobot's webhook mode only (public HTTPS URL)."
    )
    webhook_listen_host: str = Field(
        "127.0.0.1", title="Webhook listen host", description="nanobot's webhook mode only."
    )
    webhook_listen_port: int = Field(
        8081,
        ge=1,
        le=65535,
        title="Webhook listen port",
        description="nanobot's webhook mode only.",
    )
    webhook_path: str = Field(
        "/telegram", title="Webhook path", description="nanobot's webhook mode only."
    )
    webhook_secret_token: str = Field(
        "", title="Webhook secret token", description="nanobot's webhook mode only."
    )
    webhook_max_connections: int = Field(
        4,
        ge=1,
        le=100,
        title="Webhook max connections",
        description="nanobot's webhook mode only.",
    )
    base_url: str = Field(
        DEFAULT_BASE_URL,
        title="Bot API server",
        description=(
            "Where the Bot API is (calls go to <server>/bot<token>/<method>). Change it only "
            "for a self-hosted Bot API server."
        ),
    )
