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

The spend governor never keeps a reminder from the person. When it refuses the job's model
call (over a budget, or a runaway run) the reminder's own text is delivered and the run is
recorded as skipped with cause ``budget`` (:class:`~desktop.core.cron.receipts.JobSkipped`;
a system job kept from running is skipped the same way). While the window asks the person
whether to go over the budget, the reminder's own text is delivered at once rather than
after the answer; if they let it run, its answer follows.

While reminders are paused in the window (the tray's "Pause reminders": no pop-up, counted as
unread; ``reminders_paused``), a reminder still runs and reaches the window; its receipt says
it arrived quietly.

Every run says where its answer went (:class:`~desktop.core.cron.receipts.JobResult`): a front
end counts when one is registered with the channel manager (the window's ``desktop`` channel,
the terminal's ``cli``, a gateway's printing fallback); a chat network counts when the manager
delivered to it. A reminder that reached no one is kept
(:class:`~desktop.core.cron.receipts.KeptReminders`) and :meth:`JobRunner.deliver_kept` shows
it once a front end is there (the window calls it when it attaches, a gateway when it starts).
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from desktop.core.bus.events import (
    DESKTOP_CHANNEL,
    EVENT_CHANNELS,
    BudgetPaused,
    InboundMessage,
    OutboundMessage,
    ReminderDue,
    RunEvent,
)
from desktop.core.cron.reasons import SKIPPED_UNDELIVERED
from desktop.core.cron.receipts import (
    CURRENT_RUN,
    JobResult,
    JobSkipped,
    KeptReminder,
    KeptReminders,
)
from desktop.core.cron.types import CronJob, CronPayload
from desktop.core.providers.switchable import usage_scope
from desktop.core.usage.governor import BudgetRefused
from desktop.core.utils.i18n import Phrase
from desktop.core.utils.resources import aread_template

