"""Settings of the mochat channel (``channels.mochat`` in nanobot's config.json)."""

from __future__ import annotations

from desktop.core.config.base import ChannelBase


class MochatConfig(ChannelBase):
    """Mochat over Socket.IO."""
