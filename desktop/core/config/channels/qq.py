"""Settings of the qq channel (``channels.qq`` in nanobot's config.json).

The field names and defaults are nanobot 0.3.5's, so an existing nanobot config loads as it
is. ``secret`` (the bot's AppSecret) is kept in the keyring.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from desktop.core.config.base import ChannelBase


class QQConfig(ChannelBase):
    """QQ bot (QQ Open Platform)."""

    app_id: str = Field(
        "",
        title="AppID",
        description="The bot's AppID (q.qq.com → your bot → Development → Settings).",
    )
    secret: str = Field(
        "",
        title="AppSecret",
        description="The bot's AppSecret from the same page. Kept in the keyring.",
    )
    msg_format: Literal["plain", "markdown"] = Field(
        "plain",
        title="Message format",
        description=(
            'Send answers as plain text or as QQ markdown ("markdown" needs the markdown '
            "permission on the QQ Open Platform)."
        ),
    )
    ack_message: str = Field(
        "⏳ Processing...",
        title="Acknowledgement",
        description="Sent as soon as a message arrives, before the answer (empty: none).",
    )
    media_dir: str = Field(
        "",
        title="Media folder",
        description="Where received files are saved (empty: the workspace's media folder).",
    )
    download_chunk_size: int = Field(
        256 * 1024,
        ge=1024,
        title="Download chunk size",
        description="Bytes read at a time when a received file is downloaded.",
    )
    download_max_bytes: int = Field(
        200 * 1024 * 1024,
        ge=1024,
        title="Largest download",
        description="Received files larger than this many bytes are not downloaded.",
    )
