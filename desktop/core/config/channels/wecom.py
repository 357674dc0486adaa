"""Settings of the wecom channel (``channels.wecom`` in nanobot's config.json).

The field names and defaults are nanobot 0.3.5's (``botId``, ``secret``, ``welcomeMessage``), so
an existing nanobot config loads as it is. ``wsUrl`` is ours: where the long connection goes
(tests point it at a local server); nanobot always uses WeCom's own endpoint.
"""

from __future__ import annotations

from pydantic import Field

from desktop.core.config.base import ChannelBase

DEFAULT_WS_URL = "wss://openws.work.weixin.qq.com"


class WecomConfig(ChannelBase):
    """A WeCom (企业微信) AI bot on the WebSocket long connection."""

    bot_id: str = Field(
        "",
        title="Bot ID",
        description="The AI bot's Bot ID (WeCom admin console → AI bot → API mode: long connection).",
    )
    secret: str = Field(
        "",
        title="Secret",
        description="The AI bot's Secret, shown beside the Bot ID. Kept in the keyring.",
    )
    welcome_message: str = Field(
        "",
        title="Welcome message",
        description=("Sent when someone allowed opens a chat with the bot (empty: no greeting)."),
    )
    ws_url: str = Field(
        DEFAULT_WS_URL,
        title="Server",
        description="Where the long connection goes (WeCom's own endpoint unless told otherwise).",
    )
