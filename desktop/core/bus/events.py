"""Messages on the bus and typed run events for front ends.

The window is just another channel: it publishes :class:`InboundMessage` and consumes
:class:`OutboundMessage` plus the run events below, which a Qt bridge turns into signals.
Events are frozen dataclasses with a ``kind`` literal so a front end can dispatch on it.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

log = logging.getLogger(__name__)

DESKTOP_CHANNEL = "desktop"
"""The window's channel name (its sessions are ``desktop:<chat>``)."""
CLI_CHANNEL = "cli"
SYSTEM_CHANNEL = "system"
"""Subagent reports come back on this channel, addressed to their origin chat."""
EVENT_CHANNELS = frozenset({DESKTOP_CHANNEL, CLI_CHANNEL, "heartbeat", SYSTEM_CHANNEL})
"""Channels whose front ends render a turn from its events; every other channel gets the
answer as an outbound message (and progress messages while the turn runs)."""

TurnSource = Literal["message", "cron", "heartbeat", "subagent", "api"]
"""What started a turn: a person's message (any channel), a cron job, the heartbeat, a
subagent's report, or a request to the OpenAI-compatible API (``serve``)."""


AckOutcome = Literal["saved", "dropped"]
"""How an inbound message stopped being at risk: its user message is ``saved`` in the session
file, or it was ``dropped`` on purpose (a command answered, a sender not allowed, an approval
reply consumed, a turn that failed before anything could be saved)."""


