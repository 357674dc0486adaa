"""Settings of the telegram channel (``channels.telegram`` in nanobot's config.json)."""

from __future__ import annotations

from desktop.core.config.base import ChannelBase


class TelegramConfig(ChannelBase):
    """Telegram bot."""

    token: str = ""
    proxy: str | None = None
    reply_to_message: bool = False
