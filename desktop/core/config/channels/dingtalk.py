"""Settings of the dingtalk channel (``channels.dingtalk`` in nanobot's config.json).

The field names and defaults are nanobot 0.3.5's (``clientId``, ``clientSecret``,
``groupUserIsolation``, ``disablePrivateChat``…), so an existing nanobot config loads as it is.
``clientSecret`` is kept in the keyring by Settings. ``baseUrl`` and ``oapiUrl`` are ours
(where DingTalk's OpenAPI servers are; changed only for tests or a proxy).
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from desktop.core.config.base import ChannelBase

DEFAULT_BASE_URL = "https://api.dingtalk.com"
DEFAULT_OAPI_URL = "https://oapi.dingtalk.com"


class DingTalkConfig(ChannelBase):
    """DingTalk robot in stream mode."""

    # nanobot settings read and saved unchanged but not used here (no control in Settings).
    kept_fields: ClassVar[frozenset[str]] = frozenset(
        {"allow_remote_media_redirects", "remote_media_redirect_allowed_hosts"}
    )

    client_id: str = Field(
        "",
        title="Client ID",
        description=(
            "The Client ID (AppKey) of your DingTalk app, from the developer console "
            "(open-dev.dingtalk.com → your app → Credentials). It is also the robot code."
        ),
    )
    client_secret: str = Field(
        "",
        title="Client secret",
        description="The Client Secret (AppSecret) of the same app. Kept in the keyring.",
    )
    group_user_isolation: bool = Field(
        False,
        title="One conversation per person in groups",
        description=(
            "In a group, keep a separate conversation with the agent for every member "
            "(otherwise the whole group shares one)."
        ),
    )
    disable_private_chat: bool = Field(
        False,
        title="Groups only",
        description="Ignore one-to-one messages to the robot; answer only in groups.",
    )
    allow_remote_media_redirects: bool = Field(
        False,
        title="Follow redirects of remote media",
        description="nanobot's setting for sending media from web addresses; not used here.",
    )
    remote_media_redirect_allowed_hosts: list[str] = Field(
        default_factory=list,
        title="Redirect hosts for remote media",
        description="nanobot's setting for sending media from web addresses; not used here.",
    )
    base_url: str = Field(
        DEFAULT_BASE_URL,
        title="OpenAPI server",
        description=(
            "Where DingTalk's OpenAPI is (the stream gateway, access tokens, robot messages). "
            "Change it only for a proxy or a test server."
        ),
    )
    oapi_url: str = Field(
        DEFAULT_OAPI_URL,
        title="Media upload server",
        description=(
            "Where DingTalk's older API is (file uploads for images and files the agent "
            "sends). Change it only for a proxy or a test server."
        ),
    )
