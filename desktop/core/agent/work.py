"""What runs in each session right now: the turn, its subagents; the one answer to "is it busy?".

The loop registers a session's running turn here, the subagent manager registers the
subagents a turn started. ``/stop`` (:meth:`SessionWork.stop`) cancels both; front ends and
the scheduler ask :meth:`SessionWork.busy` instead of keeping copies of that state.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from desktop.core.engine.hooks import Guidance


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
        guidance: Messages the person sent while it runs, not yet taken in (steering: the
            runner takes them before its next model call).
    """

    turn_id: str
    session_key: str
    task: asyncio.Task[Any] | None = None
    stop_requested: bool = False
    message_sent: bool = False
    partial: list[str] = field(default_factory=list)
    answer: str | None = None
    guidance: list[Guidance] = field(default_factory=list)

    @property
    def partial_text(self) -> str:
        """What the model had written of its answer so far."""
        return "".join(self.partial)

    def take_guidance(self) -> list[Guidance]:
        """Hand over the waiting guidance (the runner's ``steering``) and forget it."""
        taken, self.guidance = self.guidance, []
        return taken


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

    def steer(self, session_key: str, guidance: Guidance) -> bool:
        """Give the running turn of ``session_key`` a message to take in at its next step;
        ``False`` when no turn runs there or its answer is already saved (send it as a new
        message then)."""
        turn = self._turns.get(session_key)
        if turn is None or turn.answer is not None or turn.stop_requested:
            return False
        if turn.task is not None and turn.task.done():
            return False
        turn.guidance.append(guidance)
        return True

    def withdraw(self, session_key: str, guidance_id: str) -> Guidance | None:
        """Take back guidance not taken in yet (``None``: taken already, or no turn)."""
        turn = self._turns.get(session_key)
        if turn is None:
            return None
        for guidance in turn.guidance:
            if guidance.id == guidance_id:
                turn.guidance.remove(guidance)
                return guidance
        return None

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
