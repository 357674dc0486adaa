"""Settings of the napcat channel (``channels.napcat`` in nanobot's config.json): QQ through a
NapCat (OneBot v11) server.

The field names and defaults are nanobot 0.3.5's (``wsUrl``, ``accessToken``, ``allowFrom``,
``groupPolicy``, ``groupPolicyOverrides``, ``welcomeNewMembers``, ``maxImageBytes``), so an
existing nanobot config loads unchanged. ``groupPolicy`` is ``"mention"``, ``"open"`` or a
number from 0 to 1 (answer a message that does not mention the account with that
probability); ``groupPolicyOverrides`` maps a group id to its own policy (kept in
config.json: the Settings form edits flat fields only). Settings keeps ``accessToken`` in the
keyring.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from desktop.core.config.base import ChannelBase


def _policy(value: str | float) -> str | float:
    """``mention``, ``open``, or a probability from 0 to 1 (a number written as text, as the
    Settings text box gives it, becomes a number)."""
    if isinstance(value, str):
        if value.strip() in ("mention", "open"):
            return value.strip()
        try:
            value = float(value)
        except ValueError:
            raise ValueError(
                'a group policy is "mention", "open" or a number from 0 to 1'
            ) from None
    if not 0.0 <= value <= 1.0:
        raise ValueError("a group policy's probability is from 0 to 1")
    return value


GroupPolicy = Annotated[str | float, AfterValidator(_policy)]
"""``mention``: only mentions of the account and replies to it; ``open``: every message; a
number p: mentions and replies, and other messages with probability p (nanobot's values)."""


class NapcatConfig(ChannelBase):
    """QQ through NapCat's OneBot v11 WebSocket server."""

    ws_url: str = Field(
        "ws://127.0.0.1:3001",
        title="NapCat address",
        description="The WebSocket server NapCat runs (its OneBot v11 WebSocket server).",
    )
    access_token: str = Field(
        "",
        title="Access token",
        description="The token set on NapCat's WebSocket server (empty: none). Kept in the keyring.",
    )
    group_policy: GroupPolicy = Field(
        "mention",
        title="Group policy",
        description=(
            'In groups, answer only mentions of the account and replies to it ("mention"), '
            'every message ("open"), or other messages too with a probability from 0 to 1.'
        ),
    )
    group_policy_overrides: dict[str, GroupPolicy] = Field(
        default_factory=dict,
        title="Group policy per group",
        description="A group id → its own policy.",
    )
    welcome_new_members: bool = Field(
        True,
        title="Welcome new members",
        description="Tell the agent when someone joins a group, so it can greet them.",
    )
    max_image_bytes: int = Field(
        20 * 1024 * 1024,
        ge=1,
        title="Largest image",
        description="Received images larger than this (bytes) are not downloaded.",
    )
