"""What runs in each session right now: the turn, its subagents; the one answer to "is it busy?".

The loop registers a session's running turn here, the subagent manager registers the
subagents a turn started. ``/stop`` (:meth:`SessionWork.stop`) cancels both; front ends and
the scheduler ask :meth:`SessionWork.busy` instead of keeping copies of that state.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any


@dataclass
class RunningTurn:
    """A turn in progress.

    Attributes:
        turn_id: The id its events carry.
        session_key: Its conversation.
        task: The task running it (cancelled by ``/stop``).
        stop_requested: ``/stop`` cancelled it (as opposed to a shutdown cancelling the task
            that runs it): the turn ends as stopped and its task carries on.
        message_sent: The ``message`` tool already answered in this chat, so the final
            answer is not sent a second time.
        partial: Text streamed by the current model call (kept when the turn is stopped).
        answer: The final answer once it is saved (a stop arriving after that changes
            nothing: the turn has finished).
    """

    turn_id: str
    session_key: str
    task: asyncio.Task[Any] | None = None
    stop_requested: bool = False
    message_sent: bool = False
    partial: list[str] = field(default_factory=list)
    answer: str | None = None

    @property
    def partial_text(self) -> str:
        """What the model had written of its answer so far."""
        return "".join(self.partial)


class SessionWork:
    """Running turns and subagents per session."""

    def __init__(self) -> None:
        self._turns: dict[str, RunningTurn] = {}
        self._children: dict[str, set[asyncio.Task[Any]]] = {}

    # -- turns ----------------------------------------------------------------------------
    def begin(self, turn: RunningTurn) -> None:
        """Register ``turn`` as its session's running turn."""
        self._turns[turn.session_key] = turn

    def end(self, turn: RunningTurn) -> None:
        """Forget ``turn`` (only if it is still the registered one)."""
        if self._turns.get(turn.session_key) is turn:
            del self._turns[turn.session_key]

    def turn(self, session_key: str) -> RunningTurn | None:
        """The running turn of ``session_key``."""
        return self._turns.get(session_key)

    def busy(self, session_key: str) -> bool:
        """Whether a turn runs in ``session_key``."""
        return session_key in self._turns

    def busy_sessions(self) -> list[str]:
        """Sessions with a running turn."""
        return list(self._turns)

    def mark_message_sent(self, session_key: str) -> None:
        """The ``message`` tool answered in this session's chat during its turn."""
        turn = self._turns.get(session_key)
        if turn is not None:
            turn.message_sent = True

    # -- subagents ------------------------------------------------------------------------
    def add_child(self, session_key: str, task: asyncio.Task[Any]) -> None:
        """Track a subagent started from ``session_key`` (``/stop`` cancels it too)."""
        children = self._children.setdefault(session_key, set())
        children.add(task)
        task.add_done_callback(children.discard)

    def children(self, session_key: str) -> list[asyncio.Task[Any]]:
        """Subagents of ``session_key`` still running."""
        return [t for t in self._children.get(session_key, ()) if not t.done()]

    def running_count(self) -> int:
        """Turns and subagents running in all sessions."""
        return len(self._turns) + sum(
            1 for tasks in self._children.values() for t in tasks if not t.done()
        )

    # -- stopping -------------------------------------------------------------------------
    async def stop(self, session_key: str) -> bool:
        """Cancel the session's turn and subagents and wait for them; ``False``: nothing ran."""
        turn = self._turns.get(session_key)
        tasks = self.children(session_key)
        if turn is not None and turn.task is not None and not turn.task.done():
            turn.stop_requested = True
            tasks.append(turn.task)
        if not tasks:
            return False
        current = asyncio.current_task()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*(t for t in tasks if t is not current), return_exceptions=True)
        return True
