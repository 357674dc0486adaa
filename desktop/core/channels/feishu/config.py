"""Settings of the feishu channel (``channels.feishu`` in nanobot's config.json)."""

from __future__ import annotations

from desktop.core.config.base import ChannelBase


class FeishuConfig(ChannelBase):
    """Feishu / Lark over a WebSocket long connection."""

    app_id: str = ""
    app_secret: str = ""
    encrypt_key: str = ""
    verification_token: str = ""
