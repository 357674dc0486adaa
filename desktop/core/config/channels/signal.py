"""Settings of the signal channel (``channels.signal`` in nanobot's config.json).

The field names, nesting and defaults are nanobot 0.3.5's (``phoneNumber``, ``daemonHost``,
``daemonPort``, ``groupMessageBufferSize``, ``attachmentsDir``, ``dm: {enabled, policy,
allowFrom}``, ``group: {enabled, policy, allowFrom, requireMention}``), so an existing nanobot
config loads unchanged. The generated Settings form edits flat fields only, so ``dm`` and
``group`` are kept as they are there; the top-level ``allowFrom`` (which nanobot writes as the
union of the two lists) lets the senders it names write to the agent directly as well.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from desktop.core.config.base import Base, ChannelBase


class SignalDMConfig(Base):
    """Direct messages: whether they are answered and from whom."""

    enabled: bool = True
    policy: Literal["open", "allowlist"] = "allowlist"
    allow_from: list[str] = Field(default_factory=list)


class SignalGroupConfig(Base):
    """Groups: whether they are answered, which ones, and whether a mention is needed."""

    enabled: bool = False
    policy: Literal["open", "allowlist"] = "allowlist"
    allow_from: list[str] = Field(default_factory=list)
    require_mention: bool = True


class SignalConfig(ChannelBase):
    """Signal through a signal-cli daemon (its HTTP JSON-RPC interface)."""

    phone_number: str = Field(
        "",
        title="Phone number",
        description="The Signal account signal-cli is registered with, e.g. +4915112345678.",
    )
    daemon_host: str = Field(
        "localhost",
        title="Daemon host",
        description="Where `signal-cli -a <number> daemon --http <host>:<port>` listens.",
    )
    daemon_port: int = Field(
        8080, ge=1, le=65535, title="Daemon port", description="The daemon's HTTP port."
    )
    group_message_buffer_size: int = Field(
        20,
        gt=0,
        title="Group context",
        description="How many recent group messages are passed along with a mention.",
    )
    attachments_dir: str | None = Field(
        None,
        title="Attachments folder",
        description=(
            "Where signal-cli saves received attachments (empty: "
            "~/.local/share/signal-cli/attachments)."
        ),
    )
    dm: SignalDMConfig = Field(default_factory=SignalDMConfig)
    group: SignalGroupConfig = Field(default_factory=SignalGroupConfig)
