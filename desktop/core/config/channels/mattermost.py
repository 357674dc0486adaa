"""Settings of the mattermost channel (``channels.mattermost`` in nanobot's config.json).

The field names and defaults are nanobot 0.3.5's, so an existing nanobot config loads as it
is. As there, ``groupPolicyInThread`` left out of the file means "the same as
``groupPolicy``". nanobot's ``dm`` sub-section (``enabled``, ``policy``, ``allowFrom``) is not
a form field (the Settings form edits flat values only): it stays in the section as it is and
is read through :attr:`MattermostConfig.dm_policy`. ``sendProgress`` and ``sendToolHints`` are
kept as they are too.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field, model_validator

from desktop.core.config.base import Base, ChannelBase

GroupPolicy = Literal["mention", "open", "allowlist"]


class MattermostDMConfig(Base):
    """Who may write to the bot in direct messages (nanobot's ``dm`` sub-section)."""

    enabled: bool = True
    policy: Literal["open", "allowlist"] = "open"
    allow_from: list[str] = Field(default_factory=list)


class MattermostConfig(ChannelBase):
    """A Mattermost bot account, over the REST API v4 and its WebSocket."""

    kept_fields: ClassVar[frozenset[str]] = frozenset(
        {"include_thread_context", "thread_context_limit", "streaming"}
    )

    server_url: str = Field(
        "",
        title="Server address",
        description='Your Mattermost server, e.g. "https://chat.example.org".',
    )
    token: str = Field(
        "",
        title="Bot token",
        description=(
            "The bot account's access token (Integrations → Bot Accounts), or a personal "
            "access token. Kept in the keyring."
        ),
    )
    team_id: str = Field(
        "",
        title="Team ID",
        description="Answer only in this team's channels (direct messages always). Empty: all.",
    )
    allow_from_match_mode: Literal["id", "username", "email"] = Field(
        "id",
        title="Match allowed senders by",
        description=(
            "What the Allowed senders entries are: user ids (safest: they never change), "
            "usernames or e-mail addresses."
        ),
    )
    group_policy: GroupPolicy = Field(
        "mention",
        title="Channel policy",
        description=(
            'In channels, answer only messages that @mention the bot ("mention"), every '
            'message ("open"), or messages in the channels listed below ("allowlist").'
        ),
    )
    group_policy_in_thread: GroupPolicy = Field(
        "mention",
        title="Policy inside threads",
        description="The same choice for replies inside a thread (by default: as channels).",
    )
    group_allow_from: list[str] = Field(
        default_factory=list,
        title="Allowed channels",
        description='Channel IDs the bot answers in with the "allowlist" policy.',
    )
    reply_in_thread: bool = Field(
        True,
        title="Reply in thread",
        description=(
            "Answer a channel message in a thread under it (each thread is its own "
            "conversation). Messages written inside a thread are always answered there."
        ),
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
    streaming: bool = Field(
        True,
        title="Streaming",
        description="nanobot's streamed answers; the desktop app sends each answer whole.",
    )
    react_emoji: str = Field(
        "eyes",
        title="Working reaction",
        description=(
            'Reaction (a Mattermost emoji name, e.g. "eyes") on a message while the agent '
            "works on it (empty: none)."
        ),
    )
    done_emoji: str = Field(
        "white_check_mark",
        title="Done reaction",
        description="Reaction put on the message once it is answered (empty: none).",
    )

    @model_validator(mode="before")
    @classmethod
    def _thread_policy_follows_group_policy(cls, data: Any) -> Any:
        """A section without ``groupPolicyInThread`` uses ``groupPolicy`` in threads too."""
        if not isinstance(data, dict):
            return data
        if "groupPolicyInThread" in data or "group_policy_in_thread" in data:
            return data
        policy = data.get("groupPolicy", data.get("group_policy"))
        return {**data, "groupPolicyInThread": policy} if policy is not None else data

    @property
    def dm_policy(self) -> MattermostDMConfig:
        """nanobot's ``dm`` sub-section (defaults when absent or unusable)."""
        raw: Any = (self.model_extra or {}).get("dm")
        if isinstance(raw, MattermostDMConfig):
            return raw
        try:
            return MattermostDMConfig.model_validate(raw if isinstance(raw, dict) else {})
        except ValueError:
            return MattermostDMConfig()
