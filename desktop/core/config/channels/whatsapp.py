"""Settings of the whatsapp channel (``channels.whatsapp`` in nanobot's config.json).

The field names and defaults are nanobot 0.3.5's (``allowFrom``, ``groupPolicy``,
``databasePath``, ``proxy``, ``lidMappings``), so a 0.3.5 config loads unchanged and the channel
uses the same linked-device session (neonize's database) as 0.3.5. ``bridgeUrl`` and
``bridgeToken`` are the older nanobot's bridge: when ``bridgeUrl`` is set the channel is a client
of that bridge instead (the legacy way; Settings keeps ``bridgeToken`` in the keyring).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from desktop.core.config.base import ChannelBase

LEGACY_BRIDGE_URL = "ws://localhost:3001"
"""Where the old Node.js bridge listened by default (a config must name it to use it)."""


class WhatsAppConfig(ChannelBase):
    """WhatsApp, linked to your account as a device (like WhatsApp Web)."""

    group_policy: Literal["open", "mention"] = Field(
        "open",
        title="Group policy",
        description=(
            'In groups, answer every message ("open") or only messages that mention the '
            'linked account or reply to it ("mention").'
        ),
    )
    database_path: str = Field(
        "",
        title="Session database",
        description=(
            "The linked-device session (neonize's SQLite file). Empty: whatsapp-auth/neonize.db "
            "beside the config file, where nanobot keeps it, so one linking serves both."
        ),
    )
    proxy: str = Field(
        "",
        title="Proxy",
        description="An HTTP or SOCKS proxy for the WhatsApp connection (host:port or a URL).",
    )
    lid_mappings: dict[str, str] = Field(
        default_factory=dict,
        title="LID mappings",
        description="WhatsApp's hidden ids (LID) → phone numbers, for Allowed senders.",
    )
    bridge_url: str = Field(
        "",
        title="Bridge address (legacy)",
        description=(
            "Only for the old nanobot WhatsApp bridge: its WebSocket address (e.g. "
            f"{LEGACY_BRIDGE_URL}). Empty: WhatsApp is linked directly (recommended)."
        ),
    )
    bridge_token: str = Field(
        "",
        title="Bridge token (legacy)",
        description=(
            "Only with a bridge address: the BRIDGE_TOKEN the bridge was started with. Empty: "
            "the token nanobot saved in whatsapp-auth/bridge-token. Kept in the keyring."
        ),
    )


def uses_bridge(config: Any) -> bool:
    """Whether a ``channels.whatsapp`` section selects the legacy bridge (``bridgeUrl`` set)."""
    return bool(str(getattr(config, "bridge_url", "") or "").strip())
