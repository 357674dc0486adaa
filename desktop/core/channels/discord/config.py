"""Settings of the discord channel (``channels.discord`` in nanobot's config.json)."""

from __future__ import annotations

from typing import Literal

from desktop.core.config.base import ChannelBase


class DiscordConfig(ChannelBase):
    """Discord bot."""

    token: str = ""
    group_policy: Literal["mention", "open"] = "mention"