if TYPE_CHECKING:
    from desktop.core.agent.loop import AgentLoop
    from desktop.core.channels.manager import ChannelManager

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
        channels: Delivers to chat networks and knows which front ends are there (``None``:
            answers go out through the bus and count as delivered, the old behaviour).
        kept: Where reminders that reached no one wait for the next start.
        reminders_paused: Whether the window shows reminders without a pop-up now (the
            ``remindersPaused`` preference; ``None``: never).
    """

    def __init__(
        self,
        agent: AgentLoop,
        system_jobs: dict[str, Callable[[], Awaitable[str | None]]],
        *,
        timezone: str | None = None,
        channels: ChannelManager | None = None,
        kept: KeptReminders | None = None,
        reminders_paused: Callable[[], bool] | None = None,
    ) -> None:
        self.agent = agent
        self.system_jobs = system_jobs
        self.timezone = timezone
        self.channels = channels
        self.kept = kept
        self.reminders_paused = reminders_paused
        self._kept_lock = asyncio.Lock()

    async def __call__(self, job: CronJob) -> str | JobResult | None:
        """Run ``job``; exceptions are recorded by the scheduler as a failed run, a
        :class:`~desktop.core.cron.receipts.JobSkipped` as a skipped one."""
        with usage_scope(source="cron", job=job.id, run=uuid.uuid4().hex[:12]):
            return await self._run(job)

    async def _run(self, job: CronJob) -> str | JobResult | None:
        if job.payload.kind == "system_event":
            handler = self.system_jobs.get(job.id)
            if handler is None:
                raise ValueError(
                    f"system job {job.id!r} has no handler here (disabled in the config?)"
                )
            try:
                return await handler()
            except BudgetRefused as exc:
                raise JobSkipped(exc.message, cause="budget") from None
        return await self.remind(job)

    def _now_text(self) -> str:
        zone = ZoneInfo(self.timezone) if self.timezone else None
        return datetime.now(zone).strftime("%Y-%m-%d %H:%M")

    async def remind(self, job: CronJob) -> JobResult:  # noqa: C901  # the reminder turn and each way its delivery can end
        """The reminder turn in the job's conversation, then delivery.

        Raises:
            JobSkipped: The spend governor refused the turn's model call (the reminder's own
                text was delivered: see the module docstring).
        """
        channel, chat_id, key = job_target(job.payload)
        text = (
            (await aread_template("agent", "cron_reminder.md"))
            .format(name=job.name, time=self._now_text(), message=job.payload.message)
            .strip()
        )
        message = InboundMessage(
            channel, "cron", chat_id, text, session_key_override=key, metadata={"cron_job": job.id}
        )
        fallback = f"Reminder: {job.payload.message}"
        asked = asyncio.Event()

        def on_event(event: RunEvent) -> None:
            if isinstance(event, BudgetPaused) and event.job == job.id and event.asked:
                asked.set()

        async def deliver_while_asked() -> JobResult | None:
            await asked.wait()
            try:
                return await self._deliver(job, channel, chat_id, key, fallback, sent_already=False)
            except Exception:  # never the turn's end: the text is delivered after it instead
                log.exception("delivering reminder %s while the budget asks failed", job.id)
                return None

        token = CURRENT_JOB.set(job.id)
        unsubscribe = self.agent.bus.subscribe(on_event)
        try:
            async with asyncio.TaskGroup() as group:
                early = group.create_task(deliver_while_asked())
                outcome = await self.agent.run_turn(
                    message,
                    source="cron",
                    shown=job.payload.message or job.name,
                    label=job.name,
                    extra={"cron_job": job.id},
                )
                if not asked.is_set():
                    early.cancel()
        finally:
            unsubscribe()
            CURRENT_JOB.reset(token)
        shown = None if early.cancelled() else early.result()
        if outcome.status == "finished":
            # The ``message`` tool may already have answered in the chat.
            answer = outcome.content or job.payload.message
            result = await self._deliver(
                job, channel, chat_id, key, answer, sent_already=outcome.message_sent
            )
            return dataclasses.replace(result, text=outcome.content)
        # Stopped, failed or refused: the reminder itself must still arrive (once).
        if shown is None:
            shown = await self._deliver(job, channel, chat_id, key, fallback, sent_already=False)
        error = outcome.error
        if isinstance(error, BudgetRefused):
            raise JobSkipped(_skip_reason(error, shown), cause="budget", delivered=shown)
        if outcome.status == "failed" and error is not None:
            why = f"the model could not be reached ({error.message})"
            if shown.delivered_to:
                why += "; the reminder text was delivered as is"
            shown = dataclasses.replace(shown, error=why)
        return shown

    def front_ends(self, channel: str = DESKTOP_CHANNEL) -> list[str]:
        """The front ends that would show a reminder from ``channel`` now.

        The window (``desktop``) shows every reminder; the terminal's ``cli`` channel only its
        own (the app's socket for ``nanobot-desktop agent`` is registered as ``cli`` too, with
        no one behind it for other chats); a gateway prints what has no other place.
        """
        channels = self.channels
        if channels is None:
            return []
        found = [DESKTOP_CHANNEL] if channels.channel(DESKTOP_CHANNEL) is not None else []
        if channel == "cli" and channels.channel("cli") is not None:
            found.append("cli")
        if not found and channels.has_fallback:
            found.append("terminal")
        return found

    async def _deliver(
        self, job: CronJob, channel: str, chat_id: str, key: str, text: str, *, sent_already: bool
    ) -> JobResult:
        """Deliver ``text``: where it went (quietly?), or why it went nowhere (then it is kept)."""
        places, why = await self._send(job, channel, chat_id, key, text, sent_already=sent_already)
        quiet = (
            DESKTOP_CHANNEL in places
            and self.reminders_paused is not None
            and self.reminders_paused()
        )
        return JobResult(text, places, why, quiet=quiet)

    async def _send(
        self, job: CronJob, channel: str, chat_id: str, key: str, text: str, *, sent_already: bool
    ) -> tuple[tuple[str, ...], str | None]:
        bus = self.agent.bus
        await bus.emit(
            ReminderDue(
                key,
                job.id,
                job.name,
                text,
                channel=channel,
                chat_id=chat_id,
                run_id=CURRENT_RUN.get(),
                message=job.payload.message,
            )
        )
        network = channel not in EVENT_CHANNELS
        outbound = OutboundMessage(
            channel, chat_id, text, metadata={"reminder": True, "cron_job": job.id}
        )
        if self.channels is None:  # no manager to ask: the old fire-and-forget delivery
            if network and not sent_already:
                await bus.publish_outbound(outbound)
            return (), None
        places = self.front_ends(channel)
        why: str | None = None
        if network:
            running = self.channels.channel(channel) is not None  # else the fallback prints it
            if sent_already or await self.channels.deliver(outbound):
                places.append(channel if running or sent_already else "terminal")
            else:
                why = f"the {channel} chat could not be reached"
        if places:
            return tuple(dict.fromkeys(places)), None
        why = why or "no window or terminal was open to show it"
        await self._keep(job, key, channel, chat_id, text)
        return (), f"{why}; it is kept and shown at the next start"

    async def _keep(self, job: CronJob, key: str, channel: str, chat_id: str, text: str) -> None:
        if self.kept is None:
            return
        reminder = KeptReminder(
            id=uuid.uuid4().hex[:12],
            job_id=job.id,
            job_name=job.name,
            text=text,
            session_key=key,
            channel=channel,
            chat_id=chat_id,
            at_ms=int(time.time() * 1000),
            run_id=CURRENT_RUN.get(),
            message=job.payload.message,
        )
        await asyncio.to_thread(self.kept.keep, reminder)

    async def deliver_kept(self) -> int:
        """Show the reminders kept while no one could see them; how many were shown.

        Does nothing while no front end is there (they stay kept). Each one is marked shown
        only after it went out, so a crash in between shows it again rather than never.
        """
        kept = self.kept
        if kept is None or not self.front_ends():
            return 0
        async with self._kept_lock:
            waiting = await asyncio.to_thread(kept.pending)
            for reminder in waiting:
                await self.agent.bus.emit(
                    ReminderDue(
                        reminder.session_key,
                        reminder.job_id,
                        reminder.job_name,
                        reminder.text,
                        channel=reminder.channel,
                        chat_id=reminder.chat_id,
                        run_id=reminder.run_id,
                        message=reminder.message,
                    )
                )
                await asyncio.to_thread(kept.mark_shown, reminder.id, int(time.time() * 1000))
            return len(waiting)


def _skip_reason(error: BudgetRefused, shown: JobResult) -> str:
    """Why a reminder's turn was skipped (where its own text went is in ``deliveredTo``), and
    what became of that text when it reached no one."""
    if shown.delivered_to:
        return error.message
    return Phrase(
        SKIPPED_UNDELIVERED, reason=error.message.rstrip("."), undelivered=shown.undelivered
    )
