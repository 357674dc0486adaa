"""Settings of the feishu channel (``channels.feishu`` in nanobot's config.json).

The field names and defaults are nanobot's (``appId``, ``appSecret``, ``groupPolicy``,
``reactEmoji``, ``domain``…), so an existing nanobot section loads unchanged; nanobot's
multi-instance keys (``instanceId``, ``name``, ``identityKey``) are kept as they are.
``appSecret``, ``encryptKey`` and ``verificationToken`` are kept in the keyring by Settings.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from desktop.core.config.base import ChannelBase

DOMAINS = {"feishu": "https://open.feishu.cn", "lark": "https://open.larksuite.com"}


class FeishuConfig(ChannelBase):
    """Feishu / Lark over a WebSocket long connection."""

    # nanobot settings read and saved unchanged but not used here (no control in Settings).
    kept_fields: ClassVar[frozenset[str]] = frozenset({"streaming"})

    app_id: str = Field(
        "",
        title="App ID",
        description=(
            "The App ID of your self-built app (Developer Console → Credentials & Basic Info), "
            "cli_…"
        ),
    )
    app_secret: str = Field(
        "", title="App secret", description="The app's App Secret (same page as the App ID)."
    )
    encrypt_key: str = Field(
        "",
        title="Encrypt key",
        description="Only for webhook delivery; the long connection does not need it.",
    )
    verification_token: str = Field(
        "",
        title="Verification token",
        description="Only for webhook delivery; the long connection does not need it.",
    )
    domain: Literal["feishu", "lark"] = Field(
        "feishu",
        title="Platform",
        description='"feishu" (open.feishu.cn, China) or "lark" (open.larksuite.com).',
    )
    group_policy: Literal["open", "mention"] = Field(
        "mention",
        title="Group chats",
        description='"mention": answer only when the bot is @mentioned; "open": every message.',
    )
    react_emoji: str = Field(
        "THUMBSUP",
        title="Working reaction",
        description=(
            "Emoji type put on a message while the agent works on it (THUMBSUP, OK, EYES, "
            "OnIt…); empty: none."
        ),
    )
    done_emoji: str | None = Field(
        None,
        title="Done reaction",
        description="Emoji type put on the message once answered (DONE, OK…); empty: none.",
    )
    tool_hint_prefix: str = Field(
        "\U0001f527",
        title="Tool hint prefix",
        description="Put before tool hints (when Settings → Channels sends tool hints).",
    )
    reply_to_message: bool = Field(
        False,
        title="Quote the message",
        description="Answer as a reply to the person's message instead of a new message.",
    )
    streaming: bool = Field(
        True,
        title="Streaming",
        description="nanobot's streaming cards; the desktop app sends each answer whole.",
    )
    topic_isolation: bool = Field(
        True,
        title="Topic isolation",
        description=(
            "In groups, each message and the replies in its thread are a conversation of "
            "their own (answers to a topic stay in the topic); off: one conversation per group."
        ),
    )
    base_url: str = Field(
        "",
        title="API address",
        description=(
            "Advanced: the Open API address to use instead of the platform's (a proxy or a "
            "private deployment); empty: from Platform."
        ),
    )

    @property
    def api_base(self) -> str:
        """The Open API address (``base_url`` or the platform's)."""
        return (self.base_url or DOMAINS.get(self.domain, DOMAINS["feishu"])).strip().rstrip("/")
