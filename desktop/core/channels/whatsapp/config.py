"""Settings of the whatsapp channel (``channels.whatsapp`` in nanobot's config.json)."""

from __future__ import annotations

from desktop.core.config.base import ChannelBase


class WhatsAppConfig(ChannelBase):
    """WhatsApp through a bridge."""

    bridge_url: str = "ws://localhost:3001"
    bridge_token: str = ""
