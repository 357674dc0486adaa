"""Settings of the msteams channel (``channels.msteams`` in nanobot's config.json).

The field names and defaults are nanobot 0.3.5's, so an existing nanobot config loads as it
is. nanobot's conversation-reference housekeeping settings (``refTtlDays``,
``pruneWebChatRefs``, ``pruneNonPersonalRefs``, ``refTouchIntervalS``) are kept as they are.
``openIdMetadataUrl`` and ``loginUrl`` are ours (where Microsoft's sign-in keys and token
service are; tests point them at local servers).
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from desktop.core.config.base import ChannelBase

DEFAULT_TRUSTED_HOSTS = [
    "smba.trafficmanager.net",
    "smba.infra.gcc.teams.microsoft.com",
    "smba.infra.gov.teams.microsoft.us",
    "smba.infra.dod.teams.microsoft.us",
    "*.botframework.com",
]
OPENID_METADATA_URL = "https://login.botframework.com/v1/.well-known/openidconfiguration"
LOGIN_URL = "https://login.microsoftonline.com"


class MSTeamsConfig(ChannelBase):
    """A Microsoft Teams bot (Azure Bot registration) receiving on a local HTTP endpoint."""

    kept_fields: ClassVar[frozenset[str]] = frozenset(
        {
            "validate_inbound_auth",
            "ref_ttl_days",
            "prune_web_chat_refs",
            "prune_non_personal_refs",
            "ref_touch_interval_s",
        }
    )

    app_id: str = Field(
        "",
        title="App ID",
        description="The bot's Microsoft App ID (Azure Bot → Configuration).",
    )
    app_password: str = Field(
        "",
        title="App password",
        description="A client secret of that app (Certificates & secrets). Kept in the keyring.",
    )
    tenant_id: str = Field(
        "",
        title="Tenant ID",
        description="For a single-tenant bot, its Microsoft Entra tenant ID; empty otherwise.",
    )
    host: str = Field(
        "0.0.0.0",
        title="Listen address",
        description="Where the messaging endpoint listens (0.0.0.0: every interface).",
    )
    port: int = Field(3978, ge=1, le=65535, title="Port", description="Its port.")
    path: str = Field(
        "/api/messages",
        title="Path",
        description="Its path; the bot's messaging endpoint is https://<public host><path>.",
    )
    reply_in_thread: bool = Field(
        True,
        title="Reply to the message",
        description="Send each answer as a reply to the message it answers.",
    )
    mention_only_response: str = Field(
        "Hi — what can I help with?",
        title="Text of an empty mention",
        description="What the agent reads when a message is only an @mention of the bot.",
    )
    validate_inbound_auth: bool = Field(
        True,
        title="Check Microsoft's signature",
        description=(
            "nanobot's switch to accept unsigned requests; the desktop app always checks them."
        ),
    )
    ref_ttl_days: int = Field(
        30, ge=1, title="Conversation memory (days)", description="nanobot's."
    )
    prune_web_chat_refs: bool = Field(True, title="Prune Web Chat", description="nanobot's.")
    prune_non_personal_refs: bool = Field(True, title="Prune group chats", description="nanobot's.")
    ref_touch_interval_s: int = Field(300, ge=0, title="Touch interval", description="nanobot's.")
    trusted_service_url_hosts: list[str] = Field(
        default_factory=lambda: list(DEFAULT_TRUSTED_HOSTS),
        title="Trusted service hosts",
        description=(
            'Hosts the bot may answer to (Microsoft\'s by default; "*." matches subdomains).'
        ),
    )
    open_id_metadata_url: str = Field(
        OPENID_METADATA_URL,
        title="Sign-in keys address",
        description="Where Microsoft publishes the keys requests are signed with. Tests only.",
    )
    login_url: str = Field(
        LOGIN_URL,
        title="Token service address",
        description="Where the bot gets its tokens (the tenant is appended). Tests only.",
    )