class Ack:
    """The agent's word to a channel that an inbound message is safe to confirm to its server.

    A channel that must not lose a message across a crash attaches one to the
    :class:`InboundMessage` and confirms the message to its network (IMAP ``\\Seen``, a
    journal entry removed) only in the callback. The agent loop resolves it once the turn's
    user message is in the session file (the turn's first save) or when it drops the message
    on purpose. A message whose ack is never resolved (the process ended first) is still
    unconfirmed, so the channel hands it over again after a restart.

    Args:
        callback: Awaited once, with the outcome. Keep it short (a small file write, a flag
            for the channel's own task): the turn waits for it.
    """

    def __init__(self, callback: Callable[[AckOutcome], Awaitable[None]]) -> None:
        self._callback = callback
        self.outcome: AckOutcome | None = None

    @property
    def done(self) -> bool:
        """Whether it was resolved."""
        return self.outcome is not None

    async def resolve(self, outcome: AckOutcome) -> None:
        """Tell the channel (once; later calls do nothing). A failing callback is logged."""
        if self.outcome is not None:
            return
        self.outcome = outcome
        try:
            await self._callback(outcome)
        except Exception:
            log.exception("acknowledging an inbound message failed")


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
        id: The sender's reference for this message; the turn it starts carries it as
            :attr:`TurnStarted.request_id`, so a front end can match its own messages.
        ack: Resolved once the message is safe in its session or dropped on purpose (see
            :class:`Ack`); ``None``: nobody waits for that.
        withdrawn: Its sender took it back before its turn began (a terminal that went away
            while the message waited behind a running turn): it is dropped, not run.
    """

    channel: str
    sender_id: str
    chat_id: str
    content: str
    timestamp: datetime = field(default_factory=datetime.now)
    media: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    session_key_override: str | None = None
    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    ack: Ack | None = field(default=None, repr=False, compare=False)
    withdrawn: bool = field(default=False, compare=False)

    @property
    def session_key(self) -> str:
        """The session this message belongs to."""
        return self.session_key_override or f"{self.channel}:{self.chat_id}"

    async def acknowledge(self, outcome: AckOutcome) -> None:
        """Resolve :attr:`ack` (if any) with ``outcome``."""
        if self.ack is not None:
            await self.ack.resolve(outcome)


@dataclass
class OutboundMessage:
    """A message from the agent to a channel.

    ``metadata`` flags: ``progress`` (interim text while working), ``tool_hint`` (a short
    description of a tool call), ``reminder`` (a scheduled message), ``command`` (the answer
    to a slash command, with ``request_id``: the :attr:`InboundMessage.id` it answers),
    ``turn_id`` (the turn whose answer this is).
    """

    channel: str
    chat_id: str
    content: str
    reply_to: str | None = None
    media: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)


# -- typed run events ---------------------------------------------------------------------
#
# A turn emits exactly one TurnStarted, then its in-turn events (all carrying its turn_id),
# then exactly one of TurnFinished / TurnStopped / TurnFailed.


@dataclass(frozen=True)
class TurnStarted:
    """A turn began in ``session_key``.

    Attributes:
        turn_id: Identifies the turn in every later event.
        session_key: The conversation.
        source: What started it (a message, a cron job, the heartbeat, a subagent report).
        channel: The channel the answer goes to.
        chat_id: The chat within the channel.
        content: What the turn answers, as a person should see it (the message text; for a
            reminder, the reminder's text, not the internal prompt).
        media: Attached images.
        request_id: The :attr:`InboundMessage.id` that started the turn.
        label: A short label for non-message turns (the job's name), else ``""``.
    """

    turn_id: str
    session_key: str
    source: TurnSource
    channel: str
    chat_id: str
    content: str
    media: tuple[str, ...] = ()
    request_id: str = ""
    label: str = ""
    kind: Literal["turn_started"] = "turn_started"


@dataclass(frozen=True)
class TextDelta:
    """A piece of the answer as it streams."""

    turn_id: str
    session_key: str
    text: str
    kind: Literal["text_delta"] = "text_delta"


@dataclass(frozen=True)
class GuidanceTaken:
    """The running turn took in messages the person sent while it ran (steering): they are
    in its conversation now, after what was shown so far; the answer goes on after them.

    Attributes:
        ids: The guidance ids (as :meth:`AgentLoop.steer` returned them), in order.
        texts: What the person wrote, in the same order.
    """

    turn_id: str
    session_key: str
    ids: tuple[str, ...]
    texts: tuple[str, ...]
    kind: Literal["guidance_taken"] = "guidance_taken"


@dataclass(frozen=True)
class ReasoningDelta:
    """A piece of the model's reasoning as it streams."""

    turn_id: str
    session_key: str
    text: str
    kind: Literal["reasoning_delta"] = "reasoning_delta"


@dataclass(frozen=True)
class StreamReset:
    """The current stream restarted after a retry: drop the partial text shown so far."""

    turn_id: str
    session_key: str
    kind: Literal["stream_reset"] = "stream_reset"


@dataclass(frozen=True)
class ModelRetrying:
    """A model call failed and is tried again after ``delay_s`` (``attempt`` of ``max_attempts``
    failed; ``reason`` is one sentence for the person)."""

    turn_id: str
    session_key: str
    reason: str
    attempt: int
    max_attempts: int
    delay_s: float
    kind: Literal["model_retrying"] = "model_retrying"


@dataclass(frozen=True)
class ModelFallback:
    """``previous_model`` failed (after its retries) and the fallback ``model`` answers
    instead; ``text`` says so in one sentence (``agents.defaults.fallbackModels``)."""

    turn_id: str
    session_key: str
    text: str
    model: str
    previous_model: str
    kind: Literal["model_fallback"] = "model_fallback"


@dataclass(frozen=True)
class ToolCallStarted:
    """A tool call began (``call_id`` is unique within the turn only)."""

    turn_id: str
    session_key: str
    call_id: str
    name: str
    arguments: dict[str, Any]
    kind: Literal["tool_started"] = "tool_started"


@dataclass(frozen=True)
class ToolCallFinished:
    """A tool call ended."""

    turn_id: str
    session_key: str
    call_id: str
    name: str
    arguments: dict[str, Any]
    result_preview: str
    duration_s: float
    ok: bool
    diff: str = ""
    """What a file tool changed: a capped unified diff (``""``: nothing, or not a file tool)."""
    kind: Literal["tool_finished"] = "tool_finished"


@dataclass(frozen=True)
class UsageReport:
    """Token use of one model call."""

    turn_id: str
    session_key: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    context_tokens: int
    context_window: int
    kind: Literal["usage"] = "usage"


@dataclass(frozen=True)
class TurnFinished:
    """The turn answered ``content`` (saved to the session as the final answer)."""

    turn_id: str
    session_key: str
    content: str
    kind: Literal["turn_finished"] = "turn_finished"


@dataclass(frozen=True)
class TurnStopped:
    """The turn was stopped (``/stop``, the Stop button, shutdown); ``partial`` is the text it
    had streamed, which is saved as a stopped answer."""

    turn_id: str
    session_key: str
    partial: str = ""
    kind: Literal["turn_stopped"] = "turn_stopped"


@dataclass(frozen=True)
class TurnFailed:
    """The turn failed.

    Attributes:
        message: One sentence for the person.
        error_kind: The provider error kind (``auth``, ``rate_limit``, ``connection`` …), or
            ``empty_reply`` / ``storage`` (the turn could not be saved) / ``unknown``.
        details: The full (redacted) error text, for a "Details" view.
        pending: The user message is saved and the turn can be run again (Retry).
    """

    turn_id: str
    session_key: str
    message: str
    error_kind: str = "unknown"
    details: str = ""
    pending: bool = True
    kind: Literal["turn_failed"] = "turn_failed"


@dataclass(frozen=True)
class SessionChanged:
    """A session changed outside a turn (``/new`` reset it, a retry took its pending turn):
    views showing it should reload it from disk."""

    session_key: str
    reason: str = ""
    kind: Literal["session_changed"] = "session_changed"


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
        run_id: The run's receipt id (Snooze and Done answer it); empty when unknown.
        message: The reminder's own instruction (the job's message, "Stretch your legs"): what
            a snooze brings back, whatever the answer said; empty when unknown.
    """

    session_key: str
    job_id: str
    job_name: str
    text: str
    channel: str = DESKTOP_CHANNEL
    chat_id: str = "direct"
    source: Literal["cron", "heartbeat"] = "cron"
    run_id: str = ""
    message: str = ""
    kind: Literal["reminder_due"] = "reminder_due"


@dataclass(frozen=True)
class ChannelStatusChanged:
    """A chat channel connected, dropped, failed or became unavailable.

    Attributes:
        channel: The channel (``telegram``, ``email``…).
        state: ``stopped``, ``connecting``, ``connected``, ``error`` or ``unavailable``.
        reason: One sentence for the person (why it is not connected).
        hint: What to do about it.
        account: Who it is connected as, when known.
        login_code: The code to scan while the channel waits to be linked (WhatsApp's QR
            login; see :class:`~desktop.core.channels.base.ChannelStatus`), else empty.
    """

    channel: str
    state: str
    reason: str = ""
    hint: str = ""
    account: str = ""
    login_code: str = field(default="", repr=False)
    kind: Literal["channel_status"] = "channel_status"


@dataclass(frozen=True)
class DeliveryFailed:
    """An answer could not be delivered to a chat after retries: the person must be told."""

    channel: str
    chat_id: str
    reason: str
    preview: str = ""
    kind: Literal["delivery_failed"] = "delivery_failed"


@dataclass(frozen=True)
class PairingRequested:
    """Someone not yet allowed wrote to a channel directly and was given a pairing code.

    The window shows it with Approve / Deny (:mod:`desktop.core.channels.pairing`).
    """

    channel: str
    sender: str
    code: str
    expires_at: float
    kind: Literal["pairing_requested"] = "pairing_requested"


@dataclass(frozen=True)
class BudgetPaused:
    """A background source was paused before a call that would pass a budget.

    Front ends that can ask show it (notification + banner: Run once / Raise / Keep paused)
    and answer with :meth:`desktop.core.usage.governor.SpendGovernor.answer`; headless ones
    log it. ``asked`` is ``False`` when nobody can answer: the run was refused at once.
    """

    request_id: str
    source: str
    job: str
    estimate_tokens: int
    spent_tokens: int
    spent_usd: float
    limit_tokens: int | None
    limit_usd: float | None
    scope: str  # the source whose budget it is, or "overall"
    period: Literal["day", "month"]
    message: str
    asked: bool = True
    kind: Literal["budget_paused"] = "budget_paused"


@dataclass(frozen=True)
class BudgetResolved:
    """A :class:`BudgetPaused` request was answered (or timed out): banners for it close."""

    request_id: str
    choice: Literal["run", "keep"]
    kind: Literal["budget_resolved"] = "budget_resolved"


@dataclass(frozen=True)
class BudgetWarning:
    """Chat spend reached the warning share of a budget (once per budget and period)."""

    source: str
    scope: str
    period: Literal["day", "month"]
    message: str
    refused: bool = False  # a hard cap refused the call
    kind: Literal["budget_warning"] = "budget_warning"


@dataclass(frozen=True)
class RunawayStopped:
    """A background run used far more than its usual size and was stopped before its next call."""

    source: str
    run: str
    job: str
    tokens: int
    usual_tokens: int
    message: str
    kind: Literal["runaway_stopped"] = "runaway_stopped"


TurnEnd = TurnFinished | TurnStopped | TurnFailed
"""The three ways a turn ends; exactly one follows every :class:`TurnStarted`."""

RunEvent = (
    TurnStarted
    | TextDelta
    | GuidanceTaken
    | ReasoningDelta
    | StreamReset
    | ModelRetrying
    | ModelFallback
    | ToolCallStarted
    | ToolCallFinished
    | UsageReport
    | TurnFinished
    | TurnStopped
    | TurnFailed
    | SessionChanged
    | ReminderDue
    | ChannelStatusChanged
    | DeliveryFailed
    | PairingRequested
    | BudgetPaused
    | BudgetResolved
    | BudgetWarning
    | RunawayStopped
)
