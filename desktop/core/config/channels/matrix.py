"""Settings of the matrix channel (``channels.matrix`` in nanobot's config.json).

The field names and defaults are nanobot's (``homeserver``, ``userId``, ``accessToken``,
``groupPolicy``…), so an existing nanobot config loads unchanged. ``password`` and
``accessToken`` are kept in the keyring by Settings.
"""

from __future__ import annotations

import sys
from typing import ClassVar, Literal

from pydantic import Field

from desktop.core.config.base import ChannelBase


class MatrixConfig(ChannelBase):
    """Matrix (Element and any other Matrix client)."""

    # nanobot settings read and saved unchanged but not used here (no control in Settings).
    kept_fields: ClassVar[frozenset[str]] = frozenset({"sas_verification", "streaming"})

    homeserver: str = Field(
        "https://matrix.org",
        title="Homeserver",
        description="The address of the bot account's homeserver (https://matrix.example.org).",
    )
    user_id: str = Field(
        "",
        title="User ID",
        description="The bot account's full Matrix ID, e.g. @nanobot:matrix.org.",
    )
    password: str = Field(
        "",
        title="Password",
        description=(
            "Log in with the account's password (a new session each start, logged out on "
            "stop). Leave empty when you give an access token."
        ),
    )
    access_token: str = Field(
        "",
        title="Access token",
        description=(
            "An access token of the bot account (Element: Settings → Help & About → Access "
            "token, or the login API). Preferred over a password."
        ),
    )
    device_id: str = Field(
        "",
        title="Device ID",
        description="The session (device) the access token belongs to; optional.",
    )
    e2ee_enabled: bool = Field(
        sys.platform != "win32",
        alias="e2eeEnabled",  # the generator would say "e2EeEnabled"
        title="End-to-end encryption",
        description=(
            "Read and answer in encrypted rooms. Needs an access token (its device keeps its "
            "keys in a local store, encrypted with a key derived from the token); with a "
            "password login, or turned off, encrypted rooms get a short notice instead."
        ),
    )
    sas_verification: bool = Field(
        False,
        title="Emoji verification",
        description=(
            "Kept for nanobot compatibility; has no effect (the bot does not verify devices: "
            "it sends to unverified ones)."
        ),
    )
    sync_stop_grace_seconds: int = Field(
        2,
        ge=0,
        title="Stop grace (s)",
        description="How long stopping the channel waits for a clean log-out.",
    )
    max_media_bytes: int = Field(
        20 * 1024 * 1024,
        ge=0,
        title="Largest attachment (bytes)",
        description="Received files larger than this are not downloaded (0: none are).",
    )
    max_concurrent_media_downloads: int = Field(
        2,
        ge=1,
        title="Parallel downloads",
        description="How many received files are downloaded at the same time.",
    )
    group_policy: Literal["open", "mention", "allowlist"] = Field(
        "open",
        title="Group rooms",
        description=(
            "Rooms with more than two members: open (answer every allowed sender), mention "
            "(only when the bot is mentioned or replied to) or allowlist (only the rooms in "
            "Group rooms allowed). Direct chats are always answered."
        ),
    )
    group_allow_from: list[str] = Field(
        default_factory=list,
        title="Group rooms allowed",
        description="Room IDs (!abc:server) answered under the allowlist group policy.",
    )
    allow_room_mentions: bool = Field(
        False,
        title="Answer @room",
        description="Under the mention policy, an @room mention also counts as a mention.",
    )
    streaming: bool = Field(
        False,
        title="Streaming",
        description="Kept for nanobot compatibility; answers are sent whole.",
    )
    proxy: str | None = Field(
        None,
        title="Proxy",
        description="An HTTP or SOCKS proxy for the homeserver connection (http://host:port).",
    )
