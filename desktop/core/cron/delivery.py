"""What happens when a job fires: a reminder turn in its conversation, or a system job.

A user's job (payload kind ``agent_turn``) runs an agent turn in the session it was created
in, with the ``cron_reminder`` template as the message. The turn waits while that session is
busy (turns of one session never overlap). Its answer then goes

* to front ends as a :class:`~desktop.core.bus.events.ReminderDue` event (the desktop shows a
  notification; ``gateway`` prints it), and
* to the origin channel as an outbound message when that channel is a chat network (the
  desktop and CLI render the turn themselves).

If the model cannot be reached, the person still gets the reminder's own text, and the run is
recorded as failed. System jobs (payload kind ``system_event``) call Dream or the heartbeat.
"""

from __future__ import annotations

import contextvars
import logging
import uuid
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from desktop.core.bus.events import DESKTOP_CHANNEL, InboundMessage, OutboundMessage, ReminderDue
from desktop.core.cron.types import CronJob, CronPayload
from desktop.core.providers.switchable import usage_scope
from desktop.core.resources import read_template

if TYPE_CHECKING:
    from desktop.core.agent.loop import AgentLoop

# Channels whose front ends render a turn from its events (the desktop, the CLI); every other
# channel gets the answer as an outbound message. Mirrors ``desktop.core.agent.loop``.
EVENT_CHANNELS = frozenset({DESKTOP_CHANNEL, "cli", "system", "heartbeat"})

log = logging.getLogger(__name__)

#: The id of the job whose turn is running in this task (the cron tool refuses to add jobs
#: from inside a scheduled turn, so a reminder can't schedule itself forever).
CURRENT_JOB: contextvars.ContextVar[str | None] = contextvars.ContextVar("cron_job", default=None)

DEFAULT_CHANNEL = DESKTOP_CHANNEL
DEFAULT_CHAT = "reminders"


def job_target(payload: CronPayload) -> tuple[str, str, str]:
    """Channel, chat and session key a job's answer belongs to.

    nanobot 0.3.5 binds jobs to ``sessionKey`` + ``originChannel``/``originChatId``; older
    jobs carry ``channel``/``to``. Jobs with neither (e.g. added by ``cron add``) go to the
    desktop's ``reminders`` chat.
    """
    channel = payload.origin_channel or payload.channel
    chat = payload.origin_chat_id or payload.to
    key = payload.session_key
    if (not channel or not chat) and key and ":" in key:
        channel, _, chat = key.partition(":")
    channel = channel or DEFAULT_CHANNEL
    chat = chat or DEFAULT_CHAT
    return channel, chat, key or f"{channel}:{chat}"


class JobRunner:
    """The scheduler's ``on_job`` handler.

    Args:
        agent: Runs reminder turns.
        system_jobs: Coroutine functions for system jobs by id (``dream``, ``heartbeat``).
        timezone: IANA zone for the time in the reminder text.
    """

    def __init__(
        self,
        agent: AgentLoop,
        system_jobs: dict[str, Callable[[], Awaitable[str | None]]],
        *,
        timezone: str | None = None,
    ) -> None:
        self.agent = agent
        self.system_jobs = system_jobs
        self.timezone = timezone

    async def __call__(self, job: CronJob) -> str | None:
        """Run ``job``; exceptions are recorded by the scheduler as a failed run."""
        with usage_scope(source="cron", job=job.id, run=uuid.uuid4().hex[:12]):
            return await self._run(job)

    async def _run(self, job: CronJob) -> str | None:
        if job.payload.kind == "system_event":
            handler = self.system_jobs.get(job.id)
            if handler is None:
                raise ValueError(
                    f"system job {job.id!r} has no handler here (disabled in the config?)"
                )
            return await handler()
        return await self.remind(job)

    def _now_text(self) -> str:
        zone = ZoneInfo(self.timezone) if self.timezone else None
        return datetime.now(zone).strftime("%Y-%m-%d %H:%M")

    async def remind(self, job: CronJob) -> str:
        """The reminder turn in the job's conversation, then delivery."""
        channel, chat_id, key = job_target(job.payload)
        text = (
            read_template("agent", "cron_reminder.md")
            .format(name=job.name, time=self._now_text(), message=job.payload.message)
            .strip()
        )
        message = InboundMessage(
            channel, "cron", chat_id, text, session_key_override=key, metadata={"cron_job": job.id}
        )
        token = CURRENT_JOB.set(job.id)
        try:
            outcome = await self.agent.run_turn(
                message,
                source="cron",
                shown=job.payload.message or job.name,
                label=job.name,
                extra={"cron_job": job.id},
            )
        finally:
            CURRENT_JOB.reset(token)
        if outcome.status == "finished":
            # The ``message`` tool may already have answered in the chat.
            await self._deliver(
                job,
                channel,
                chat_id,
                key,
                outcome.content or job.payload.message,
                sent_already=outcome.message_sent,
            )
            return outcome.content
        # Stopped or failed: the reminder itself must still arrive.
        fallback = f"Reminder: {job.payload.message}"
        await self._deliver(job, channel, chat_id, key, fallback, sent_already=False)
        if outcome.status == "failed" and outcome.error is not None:
            raise RuntimeError(
                f"the model could not be reached ({outcome.error.message}); "
                "the reminder text was delivered as is"
            )
        return fallback

    async def _deliver(
        self, job: CronJob, channel: str, chat_id: str, key: str, text: str, *, sent_already: bool
    ) -> None:
        bus = self.agent.bus
        await bus.emit(ReminderDue(key, job.id, job.name, text, channel=channel, chat_id=chat_id))
        if channel not in EVENT_CHANNELS and not sent_already:
            await bus.publish_outbound(
                OutboundMessage(
                    channel, chat_id, text, metadata={"reminder": True, "cron_job": job.id}
                )
            )
