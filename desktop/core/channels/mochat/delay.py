"""Panel messages that do not mention the agent, collected before they are handed over.

nanobot's ``replyDelayMode: "non-mention"``: in a panel, messages without a mention wait
(``replyDelayMs``, two minutes by default) and are then handed to the agent together, one
line per author; a message that mentions the agent hands everything collected over at once.

The collected messages are kept in the channel state, so a restart hands them over (after a
fresh delay) instead of losing them. One that was already handed over before a crash (it is
in the journal, or marked handled) is not collected again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import asdict
from typing import Any

from desktop.core.channels.journal import InboundJournal
from desktop.core.channels.mochat.protocol import Incoming
from desktop.core.channels.state import ChannelStateStore
from desktop.core.utils.tasks import TaskOwner

log = logging.getLogger(__name__)

KEY = "delayed"  # the state value holding the collected messages
KEYS_META = "mochat_keys"  # metadata of a combined message: the keys it holds
Flush = Callable[[str, list[Incoming]], Awaitable[None]]


def _incoming(data: Any) -> Incoming | None:
    if not isinstance(data, dict):
        return None
    try:
        found = Incoming(**{k: v for k, v in data.items() if k in Incoming.__dataclass_fields__})
    except TypeError:
        return None
    texts = (found.target, found.message_id, found.author, found.text)
    if found.kind != "panel" or not all(isinstance(v, str) for v in texts):
        return None
    return found


class DelayBuffer:
    """The collected panel messages, per panel.

    Args:
        state: The channel state (where they are kept).
        journal: The channel's journal (what was already handed over).
        delay: Seconds a panel's messages wait.
        flush: Hands a panel's messages to the agent.
        owner: Owns the timers.
    """

    def __init__(
        self,
        state: ChannelStateStore,
        journal: InboundJournal,
        delay: float,
        flush: Flush,
        owner: TaskOwner,
    ) -> None:
        self.state = state
        self.delay = delay
        self._flush = flush
        self._owner = owner
        self._entries: dict[str, list[Incoming]] = {}
        self._timers: dict[str, asyncio.Task[None]] = {}
        self._lock = asyncio.Lock()
        handed = {
            key
            for message in journal.pending()
            for key in message.metadata.get(KEYS_META, [message.id])
        }
        stored = state.get(KEY, {})
        for target, items in (stored if isinstance(stored, dict) else {}).items():
            kept = [
                m
                for m in (_incoming(i) for i in (items if isinstance(items, list) else ()))
                if m is not None and m.key not in handed and not state.seen(m.key)
            ]
            if kept:
                self._entries[str(target)] = kept

    def __contains__(self, key: object) -> bool:
        return any(m.key == key for items in self._entries.values() for m in items)

    def start(self) -> None:
        """Start the timers of what was kept from before a restart."""
        for target in self._entries:
            self._arm(target)

    def _arm(self, target: str) -> None:
        timer = self._timers.pop(target, None)
        if timer is not None:
            timer.cancel()
        task = self._owner.try_spawn(self._later(target), name=f"delay:{target}")
        if task is not None:  # not while the channel stops (kept for the next start)
            self._timers[target] = task

    async def _later(self, target: str) -> None:
        await asyncio.sleep(self.delay)
        self._timers.pop(target, None)
        await self.hand_over(target)

    async def add(self, message: Incoming) -> None:
        """Collect ``message`` (kept before this returns) and restart its panel's timer."""
        async with self._lock:
            self._entries.setdefault(message.target, []).append(message)
            await self._save()
        self._arm(message.target)

    async def hand_over(self, target: str, last: Incoming | None = None) -> None:
        """Hand the panel's collected messages (and ``last``) to the agent now."""
        timer = self._timers.pop(target, None)
        if timer is not None and timer is not asyncio.current_task():
            timer.cancel()
        async with self._lock:
            messages = [*self._entries.get(target, []), *([last] if last else [])]
            if messages:
                await self._flush(target, messages)
            if self._entries.pop(target, None) is not None:
                await self._save()

    async def _save(self) -> None:
        data = {t: [asdict(m) for m in items] for t, items in self._entries.items()}
        await asyncio.to_thread(self.state.update, delayed=data)  # KEY
