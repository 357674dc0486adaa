"""Idle compaction: a chat left alone for ``idleCompactAfterMinutes`` is compacted.

nanobot 0.3.5 does this (``agents.defaults.idleCompactAfterMinutes``, default 15; 0 turns it
off): a session whose last activity (``updated_at``) is that old and that has conversation
after its last archive gets a summary checkpoint, so the next turn in it replays the summary
instead of every old message. At most one scan per ``idleCompactCheckIntervalSeconds``.

A timer runs only while something is to do: the compactor knows each session's deadline
(from a scan of the session files at start, then from every turn's end) and sleeps until the
earliest one; with no session waiting there is no timer. Sessions with a running turn and
Dream's own (``dream:``) are left alone; one whose file another process touched meanwhile
gets its new deadline instead. Unlike nanobot, the start's scan leaves chats idle for over a
day alone (see :data:`SCAN_HORIZON`): a first start would otherwise summarise every old chat. The clock is injectable (tests do not wait minutes).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from desktop.core.bus.events import RunEvent, TurnFailed, TurnFinished, TurnStopped
from desktop.core.bus.queue import MessageBus
from desktop.core.session.compaction import has_unarchived
from desktop.core.session.manager import Session, SessionManager
from desktop.core.session.temporary import is_temporary
from desktop.core.utils.tasks import TaskOwner

log = logging.getLogger(__name__)

INTERNAL_PREFIXES = ("dream:",)
#: The start's scan takes sessions that became idle at most this long ago; older ones are
#: finished chats that would each cost a model call at a first start (one used again is
#: compacted after it).
SCAN_HORIZON = timedelta(days=1)


class Compacting(Protocol):
    """What compacts a session (the memory Consolidator)."""

    async def compact(self, session: Session, end: int | None = None) -> bool:
        """Summarise what is not yet archived into a checkpoint; whether anything was."""
        ...


@dataclass
class IdleClock:
    """Wall time and sleeping, replaceable in tests.

    Attributes:
        now: The current local time (naive, as session timestamps are).
        sleep: Waits the given seconds.
    """

    now: Callable[[], datetime] = field(default=datetime.now)
    sleep: Callable[[float], Awaitable[None]] = field(default=asyncio.sleep)


def _parse(text: object) -> datetime | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        return None
    return when.astimezone().replace(tzinfo=None) if when.tzinfo is not None else when


class IdleCompactor:
    """Compacts sessions that have been idle for ``after_minutes``.

    Args:
        sessions: Session storage.
        compactor: Makes the checkpoint (the Consolidator).
        lock_for: The lock a session's turns run under (compaction waits for a turn).
        busy: Whether a turn runs in a session now.
        owner: Owns the scan, the timer and the compactions.
        after_minutes: Idle minutes before a session is compacted (0: never).
        interval_s: The least time between two scans.
        clock: Time source and sleep.
    """

    def __init__(
        self,
        sessions: SessionManager,
        compactor: Compacting,
        *,
        lock_for: Callable[[str], asyncio.Lock],
        busy: Callable[[str], bool],
        owner: TaskOwner,
        after_minutes: int,
        interval_s: int = 60,
        clock: IdleClock | None = None,
    ) -> None:
        self.sessions = sessions
        self.compactor = compactor
        self.lock_for = lock_for
        self.busy = busy
        self.after = timedelta(minutes=max(0, after_minutes))
        self.interval = timedelta(seconds=max(0, interval_s))
        self.clock = clock or IdleClock()
        self._owner = owner
        self._due: dict[str, datetime] = {}
        self._timer: asyncio.Task[None] | None = None
        self._wake_at: datetime | None = None
        self._last_scan: datetime | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self.compacted: list[str] = []  # keys compacted, oldest first (status, tests)

    @property
    def enabled(self) -> bool:
        """Whether idle compaction is on (``idleCompactAfterMinutes`` > 0)."""
        return self.after > timedelta(0)

    @property
    def waiting(self) -> dict[str, datetime]:
        """Sessions waiting to become idle, with their deadlines."""
        return dict(self._due)

    def start(self, bus: MessageBus) -> None:
        """Learn the sessions' deadlines from their files, then follow every turn's end."""
        if not self.enabled or self._unsubscribe is not None:
            return
        self._unsubscribe = bus.subscribe(self._on_event)
        self._owner.try_spawn(self._scan_files(), name="idle-compaction:scan")

    async def aclose(self) -> None:
        """Stop following turns; cancel the timer and running compactions."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        await self._owner.aclose()

    def _on_event(self, event: RunEvent) -> None:
        if isinstance(event, TurnFinished | TurnStopped | TurnFailed):
            self.touch(event.session_key)

    def touch(self, key: str, since: datetime | None = None) -> None:
        """Session ``key`` was active at ``since`` (default: now): it is due ``after`` later."""
        if self._unsubscribe is None or key.startswith(INTERNAL_PREFIXES) or is_temporary(key):
            return
        self._due[key] = (since or self.clock.now()) + self.after
        self._arm()

    async def _scan_files(self) -> None:
        """Deadlines of the sessions on disk (another program's included)."""
        listed = await asyncio.to_thread(self.sessions.list_sessions)
        oldest = self.clock.now() - self.after - SCAN_HORIZON  # became idle over a day ago
        for info in listed:
            key = str(info.get("key") or "")
            when = _parse(info.get("updated_at"))
            if when is None or when < oldest or not key or key.startswith(INTERNAL_PREFIXES):
                continue
            self._due.setdefault(key, when + self.after)
        self._arm()

    def _arm(self) -> None:
        """Sleep until the earliest deadline (no timer when none is waiting)."""
        if not self._due or self._owner.closed:
            return
        wake = min(self._due.values())
        if self._last_scan is not None:
            wake = max(wake, self._last_scan + self.interval)
        if self._timer is not None and not self._timer.done():
            if self._wake_at is not None and self._wake_at <= wake:
                return  # it wakes early enough and plans again then
            self._timer.cancel()
        self._wake_at = wake
        self._timer = self._owner.try_spawn(self._sleep_until(wake), name="idle-compaction:timer")

    async def _sleep_until(self, wake: datetime) -> None:
        while (left := (wake - self.clock.now()).total_seconds()) > 0:
            await self.clock.sleep(left)
        self._timer = None
        self._wake_at = None
        self._last_scan = self.clock.now()
        now = self._last_scan
        for key, deadline in sorted(self._due.items(), key=lambda item: item[1]):
            if deadline <= now:
                del self._due[key]
                self._owner.try_spawn(self._compact(key), name=f"idle-compaction:{key}")
        self._arm()

    async def _compact(self, key: str) -> None:
        """Compact ``key`` if it is still idle and has something new; else plan again."""
        try:
            async with self.lock_for(key):
                session = await asyncio.to_thread(self.sessions.get_or_create, key)
                idle_since = session.updated_at
                if self.busy(key) or idle_since + self.after > self.clock.now():
                    self.touch(key, idle_since)  # active again (here or in another program)
                    return
                if not await asyncio.to_thread(has_unarchived, session):
                    return
                if await self.compactor.compact(session, session.pending_index):
                    self.compacted.append(key)
                    log.info("idle compaction: %s (idle since %s)", key, idle_since)
        except Exception:
            log.exception("idle compaction of %s failed", key)
