"""Settings of the qq channel (``channels.qq`` in nanobot's config.json)."""

from __future__ import annotations

from desktop.core.config.base import ChannelBase


class QQConfig(ChannelBase):
    """QQ bot."""

    app_id: str = ""
    secret: str = ""
