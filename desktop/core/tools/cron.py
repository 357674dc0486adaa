"""The ``cron`` tool: the agent schedules reminders and recurring tasks for the person."""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from desktop.core.cron.delivery import CURRENT_JOB
from desktop.core.cron.service import CronService, ProtectedJobError
from desktop.core.cron.spec import build_schedule, describe_job
from desktop.core.cron.store import StoreBusyError
from desktop.core.cron.types import CronPayload
from desktop.core.session.temporary import is_temporary, refusal
from desktop.core.tools.base import Tool, ToolContext, ToolResult

NAME_CHARS = 40


class CronTool(Tool):
    """Add, list and remove scheduled jobs; a job runs later as a turn in this chat."""

    name: ClassVar[str] = "cron"
    description: ClassVar[str] = (
        "Schedule reminders/recurring tasks that run later as a turn in this chat. "
        "add: message + one of every_seconds, cron_expr (5 fields, optional tz) or at (ISO time). "
        "list; remove: job_id."
    )
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["add", "list", "remove"]},
            "message": {"type": "string", "description": "What to do or say when it runs."},
            "every_seconds": {"type": "integer", "minimum": 1},
            "cron_expr": {"type": "string", "description": "e.g. '0 9 * * 1-5'"},
            "tz": {"type": "string", "description": "IANA zone, e.g. Europe/Berlin"},
            "at": {"type": "string", "description": "ISO time, e.g. 2026-05-01T09:30"},
            "job_id": {"type": "string"},
            "name": {"type": "string"},
        },
        "required": ["action"],
    }

    def __init__(self, service: CronService, *, default_tz: str | None = None) -> None:
        self.service = service
        self.default_tz = default_tz

    async def execute(self, ctx: ToolContext, **kwargs: Any) -> ToolResult:
        action = kwargs["action"]
        try:
            if action == "add":
                return await self._add(ctx, kwargs)
            if action == "list":
                return await asyncio.to_thread(self._list)
            return await self._remove(kwargs.get("job_id"))
        except StoreBusyError as exc:
            return ToolResult.error(f"Error: {exc}")

    async def _add(self, ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
        if is_temporary(ctx.session_key):
            return ToolResult.error(f"Error: {refusal('schedule reminders or jobs')}")
        if CURRENT_JOB.get() is not None:
            return ToolResult.error(
                "Error: a scheduled task cannot schedule new jobs (this turn was started by one)."
            )
        message = (args.get("message") or "").strip()
        if not message:
            return ToolResult.error("Error: message is required for add")
        try:
            schedule, once = build_schedule(
                every_seconds=args.get("every_seconds"),
                cron_expr=args.get("cron_expr"),
                tz=args.get("tz"),
                at=args.get("at"),
                default_tz=self.default_tz,
            )
        except ValueError as exc:
            return ToolResult.error(f"Error: {exc}")
        # Bound to this conversation, the way nanobot 0.3.5 stores it.
        payload = CronPayload(
            message=message,
            session_key=ctx.session_key,
            origin_channel=ctx.channel,
            origin_chat_id=ctx.chat_id,
        )
        name = (args.get("name") or message)[:NAME_CHARS].strip()
        try:
            job = await asyncio.to_thread(
                self.service.add_job, name, schedule, payload, delete_after_run=once
            )
        except ValueError as exc:
            return ToolResult.error(f"Error: {exc}")
        return ToolResult("Scheduled.\n" + describe_job(job, protected=False, tz=self.default_tz))

    def _list(self) -> ToolResult:
        jobs = self.service.list_jobs()
        if not jobs:
            return ToolResult("No scheduled jobs.")
        lines = [
            describe_job(job, protected=self.service.is_protected(job.id), tz=self.default_tz)
            for job in jobs
        ]
        return ToolResult("Scheduled jobs:\n" + "\n".join(lines))

    async def _remove(self, job_id: str | None) -> ToolResult:
        if not job_id:
            return ToolResult.error("Error: job_id is required for remove")
        try:
            removed = await asyncio.to_thread(self.service.remove_job, job_id)
        except ProtectedJobError as exc:
            return ToolResult.error(f"Error: {exc}")
        if not removed:
            return ToolResult.error(f"Error: no job with id {job_id}.")
        return ToolResult(f"Removed job {job_id}.")
