"""Settings of the matrix channel (``channels.matrix`` in nanobot's config.json)."""

from __future__ import annotations

from desktop.core.config.base import ChannelBase


class MatrixConfig(ChannelBase):
    """Matrix (Element)."""

    homeserver: str = "https://matrix.org"
    user_id: str = ""
    access_token: str = ""
