"""Durable goals: ``create_goal`` and ``update_goal`` (nanobot 0.3.5's names and store).

A goal is one objective a chat keeps working toward across turns. It lives where 0.3.5 keeps
it, in the session's metadata under ``goal_state`` (older files: ``thread_goal``)::

    {"status": "active", "objective": "...", "ui_summary": "...", "started_at": "<iso>"}

``update_goal`` ends it (``complete`` → ``completed``, ``cancel`` → ``cancelled``, ``block``
→ ``blocked``, with ``ended_at`` and a ``recap``) or replaces the objective. While a goal is
active, every turn of its chat sees it in the runtime block (:func:`goal_notes`), and the
heartbeat continues it (:class:`GoalContinuer`): at each tick, each idle chat with an active
goal gets one continuation turn, at most :data:`MAX_CONTINUATIONS` per goal, counted in the
goal (``continued``; nanobot keeps unknown keys of the blob).

Who may set a goal: 0.3.5 allows ``create_goal`` only in a turn the person started with
``/goal``. Here any turn a person started may create one (``ToolContext.source ==
"message"``); turns started by a reminder, the heartbeat, a subagent or another chat may not,
so nothing but the person starts unattended work.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from desktop.core.bus.events import EVENT_CHANNELS, InboundMessage, OutboundMessage
from desktop.core.session.manager import SessionManager
from desktop.core.session.temporary import is_temporary, refusal
from desktop.core.tools.base import Tool, ToolContext, ToolResult

if TYPE_CHECKING:
    from desktop.core.agent.loop import AgentLoop

log = logging.getLogger(__name__)

GOAL_KEY = "goal_state"
LEGACY_GOAL_KEY = "thread_goal"
MAX_OBJECTIVE = 4000
MAX_CONTINUATIONS = 12
ENDINGS = {"complete": "completed", "cancel": "cancelled", "block": "blocked"}
GOAL_OK = "GOAL_IDLE"


def goal_of(metadata: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The goal blob of a session's metadata (a JSON text blob is parsed), else ``None``."""
    if not metadata:
        return None
    raw = metadata.get(GOAL_KEY, metadata.get(LEGACY_GOAL_KEY))
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return None
    return raw if isinstance(raw, dict) else None


def active_goal(metadata: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The goal when it is active."""
    goal = goal_of(metadata)
    return goal if goal is not None and goal.get("status") == "active" else None


def goal_notes(_text: str, metadata: dict[str, Any]) -> list[str]:
    """Runtime-block lines for a chat with an active goal (a ``RuntimeNotes`` provider)."""
    goal = active_goal(metadata)
    if goal is None:
        return []
    objective = str(goal.get("objective") or "").strip()[:MAX_OBJECTIVE]
    lines = [f"Active goal (work toward it; update_goal when done or blocked): {objective}"]
    summary = str(goal.get("ui_summary") or "").strip()
    if summary:
        lines.append(f"Goal summary: {summary}")
    return lines


def _now() -> str:
    return datetime.now().isoformat()


class _GoalTool(Tool):
    group: ClassVar[str] = "goals"

    def __init__(self, sessions: SessionManager) -> None:
        self.sessions = sessions

    def _save(self, key: str, goal: dict[str, Any]) -> None:
        """Store ``goal`` in the chat's metadata (the cached session the turn runs on)."""
        session = self.sessions.get_or_create(key)
        session.metadata[GOAL_KEY] = goal
        session.metadata.pop(LEGACY_GOAL_KEY, None)
        self.sessions.save(session)

    def _current(self, key: str) -> dict[str, Any] | None:
        return goal_of(self.sessions.get_or_create(key).metadata)


class CreateGoalTool(_GoalTool):
    """Record one durable goal for this chat."""

    name: ClassVar[str] = "create_goal"
    description: ClassVar[str] = (
        "Record this chat's durable goal when the person asks for sustained work: a "
        "self-contained objective with its done criteria; later turns and the heartbeat "
        "continue it."
    )
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "objective": {"type": "string", "minLength": 1, "maxLength": MAX_OBJECTIVE},
            "ui_summary": {"type": "string", "maxLength": 120},
        },
        "required": ["objective"],
    }

    async def execute(
        self, ctx: ToolContext, *, objective: str, ui_summary: str = "", **_: Any
    ) -> ToolResult:
        """Store an active goal unless one is active already."""
        if is_temporary(ctx.session_key):
            return ToolResult.error(f"Error: {refusal('keep a durable goal')}")
        if ctx.source != "message" or "#" in ctx.session_key:
            return ToolResult.error(
                "Error: only a turn the person started may create a goal; ask them"
            )
        text = objective.strip()
        if not text:
            return ToolResult.error("Error: objective must not be empty")
        prior = await asyncio.to_thread(self._current, ctx.session_key)
        if prior is not None and prior.get("status") == "active":
            return ToolResult.error(
                "Error: a goal is already active; update_goal action='replace' changes it"
            )
        goal = {
            "status": "active",
            "objective": text,
            "ui_summary": ui_summary.strip()[:120],
            "started_at": _now(),
        }
        await asyncio.to_thread(self._save, ctx.session_key, goal)
        return ToolResult(
            "Goal recorded. Work toward it; when it is done and verified call update_goal "
            "with action='complete'."
        )


