"""Settings of the slack channel (``channels.slack`` in nanobot's config.json).

The field names and defaults are nanobot 0.3.5's, so an existing nanobot config loads as it
is. The desktop app always uses Socket Mode; ``mode``/``webhookPath`` are kept for nanobot (a
config with another mode makes the channel unavailable here). ``baseUrl`` is ours (where the
Web API is; tests point it at a local server).

nanobot's ``dm`` sub-section (``enabled``, ``policy``, ``allowFrom``) is not a form field (the
Settings form edits flat values only): it stays in the section as it is and is read through
:attr:`SlackConfig.dm_policy`.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from desktop.core.config.base import Base, ChannelBase

DEFAULT_BASE_URL = "https://slack.com/api/"


class SlackDMConfig(Base):
    """Who may write to the bot in direct messages (nanobot's ``dm`` sub-section)."""

    enabled: bool = True
    policy: Literal["open", "allowlist"] = "open"
    allow_from: list[str] = Field(default_factory=list)


class SlackConfig(ChannelBase):
    """Slack app in Socket Mode."""

    # nanobot settings read and saved unchanged but not used here (no control in Settings).
    kept_fields: ClassVar[frozenset[str]] = frozenset(
        {"webhook_path", "include_thread_context", "thread_context_limit"}
    )

    bot_token: str = Field(
        "",
        title="Bot token",
        description=(
            "The app's Bot User OAuth Token (xoxb-…, OAuth & Permissions). Kept in the keyring."
        ),
    )
    app_token: str = Field(
        "",
        title="App token",
        description=(
            "An app-level token with the connections:write scope (xapp-…, Basic Information → "
            "App-Level Tokens); Socket Mode connects with it. Kept in the keyring."
        ),
    )
    mode: Literal["socket", "webhook"] = Field(
        "socket",
        title="Mode",
        description=(
            "How events arrive. The desktop app uses Socket Mode; nanobot's webhook mode (a "
            "public HTTPS server) is not available here."
        ),
    )
    webhook_path: str = Field(
        "/slack/events", title="Webhook path", description="nanobot's webhook mode only."
    )
    reply_in_thread: bool = Field(
        True,
        title="Reply in thread",
        description=(
            "Answer a channel message in a thread under it (each thread is its own "
            "conversation). Messages written inside a thread are always answered there."
        ),
    )
    react_emoji: str = Field(
        "eyes",
        title="Working reaction",
        description=(
            'Reaction (a Slack emoji name, e.g. "eyes") on a message while the agent works on '
            "it (empty: none)."
        ),
    )
    done_emoji: str = Field(
        "white_check_mark",
        title="Done reaction",
        description="Reaction put on the message once it is answered (empty: none).",
    )
    include_thread_context: bool = Field(
        True,
        title="Thread context",
        description="nanobot's earlier-thread-messages context; not used by the desktop app.",
    )
    thread_context_limit: int = Field(
        20,
        ge=1,
        title="Thread context limit",
        description="nanobot's number of earlier thread messages; not used by the desktop app.",
    )
    group_policy: Literal["mention", "open", "allowlist"] = Field(
        "mention",
        title="Channel policy",
        description=(
            'In channels, answer only messages that @mention the bot ("mention"), every '
            'message ("open"), or messages in the channels listed below ("allowlist").'
        ),
    )
    group_allow_from: list[str] = Field(
        default_factory=list,
        title="Allowed channels",
        description='Channel IDs (C…) the bot answers in with the "allowlist" policy.',
    )
    group_require_mention: bool = Field(
        False,
        title="Require a mention in allowed channels",
        description='With the "allowlist" policy, answer only messages that @mention the bot.',
    )
    proxy: str | None = Field(
        None,
        title="Proxy",
        description='HTTP proxy for the Web API and Socket Mode, e.g. "http://127.0.0.1:8080".',
    )
    base_url: str = Field(
        DEFAULT_BASE_URL,
        title="Web API address",
        description="Where Slack's Web API is. Change it only for testing.",
    )

    @property
    def dm_policy(self) -> SlackDMConfig:
        """nanobot's ``dm`` sub-section (defaults when absent or unusable)."""
        raw: Any = (self.model_extra or {}).get("dm")
        if isinstance(raw, SlackDMConfig):
            return raw
        try:
            return SlackDMConfig.model_validate(raw if isinstance(raw, dict) else {})
        except ValueError:
            return SlackDMConfig()
