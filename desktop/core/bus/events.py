"""Messages on the bus and typed run events for front ends.

The window is just another channel: it publishes :class:`InboundMessage` and consumes
:class:`OutboundMessage` plus the run events below, which a Qt bridge turns into signals.
Events are frozen dataclasses with a ``kind`` literal so a front end can dispatch on it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal


@dataclass
class InboundMessage:
    """A message for the agent.

    Attributes:
        channel: Where it came from (``desktop``, ``cli``, ``telegram``, ``system``...).
        sender_id: Who sent it.
        chat_id: Conversation within the channel.
        content: The text.
        timestamp: When it was received.
        media: Paths or data URLs of attached images.
        metadata: Channel specifics.
        session_key_override: Use this session instead of ``channel:chat_id``.
    """

    channel: str
    sender_id: str
    chat_id: str
    content: str
    timestamp: datetime = field(default_factory=datetime.now)
    media: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    session_key_override: str | None = None

    @property
    def session_key(self) -> str:
        """The session this message belongs to."""
        return self.session_key_override or f"{self.channel}:{self.chat_id}"


@dataclass
class OutboundMessage:
    """A message from the agent to a channel.

    ``metadata`` flags: ``progress`` (interim text while working), ``tool_hint`` (a short
    description of a tool call), ``reminder`` (a scheduled message).
    """

    channel: str
    chat_id: str
    content: str
    reply_to: str | None = None
    media: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)


# -- typed run events ---------------------------------------------------------------------


@dataclass(frozen=True)
class TextDelta:
    """A piece of the answer as it streams."""

    session_key: str
    text: str
    kind: Literal["text_delta"] = "text_delta"


@dataclass(frozen=True)
class ReasoningDelta:
    """A piece of the model's reasoning as it streams."""

    session_key: str
    text: str
    kind: Literal["reasoning_delta"] = "reasoning_delta"


@dataclass(frozen=True)
class StreamReset:
    """The current stream restarted after a retry: drop the partial text shown so far."""

    session_key: str
    kind: Literal["stream_reset"] = "stream_reset"


@dataclass(frozen=True)
class ToolCallStarted:
    """A tool call began."""

    session_key: str
    call_id: str
    name: str
    arguments: dict[str, Any]
    kind: Literal["tool_started"] = "tool_started"


@dataclass(frozen=True)
class ToolCallFinished:
    """A tool call ended."""

    session_key: str
    call_id: str
    name: str
    arguments: dict[str, Any]
    result_preview: str
    duration_s: float
    ok: bool
    kind: Literal["tool_finished"] = "tool_finished"


@dataclass(frozen=True)
class UsageReport:
    """Token use of one model call."""

    session_key: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    context_tokens: int
    context_window: int
    kind: Literal["usage"] = "usage"


@dataclass(frozen=True)
class RunError:
    """A turn failed; ``error_kind`` is the provider error kind (auth, rate_limit...)."""

    session_key: str
    message: str
    error_kind: str = "unknown"
    kind: Literal["error"] = "error"


@dataclass(frozen=True)
class TurnFinished:
    """A turn ended (answered, stopped or failed)."""

    session_key: str
    content: str
    stopped: bool = False
    kind: Literal["turn_finished"] = "turn_finished"


@dataclass(frozen=True)
class ReminderDue:
    """A scheduled job (or the heartbeat) produced something to tell the person.

    Front ends show it as a notification; clicking it opens ``session_key``.

    Attributes:
        session_key: The conversation the answer was written to.
        job_id: The cron job's id (``heartbeat`` for heartbeat results).
        job_name: Human-readable job name.
        text: What to tell the person (the turn's answer).
        channel: Origin channel of the job (``desktop``, ``cli``, ``telegram``…).
        chat_id: Origin chat within the channel.
        source: ``cron`` for a user's job, ``heartbeat`` for a heartbeat result.
    """

    session_key: str
    job_id: str
    job_name: str
    text: str
    channel: str = "desktop"
    chat_id: str = "direct"
    source: Literal["cron", "heartbeat"] = "cron"
    kind: Literal["reminder_due"] = "reminder_due"


RunEvent = (
    TextDelta
    | ReasoningDelta
    | StreamReset
    | ToolCallStarted
    | ToolCallFinished
    | UsageReport
    | RunError
    | TurnFinished
    | ReminderDue
)
