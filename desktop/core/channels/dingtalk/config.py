"""Settings of the dingtalk channel (``channels.dingtalk`` in nanobot's config.json)."""

from __future__ import annotations

from desktop.core.config.base import ChannelBase


class DingTalkConfig(ChannelBase):
    """DingTalk in stream mode."""

    client_id: str = ""
    client_secret: str = ""
