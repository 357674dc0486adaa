"""The records :class:`~desktop.ui.chat.state.ChatState` keeps: running turns, the latest
usage, errors, messages and commands waiting for their turn or answer. Qt-free."""

from __future__ import annotations

from dataclasses import dataclass, field

from desktop.ui.chat.items import ChatItem


@dataclass
class LiveTurn:
    """A running turn.

    Attributes:
        turn_id: Its id.
        key: Its session.
        source: What started it (``message``, ``cron``, ``heartbeat``, ``subagent``).
        request_id: The inbound message id that started it.
        started: Its ``TurnStarted`` was seen (else it was made up from a later event).
        rows: Every row it added, in order (prompt row when it is not ours, reasoning,
            answer segments, tool cards).
        cards: Its tool cards by call id.
        answer: The answer row text streams into (``None`` between segments).
        reasoning: The reasoning row reasoning streams into.
        text: Answer deltas not applied yet.
        thinking: Reasoning deltas not applied yet.
    """

    turn_id: str
    key: str
    source: str = "message"
    request_id: str = ""
    started: bool = False
    rows: list[ChatItem] = field(default_factory=list)
    cards: dict[str, ChatItem] = field(default_factory=dict)
    answer: ChatItem | None = None
    reasoning: ChatItem | None = None
    text: list[str] = field(default_factory=list)
    thinking: list[str] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    cost_unknown: bool = False
    context_tokens: int = 0
    context_window: int = 0

    @property
    def cost_total(self) -> float | None:
        """Cost when every call's price was known."""
        return None if self.cost_unknown else self.cost


@dataclass
class TurnUsage:
    """What the header shows for a session's latest turn."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    context_tokens: int = 0
    context_window: int = 0


@dataclass
class TurnError:
    """What the banner shows for a session's failed turn (or a message that was not sent)."""

    kind: str
    message: str
    details: str = ""


@dataclass
class Sent:
    """A message the tab published whose turn has not started yet (its row is shown)."""

    key: str
    row: ChatItem


@dataclass
class Command:
    """A slash command waiting for its answer (its row says "Working…")."""

    key: str
    row: ChatItem
