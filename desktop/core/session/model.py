"""One conversation in memory: :class:`Session` (its messages, metadata and turn state)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from desktop.core.session.history import HistoryCache
from desktop.core.session.naming import derive_title
from desktop.core.session.repair import INTERRUPTED_NOTE, repair_messages
from desktop.core.session.validate import CHECKPOINT, PENDING

HISTORY_KEYS = ("role", "content", "tool_calls", "tool_call_id", "name")


@dataclass
class Session:
    """One conversation.

    Attributes:
        key: ``channel:chat_id`` (or an override).
        messages: Every message, oldest first (never trimmed by consolidation).
        created_at: Creation time.
        updated_at: Last change.
        metadata: Free-form (title, channel hints...).
        last_consolidated: Index of the first message not yet archived to memory.
    """

    key: str
    messages: list[dict[str, Any]] = field(default_factory=list)
    created_at: datetime = field(default_factory=datetime.now)
    updated_at: datetime = field(default_factory=datetime.now)
    metadata: dict[str, Any] = field(default_factory=dict)
    last_consolidated: int = 0
    # The running turn of this process: its user message, and the runner's messages whose
    # copies follow it (so a checkpoint keeps the copies it already stored).
    _turn_user: dict[str, Any] | None = field(default=None, init=False, repr=False, compare=False)
    _turn_sources: list[dict[str, Any]] = field(
        default_factory=list, init=False, repr=False, compare=False
    )
    # Says whether another live process is running this session's pending turn.
    _turn_probe: Callable[[], bool] | None = field(
        default=None, init=False, repr=False, compare=False
    )
    # The messages a previous repair found consistent (up to a user message).
    _repaired: list[dict[str, Any]] = field(
        default_factory=list, init=False, repr=False, compare=False
    )
    _history: HistoryCache = field(
        default_factory=lambda: HistoryCache(HISTORY_KEYS), init=False, repr=False, compare=False
    )

    def add_message(self, role: str, content: Any, **extra: Any) -> dict[str, Any]:
        """Append a message stamped with the current time and return it."""
        message = {
            "role": role,
            "content": content,
            "timestamp": datetime.now().isoformat(),
            **extra,
        }
        self.messages.append(message)
        self.updated_at = datetime.now()
        return message

    @property
    def title(self) -> str:
        """A human title, never internal text (:func:`~desktop.core.session.naming.derive_title`:
        the metadata title, a name the app keeps, the start of the person's first message…)."""
        return derive_title(self.key, self.messages, self.metadata.get("title"))

    def begin_turn(self, content: Any, **extra: Any) -> dict[str, Any]:
        """Add the user message of a new turn and mark the turn as pending."""
        message = self.add_message("user", content, **extra)
        self.metadata[PENDING] = {"index": len(self.messages) - 1}
        self.metadata.pop(CHECKPOINT, None)
        self._turn_user = message
        self._turn_sources = []
        return message

    def checkpoint(self, added: list[dict[str, Any]]) -> None:
        """Record messages a running turn produced so far (tool calls, tool results).

        ``added`` is the run's whole list so far; messages stored by an earlier checkpoint
        stay the same objects with their first timestamp (only new ones are appended, which
        keeps saving an append).
        """
        state = self.metadata.get(PENDING)
        if not isinstance(state, dict):
            return
        base = int(state.get("index", len(self.messages) - 1)) + 1
        stored = self.messages[base:]
        sources = self._turn_sources
        now = datetime.now().isoformat()
        kept = []
        for n, message in enumerate(added):
            if n < len(stored) and n < len(sources) and sources[n] is message:
                kept.append(stored[n])
            else:
                kept.append({**message, "timestamp": message.get("timestamp") or now})
        self.messages[base:] = kept
        self._turn_sources = list(added)
        self.metadata[CHECKPOINT] = {"messages": len(added), "at": now}
        self.updated_at = datetime.now()

    def finish_turn(self, added: list[dict[str, Any]]) -> None:
        """Store the turn's messages and clear the pending marker."""
        self.checkpoint(added)
        self.metadata.pop(PENDING, None)
        self.metadata.pop(CHECKPOINT, None)

    def take_pending_turn(self) -> dict[str, Any] | None:
        """Undo a turn that never finished, so it can be run again (a *Retry*).

        Removes the pending user message and whatever the turn checkpointed after it, clears
        the markers and returns that user message (``None`` when no turn is pending).
        """
        state = self.metadata.get(PENDING)
        if not isinstance(state, dict):
            return None
        index = int(state.get("index", -1))
        self.metadata.pop(PENDING, None)
        self.metadata.pop(CHECKPOINT, None)
        self._turn_user = None
        self._turn_sources = []
        if not 0 <= index < len(self.messages) or self.messages[index].get("role") != "user":
            return None
        message = self.messages[index]
        del self.messages[index:]
        self.updated_at = datetime.now()
        return message

    def stop_turn(self, partial: str) -> bool:
        """End a pending turn that was stopped, keeping the answer text it had streamed.

        Unfinished tool calls get their "interrupted" result; ``partial`` (when not blank)
        becomes the turn's answer, marked ``stopped``; with nothing streamed a short note
        says the turn was interrupted. Returns ``False`` when no turn was pending.
        """
        if not self.has_pending_turn:
            return False
        self.metadata.pop(PENDING, None)
        self.metadata.pop(CHECKPOINT, None)
        self._turn_user = None
        self._turn_sources = []
        messages, _ = repair_messages(self.messages, interrupted=not partial.strip())
        if partial.strip():
            if messages and messages[-1].get("content") == INTERRUPTED_NOTE:
                messages.pop()  # the streamed text is the answer, not a note
            messages.append(
                {
                    "role": "assistant",
                    "content": partial,
                    "stopped": True,
                    "timestamp": datetime.now().isoformat(),
                }
            )
        self.messages = messages
        self.updated_at = datetime.now()
        return True

    @property
    def has_pending_turn(self) -> bool:
        """Whether a turn was started and never finished."""
        return PENDING in self.metadata

    @property
    def pending_index(self) -> int | None:
        """Where the user message of a turn that never finished is (``None``: no such turn)."""
        state = self.metadata.get(PENDING)
        if not isinstance(state, dict):
            return None
        index = state.get("index")
        if not isinstance(index, int) or not 0 <= index < len(self.messages):
            return None
        return index

    def repair(self) -> bool:
        """Make an interrupted session consistent (see :mod:`desktop.core.session.repair`).

        A pending turn that another live process is running is not interrupted: nothing is
        changed then (that process finishes it, or whoever comes after a crash repairs it).
        """
        interrupted = self.has_pending_turn
        if interrupted and self._turn_probe is not None and self._turn_probe():
            return False
        # Messages up to a user message that a previous repair left consistent, and that are
        # unchanged since, need no second look: no call is open at a user message there, so
        # repairing from that point on gives the same result as repairing everything.
        start = len(self._repaired)
        if start > len(self.messages) or self.messages[:start] != self._repaired:
            start = 0
            self._repaired = []
        tail, changed = repair_messages(self.messages[start:], interrupted=interrupted)
        if interrupted:
            self.metadata.pop(PENDING, None)
            self.metadata.pop(CHECKPOINT, None)
            changed = True
        if changed:
            self.messages = self.messages[:start] + tail
            self.updated_at = datetime.now()
        last_user = next(
            (
                i
                for i in range(len(self.messages) - 1, -1, -1)
                if self.messages[i].get("role") == "user"
            ),
            0,
        )
        if changed or last_user < start:
            self._repaired = self.messages[:last_user]
        else:  # the checked prefix only grows
            self._repaired.extend(self.messages[start:last_user])
        return changed

    def get_history(self, max_messages: int | None = None) -> list[dict[str, Any]]:
        """Messages for the next request: unconsolidated, starting at a user message.

        Only the keys a provider understands are kept. The copies are made once per message
        and reused by later calls (so their token counts are remembered too): treat them as
        read-only.
        """
        start = min(max(self.last_consolidated, 0), len(self.messages))
        window = self._history.window(self.messages, start)
        if max_messages is not None and len(window) > max_messages:
            window = window[-max_messages:]
        first_user = next((i for i, m in enumerate(window) if m.get("role") == "user"), len(window))
        return window[first_user:] if first_user else window