class UpdateGoalTool(_GoalTool):
    """Complete, cancel, block or replace this chat's active goal."""

    name: ClassVar[str] = "update_goal"
    description: ClassVar[str] = (
        "End this chat's active goal (complete only when verified, cancel, block) or replace "
        "its objective; give a short recap."
    )
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["complete", "cancel", "block", "replace"]},
            "recap": {"type": "string"},
            "objective": {"type": "string", "maxLength": MAX_OBJECTIVE},
            "ui_summary": {"type": "string", "maxLength": 120},
        },
        "required": ["action"],
    }

    async def execute(
        self,
        ctx: ToolContext,
        *,
        action: str,
        recap: str = "",
        objective: str = "",
        ui_summary: str = "",
        **_: Any,
    ) -> ToolResult:
        """Change the active goal's status, or its objective."""
        key = ctx.session_key.split("#", 1)[0]
        prior = await asyncio.to_thread(self._current, key)
        if prior is None or prior.get("status") != "active":
            return ToolResult("No active goal to update.")
        if action == "replace":
            if ctx.source != "message":
                return ToolResult.error("Error: only a turn the person started may replace a goal")
            if not objective.strip():
                return ToolResult.error("Error: action='replace' needs the new objective")
            goal = {
                "status": "active",
                "objective": objective.strip(),
                "ui_summary": ui_summary.strip()[:120],
                "started_at": _now(),
                "replaced_at": _now(),
                "previous_objective": str(prior.get("objective") or ""),
                "recap": recap.strip(),
            }
            await asyncio.to_thread(self._save, key, goal)
            return ToolResult("Goal replaced. Continue toward the new objective.")
        status = ENDINGS.get(action)
        if status is None:
            return ToolResult.error("Error: action must be complete, cancel, block or replace")
        ended = _now()
        goal = {**prior, "status": status, "ended_at": ended, "recap": recap.strip()}
        if status == "completed":
            goal["completed_at"] = ended
        await asyncio.to_thread(self._save, key, goal)
        tail = f" Recap: {recap.strip()}" if recap.strip() else ""
        return ToolResult(f"Goal marked {status}.{tail}")


def goal_tools(sessions: SessionManager) -> list[Tool]:
    """``create_goal`` and ``update_goal``."""
    return [CreateGoalTool(sessions), UpdateGoalTool(sessions)]


class GoalContinuer:
    """Continues active goals from the heartbeat: one turn per idle chat per tick.

    Args:
        agent: Runs the turns (its sessions, bus and busy state).
    """

    PROMPT = (
        "[Heartbeat: continue this chat's active goal. Take the next concrete step with your "
        "tools. If it is done and verified, call update_goal with action='complete'; if it "
        f"cannot progress now, say why in one line, or answer exactly {GOAL_OK} when there is "
        "nothing to do until later.]"
    )

    def __init__(self, agent: AgentLoop) -> None:
        self.agent = agent

    def _chats_with_goals(self) -> list[tuple[str, dict[str, Any]]]:
        from desktop.core.session.validate import read_session_header

        found = []
        for summary in self.agent.sessions.summaries():
            if "#" in summary.key:
                continue
            metadata = self.agent.sessions.cached_metadata(summary.key)
            if metadata is None:
                opened = read_session_header(summary.path)
                if opened is None:
                    continue
                header, handle = opened
                handle.close()
                metadata = header.metadata
            goal = active_goal(metadata)
            if goal is not None:
                found.append((summary.key, goal))
        return found

    def _count(self, key: str) -> bool:
        """Count one continuation in the goal; ``False`` when it has had its share."""
        sessions = self.agent.sessions
        session = sessions.get_or_create(key)
        goal = active_goal(session.metadata)
        if goal is None:
            return False
        done = int(goal.get("continued") or 0)
        if done >= MAX_CONTINUATIONS:
            return False
        session.metadata[GOAL_KEY] = {**goal, "continued": done + 1}
        sessions.save(session)
        return True

    async def tick(self) -> str:
        """Continue each idle chat's active goal once; a summary line for the job's log."""
        chats = await asyncio.to_thread(self._chats_with_goals)
        ran = 0
        for key, _goal in chats:
            if self.agent.is_busy(key) or ":" not in key:
                continue
            async with self.agent.session_lock(key):
                allowed = await asyncio.to_thread(self._count, key)
            if not allowed:
                continue
            channel, _, chat_id = key.partition(":")
            message = InboundMessage(
                channel, "heartbeat", chat_id, self.PROMPT, session_key_override=key
            )
            outcome = await self.agent.run_turn(
                message,
                source="heartbeat",
                shown="Continuing the goal",
                label="Goal",
                extra={"heartbeat": True},
            )
            ran += 1
            reply = outcome.content.strip()
            # On an event channel the window shows the turn itself.
            if (
                outcome.status == "finished"
                and reply
                and GOAL_OK not in reply
                and channel not in EVENT_CHANNELS
            ):
                await self.agent.bus.publish_outbound(OutboundMessage(channel, chat_id, reply))
        return f"goals continued: {ran}" if ran else "no goals to continue"
