"""Settings of the whatsapp channel (``channels.whatsapp`` in nanobot's config.json).

The field names and defaults are nanobot's (``bridgeUrl``, ``bridgeToken``, ``allowFrom``,
``groupPolicy``), so an existing nanobot config loads unchanged; keys of other nanobot versions
(``identityResolution``, ``proxy``, ``databasePath``) are kept as they are on save. Settings
keeps ``bridgeToken`` in the keyring.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from desktop.core.config.base import ChannelBase

DEFAULT_BRIDGE_URL = "ws://localhost:3001"


class WhatsAppConfig(ChannelBase):
    """WhatsApp through nanobot's bridge (a local Node.js process that links WhatsApp Web)."""

    bridge_url: str = Field(
        DEFAULT_BRIDGE_URL,
        title="Bridge address",
        description=(
            "The WebSocket address of the running WhatsApp bridge (BRIDGE_PORT; default "
            "ws://localhost:3001)."
        ),
    )
    bridge_token: str = Field(
        "",
        title="Bridge token",
        description=(
            "The BRIDGE_TOKEN the bridge was started with. Empty: the token nanobot saved in "
            "whatsapp-auth/bridge-token beside the config file. Kept in the keyring."
        ),
    )
    group_policy: Literal["open", "mention"] = Field(
        "open",
        title="Group policy",
        description=(
            'In groups, answer every message ("open") or only messages that mention the '
            'linked account ("mention").'
        ),
    )
