"""The agent loop's collaborator interfaces and the small pieces of a turn.

The interfaces (:class:`Consolidation`, :class:`Connector`, :class:`ApprovalCheck`,
:data:`CommandHandler`) are what :class:`~desktop.core.agent.loop.AgentLoop` is given at
construction; :class:`TurnOutcome` is how a turn ended; the two hooks save a turn's messages at
checkpoints (a save that fails ends the turn: :class:`CheckpointFailed`) and keep the text a
stopped turn keeps.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from desktop.core.agent.work import RunningTurn
from desktop.core.engine.hooks import AgentHook, HookContext, RunAborted
from desktop.core.providers.base import LLMError, StreamDelta
from desktop.core.session.manager import Session, SessionManager
from desktop.core.tools.base import ToolContext
from desktop.core.utils.redact import redact

CommandHandler = Callable[[str, str], Awaitable[str | None]]
"""Answers a slash command (``name``, ``argument``) or returns ``None`` when it is not its."""


class Consolidation(Protocol):
    """Keeps sessions inside the context budget (the memory Consolidator)."""

    async def maybe_consolidate(self, session: Session) -> bool:
        """Archive old turns when the next request would be too large."""
        ...

    async def archive_all(self, session: Session, end: int | None = None) -> None:
        """Archive everything not yet archived (``/new``), or what comes before ``end``."""
        ...

    async def compact(self, session: Session, end: int | None = None) -> bool:
        """Summarise what is not yet archived into a checkpoint (``/compact``)."""
        ...


class Connector(Protocol):
    """Something to connect before a turn (MCP servers, connected lazily)."""

    async def ensure_connected(self) -> None:
        """Connect what is configured and not yet connected."""
        ...


class ApprovalCheck(Protocol):
    """Asked before risky tool calls (the approval gate)."""

    async def check(
        self, call_id: str, tool: str, arguments: dict[str, Any], ctx: ToolContext
    ) -> str | None:
        """``None``: the call may run; else the refusal text the model reads."""
        ...


@dataclass(frozen=True)
class TurnOutcome:
    """How a turn ended.

    Attributes:
        turn_id: The id its events carried.
        status: ``finished``, ``stopped`` or ``failed``; ``withdrawn``: the message was
            taken back before the turn began (:attr:`InboundMessage.withdrawn`), nothing ran.
        content: The answer (``finished``), the streamed part (``stopped``), or ``""``.
        error: The failure (``failed``).
        message_sent: The ``message`` tool already delivered an answer to the chat.
    """

    turn_id: str
    status: Literal["finished", "stopped", "failed", "withdrawn"]
    content: str = ""
    error: LLMError | None = None
    message_sent: bool = False


class CheckpointFailed(RunAborted):
    """The turn's messages could not be saved at a checkpoint: the turn ends there (no tool
    runs whose call or result would not be on disk); the user message is already saved."""


class CheckpointHook(AgentHook):
    """Saves the session whenever the runner says new messages must survive a crash.

    Raises :class:`CheckpointFailed` (from :meth:`on_checkpoint`) when the save fails.
    """

    def __init__(self, sessions: SessionManager, session: Session) -> None:
        self.sessions = sessions
        self.session = session

    async def on_checkpoint(self, ctx: HookContext) -> None:
        self.session.checkpoint(ctx.added)
        try:
            await asyncio.to_thread(self.sessions.save, self.session)
        except OSError as exc:  # disk full, permissions, a lock held too long elsewhere
            reason = exc.strerror or str(exc) or type(exc).__name__
            raise CheckpointFailed(
                f"The chat could not be saved ({reason}), so the turn stopped. Your message "
                "is kept: fix the cause (disk space, permissions), then retry.",
                redact(f"{type(exc).__name__}: {exc}"),
            ) from exc


class PartialHook(AgentHook):
    """Keeps the text the current model call has streamed (what a stopped turn keeps)."""

    def __init__(self, turn: RunningTurn) -> None:
        self.turn = turn

    async def on_stream(self, ctx: HookContext, delta: StreamDelta) -> None:
        if delta.kind == "text":
            self.turn.partial.append(delta.text)
        elif delta.kind == "reset":
            self.turn.partial.clear()

    async def on_tool_started(self, ctx: HookContext, call: Any) -> None:
        self.turn.partial.clear()  # that text is saved with the tool call already


@dataclass
class SessionStats:
    """Per-session counters for ``/status``."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    last_context_tokens: int = 0
