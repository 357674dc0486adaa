"""Settings of the weixin channel (``channels.weixin`` in nanobot's config.json).

The field names and defaults are nanobot 0.3.5's, so an existing nanobot config loads as it is.
The bot token normally comes from the QR login (``nanobot-desktop channels login weixin``, or the
code Settings shows while the channel waits) and is kept with the account in
``<config folder>/weixin/account.json``, where nanobot keeps it; ``token`` is for a token typed in.
nanobot's progress and block-streaming settings are kept as they are but not used here.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from desktop.core.config.base import ChannelBase

DEFAULT_BASE_URL = "https://ilinkai.weixin.qq.com"
DEFAULT_CDN_URL = "https://novac2c.cdn.weixin.qq.com/c2c"


class WeixinConfig(ChannelBase):
    """Personal WeChat through the iLink bot API."""

    kept_fields: ClassVar[frozenset[str]] = frozenset(
        {
            "route_tag",
            "send_progress",
            "send_tool_hints",
            "reply_progress_messages",
            "reply_progress_max_messages",
            "context_message_budget",
            "streaming",
            "block_streaming",
            "block_streaming_min_chars",
            "block_streaming_max_messages",
        }
    )

    token: str = Field(
        "",
        title="Bot token",
        description=(
            "Empty: the QR login's token (saved with the account). A token typed here is kept "
            "in the keyring and used instead."
        ),
    )
    base_url: str = Field(
        DEFAULT_BASE_URL, title="Server", description="The iLink bot API's address."
    )
    cdn_base_url: str = Field(
        DEFAULT_CDN_URL,
        title="CDN server",
        description="Where the pictures and files people send are downloaded from.",
    )
    route_tag: str | int | None = Field(None, title="Route tag")
    state_dir: str = Field(
        "",
        title="Account folder",
        description="Where the login is kept (empty: the weixin folder beside config.json).",
    )
    poll_timeout: int = Field(
        35,
        ge=5,
        le=120,
        title="Long-poll timeout (s)",
        description="How long one wait for new messages may last.",
    )
    send_progress: bool = False
    send_tool_hints: bool = False
    reply_progress_messages: bool = False
    reply_progress_max_messages: int = Field(2, ge=0, le=4)
    context_message_budget: int = Field(8, ge=1, le=10)
    streaming: bool = True
    block_streaming: bool = False
    block_streaming_min_chars: int = Field(1200, ge=200, le=1800)
    block_streaming_max_messages: int = Field(3, ge=1, le=4)
