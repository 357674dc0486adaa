"""Settings of the mochat channel (``channels.mochat`` in nanobot's config.json).

The field names and defaults are nanobot 0.3.5's, so an existing nanobot config loads as it
is. nanobot's two nested settings, ``mention`` (``{"requireInGroups": bool}``) and ``groups``
(``{"<group or panel id>": {"requireMention": bool}}``), are read through
:meth:`MochatConfig.mention_rule` and kept in the section as they are (the generated Settings
form edits flat fields only; it lists them as "kept as they are").
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from desktop.core.config.base import ChannelBase

DEFAULT_BASE_URL = "https://mochat.io"


def _flag(data: Any, *names: str) -> bool | None:
    """The first of ``names`` in ``data`` (a dict) as a bool, ``None`` when absent."""
    if not isinstance(data, dict):
        return None
    for name in names:
        if name in data:
            return bool(data[name])
    return None


class MochatConfig(ChannelBase):
    """Mochat (Socket.IO)."""

    # nanobot settings read and saved unchanged but not used here (no control in Settings).
    kept_fields: ClassVar[frozenset[str]] = frozenset(
        {
            "socket_reconnect_delay_ms",
            "socket_max_reconnect_delay_ms",
            "watch_timeout_ms",
            "retry_delay_ms",
            "max_retry_attempts",
        }
    )

    base_url: str = Field(
        DEFAULT_BASE_URL,
        title="Server",
        description="The Mochat server; answers are posted to <server>/api/claw/….",
    )
    claw_token: str = Field(
        "",
        title="Claw token",
        description="The agent's token from Mochat's registration (claw_…). Kept in the keyring.",
    )
    agent_user_id: str = Field(
        "",
        title="Agent user ID",
        description=(
            "The agent's own Mochat user id (botUserId): its own messages are not answered and "
            "mentions of it are recognised."
        ),
    )
    sessions: list[str] = Field(
        default_factory=list,
        title="Sessions",
        description='Session ids to answer in (direct chats), one per line; "*": every session.',
    )
    panels: list[str] = Field(
        default_factory=list,
        title="Panels",
        description='Panel ids to answer in (group channels), one per line; "*": every panel.',
    )
    socket_url: str = Field(
        "",
        title="Socket.IO server",
        description="Where the real-time connection goes (empty: the server above).",
    )
    socket_path: str = Field(
        "/socket.io", title="Socket.IO path", description="The Socket.IO endpoint's path."
    )
    socket_disable_msgpack: bool = Field(
        False,
        title="No msgpack",
        description=(
            "Send Socket.IO packets as JSON. Otherwise msgpack is used when the msgpack package "
            "is installed (JSON without it)."
        ),
    )
    socket_reconnect_delay_ms: int = Field(
        1000,
        ge=0,
        title="Reconnect delay (ms)",
        description=(
            "nanobot's first reconnect delay; the desktop app reconnects with its own backoff."
        ),
    )
    socket_max_reconnect_delay_ms: int = Field(
        10000,
        ge=0,
        title="Longest reconnect delay (ms)",
        description="nanobot's; the desktop app reconnects with its own backoff.",
    )
    socket_connect_timeout_ms: int = Field(
        10000,
        ge=0,
        title="Connect timeout (ms)",
        description="How long connecting may take before it counts as failed.",
    )
    refresh_interval_ms: int = Field(
        30000,
        ge=0,
        title="Refresh interval (ms)",
        description='How often the session and panel lists are fetched again (for "*").',
    )
    watch_timeout_ms: int = Field(
        25000,
        ge=0,
        title="Watch timeout (ms)",
        description="nanobot's HTTP long-poll fallback; not used by the desktop app.",
    )
    watch_limit: int = Field(
        100,
        ge=1,
        title="Watch limit",
        description="How many missed events a session subscription catches up at most.",
    )
    retry_delay_ms: int = Field(
        500,
        ge=0,
        title="Retry delay (ms)",
        description="nanobot's HTTP fallback retry delay; not used by the desktop app.",
    )
    max_retry_attempts: int = Field(
        0,
        ge=0,
        title="Reconnect attempts",
        description="nanobot's (0: unlimited); the desktop app always reconnects.",
    )
    reply_delay_mode: Literal["off", "non-mention"] = Field(
        "non-mention",
        title="Reply delay",
        description=(
            'In panels, "non-mention" collects messages that do not mention the agent and '
            "hands them over together after the reply delay (a mention hands them over at "
            'once); "off" answers every message as it comes.'
        ),
    )
    reply_delay_ms: int = Field(
        120000,
        ge=0,
        title="Reply delay (ms)",
        description="How long panel messages without a mention are collected.",
    )

    def mention_rule(self, *ids: str) -> bool:
        """Whether a panel message must mention the agent to be answered.

        The first of ``ids`` (group id, panel id) with an entry in ``groups`` decides, then
        ``groups["*"]``, then ``mention.requireInGroups`` (default: no).
        """
        extra = self.model_extra or {}
        groups = extra.get("groups")
        if isinstance(groups, dict):
            for key in (*ids, "*"):
                if key and key in groups:
                    found = _flag(groups[key], "requireMention", "require_mention")
                    if found is not None:
                        return found
        return bool(_flag(extra.get("mention"), "requireInGroups", "require_in_groups"))
