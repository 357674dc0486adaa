"""The heartbeat: a periodic look at ``HEARTBEAT.md`` that stays quiet unless there is news.

One heartbeat (run by the scheduler's protected ``heartbeat`` job) goes:

1. Read ``HEARTBEAT.md``. Without active tasks (only headings, comments and blank lines)
   nothing else happens -- no model call.
2. A small decision call: the model must answer through the ``heartbeat`` tool with
   ``skip`` or ``run`` (plus the tasks to do now). No answer counts as ``skip``.
3. On ``run``: an agent turn in the heartbeat's own session, first trimmed to its last few
   messages so it never grows without bound (a known token sink: every heartbeat would
   otherwise carry all the earlier ones).
4. The answer becomes a :class:`~desktop.core.bus.events.ReminderDue` only when it is worth
   telling: the run prompt asks for exactly ``HEARTBEAT_OK`` when nothing needs attention.

Before that, each chat with an active goal gets one continuation turn
(:class:`~desktop.core.tools.goals.GoalContinuer`), whatever ``HEARTBEAT.md`` says.
"""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from desktop.core.bus.events import InboundMessage, ReminderDue
from desktop.core.providers.switchable import usage_scope
from desktop.core.usage.governor import BudgetRefused
from desktop.core.utils.redact import redact_for_prompt
from desktop.core.utils.resources import aread_template
from desktop.core.utils.validate import read_text_document

if TYPE_CHECKING:
    from desktop.core.agent.loop import AgentLoop
    from desktop.core.providers.base import LLMProvider
    from desktop.core.tools.goals import GoalContinuer

log = logging.getLogger(__name__)

HEARTBEAT_FILE = "HEARTBEAT.md"
SESSION_KEY = "heartbeat:main"
OK_TOKEN = "HEARTBEAT_OK"
KEEP_MESSAGES = 8
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)

DECISION_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "heartbeat",
        "description": "Say whether the heartbeat tasks need work now.",
        "parameters": {
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": ["skip", "run"]},
                "tasks": {"type": "string", "description": "The tasks to do now (for run)."},
                "reason": {"type": "string", "description": "Why (for skip)."},
            },
            "required": ["action"],
        },
    },
}


def active_tasks(text: str) -> list[str]:
    """The task lines of a HEARTBEAT.md: everything but headings, comments and blank lines."""
    lines = []
    for line in _COMMENT.sub("", text).splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped in {"-", "*", "- [ ]", "* [ ]"}:  # empty list items
            continue
        lines.append(stripped)
    return lines


@dataclass(frozen=True)
class Decision:
    """The decision call's answer."""

    action: str
    tasks: str = ""
    reason: str = ""


def parse_decision(arguments: dict[str, Any] | None) -> Decision:
    """Read the ``heartbeat`` tool's arguments; anything unclear means skip."""
    if not arguments or arguments.get("action") not in ("skip", "run"):
        return Decision("skip", reason="the model gave no clear decision")
    return Decision(
        str(arguments["action"]),
        str(arguments.get("tasks") or ""),
        str(arguments.get("reason") or ""),
    )


