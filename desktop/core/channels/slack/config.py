"""Settings of the slack channel (``channels.slack`` in nanobot's config.json)."""

from __future__ import annotations

from desktop.core.config.base import ChannelBase


class SlackConfig(ChannelBase):
    """Slack app in socket mode."""

    bot_token: str = ""
    app_token: str = ""
    reply_in_thread: bool = True
    group_policy: str = "mention"