class HeartbeatService:
    """Runs one heartbeat when :meth:`tick` is called (the scheduler calls it).

    Args:
        workspace: Where ``HEARTBEAT.md`` lives.
        provider: The model for the decision call.
        agent: Runs the heartbeat turn.
        timezone: IANA zone for the time shown to the model.
        keep_messages: How many messages of the heartbeat session survive a trim.
        goals: Continues the chats' active goals first (``None``: no goals are continued).
    """

    def __init__(
        self,
        workspace: Path,
        provider: LLMProvider,
        agent: AgentLoop,
        *,
        timezone: str | None = None,
        keep_messages: int = KEEP_MESSAGES,
        goals: GoalContinuer | None = None,
    ) -> None:
        self.goals = goals
        self.workspace = workspace
        self.provider = provider
        self.agent = agent
        self.timezone = timezone
        self.keep_messages = keep_messages

    def _now_text(self) -> str:
        zone = ZoneInfo(self.timezone) if self.timezone else None
        return datetime.now(zone).strftime("%Y-%m-%d %H:%M (%A)")

    def _read_tasks(self) -> list[str]:
        # No link followed, no FIFO waited on; a key copied into the file never reaches a prompt.
        text = read_text_document(self.workspace / HEARTBEAT_FILE, root=self.workspace)
        return active_tasks(redact_for_prompt(text)) if text else []

    async def tick(self) -> str:
        """One heartbeat; returns a one-line summary of what happened (for the job's log).

        Raises:
            BudgetRefused: The spend governor kept a model call from running (the scheduler
                records the run as skipped).
            RuntimeError: The heartbeat turn failed.
        """
        if self.goals is not None:
            summary = await self.goals.tick()
            log.info("heartbeat: %s", summary)
        tasks = await asyncio.to_thread(self._read_tasks)
        if not tasks:
            return "no active tasks"
        decision = await self.decide(tasks)
        if decision.action == "skip":
            return f"skipped: {decision.reason or 'nothing due'}"
        await self.trim_session()
        now = self._now_text()
        prompt = (await aread_template("agent", "heartbeat_run.md")).format(
            time=now, tasks=decision.tasks.strip() or "\n".join(tasks)
        )
        message = InboundMessage(
            "heartbeat", "heartbeat", "main", prompt, session_key_override=SESSION_KEY
        )
        outcome = await self.agent.run_turn(
            message,
            source="heartbeat",
            shown="Heartbeat",
            label="Heartbeat",
            extra={"heartbeat": True},  # not the person's message: never a title, not edited
        )
        if outcome.status == "failed" and outcome.error is not None:
            if isinstance(outcome.error, BudgetRefused):
                raise outcome.error  # kept from running by a budget: not a failure
            raise RuntimeError(f"the heartbeat turn failed: {outcome.error.message}")
        reply = outcome.content
        if outcome.status != "finished" or not worth_telling(reply):
            return "ran: nothing to report"
        await self.agent.bus.emit(
            ReminderDue(
                SESSION_KEY,
                "heartbeat",
                "Heartbeat",
                reply.strip(),
                channel="heartbeat",
                chat_id="main",
                source="heartbeat",
            )
        )
        return "ran: notified"

    async def decide(self, tasks: list[str]) -> Decision:
        """The small skip/run call."""
        prompt = (await aread_template("agent", "heartbeat_decide.md")).format(
            time=self._now_text(), tasks="\n".join(tasks)
        )
        # Its own small call, not part of a run: a tick that finds nothing due must not make
        # the heartbeat's "usual run" tiny for the runaway guard.
        with usage_scope(source="heartbeat", run=""):
            response = await self.provider.chat(
                [
                    {"role": "system", "content": prompt},
                    {"role": "user", "content": "Decide now with the heartbeat tool."},
                ],
                tools=[DECISION_TOOL],
                tool_choice={"type": "function", "function": {"name": "heartbeat"}},
                max_tokens=300,
            )
        call = next((c for c in response.tool_calls if c.name == "heartbeat"), None)
        return parse_decision(call.arguments if call is not None else None)

    async def trim_session(self) -> int:
        """Keep only the last messages of the heartbeat session (from a user message on)."""
        async with self.agent.session_lock(SESSION_KEY):
            session = await asyncio.to_thread(self.agent.sessions.get_or_create, SESSION_KEY)
            repaired = session.repair()
            dropped = trim_messages(session.messages, self.keep_messages)
            if dropped or repaired:
                session.last_consolidated = 0
                await asyncio.to_thread(self.agent.sessions.save, session)
            return dropped


def trim_messages(messages: list[dict[str, Any]], keep: int) -> int:
    """Drop all but about ``keep`` trailing messages, starting at a user message; returns the count dropped."""
    if len(messages) <= keep:
        return 0
    start = len(messages) - keep
    while start < len(messages) and messages[start].get("role") != "user":
        start += 1
    dropped = start
    del messages[:start]
    return dropped


def worth_telling(reply: str | None) -> bool:
    """Whether a heartbeat answer has news for the person."""
    text = (reply or "").strip()
    return bool(text) and OK_TOKEN not in text
