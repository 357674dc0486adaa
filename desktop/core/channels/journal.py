"""Messages handed to the agent but not yet safe in a session, kept across a crash.

Some networks cannot leave a message unconfirmed while the channel reads on: Telegram's
``getUpdates`` confirms every update below the offset it is asked for, and a Matrix sync token
moves past everything it covered. For those the channel writes each message it publishes to
this journal (in its state file) *before* its cursor moves on, and removes it when the agent's
:class:`~desktop.core.bus.events.Ack` says the message is in its session (or dropped on
purpose). After a restart the channel publishes what is still in the journal again, with the
same id, so it is answered once: not twice (it was never saved) and not never.

There is one journal per state store (:func:`journal_for`; the manager keeps one store per
channel), so a channel object restarted in the same process (new settings) shares it: it does
not hand over again what the previous object already did (:attr:`InboundJournal.in_flight`).
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from datetime import datetime
from typing import Any

from desktop.core.bus.events import InboundMessage
from desktop.core.channels.state import ChannelStateStore

log = logging.getLogger(__name__)

KEY = "pending"  # the state value holding the journal
LIMIT = 500  # entries kept at most (the oldest are dropped, with a warning)


def to_json(message: InboundMessage) -> dict[str, Any]:
    """What is kept of ``message`` (everything but its ack)."""
    return {
        "id": message.id,
        "channel": message.channel,
        "sender_id": message.sender_id,
        "chat_id": message.chat_id,
        "content": message.content,
        "timestamp": message.timestamp.isoformat(),
        "media": list(message.media),
        "metadata": dict(message.metadata),
        "session_key_override": message.session_key_override,
    }


def from_json(data: Any) -> InboundMessage | None:
    """The message kept as ``data`` (``None`` when the entry is unusable)."""
    if not isinstance(data, dict):
        return None
    try:
        fields = {k: data[k] for k in ("id", "channel", "sender_id", "chat_id", "content")}
        if not all(isinstance(v, str) for v in fields.values()):
            return None
        media = [str(m) for m in data.get("media") or []]
        found = data.get("metadata")
        metadata: dict[str, Any] = found if isinstance(found, dict) else {}
        override = data.get("session_key_override")
        stamp = datetime.fromisoformat(str(data.get("timestamp")))
    except (KeyError, TypeError, ValueError):
        return None
    return InboundMessage(
        fields["channel"],
        fields["sender_id"],
        fields["chat_id"],
        fields["content"],
        timestamp=stamp,
        media=media,
        metadata=dict(metadata),
        session_key_override=override if isinstance(override, str) else None,
        id=fields["id"],
    )


class InboundJournal:
    """The unacknowledged messages of one channel, saved in its state file.

    Args:
        state: The channel's state store (the journal is its ``pending`` value).
    """

    def __init__(self, state: ChannelStateStore) -> None:
        self.state = state
        stored = state.get(KEY, [])
        self._entries: dict[str, dict[str, Any]] = {}
        for data in stored if isinstance(stored, list) else ():
            if from_json(data) is not None:
                self._entries[str(data["id"])] = data
            else:
                log.warning("%s: an unusable pending message was dropped", state.path.name)
        self._lock = asyncio.Lock()
        self.in_flight: set[str] = set()
        """Ids of messages this process handed to the agent that are not yet safe."""
        self.replayed = False
        """Whether the kept messages were handed over again in this process."""

    def pending(self) -> list[InboundMessage]:
        """The kept messages, oldest first."""
        found = (from_json(data) for data in self._entries.values())
        return [m for m in found if m is not None]

    def __contains__(self, message_id: object) -> bool:
        return message_id in self._entries

    def seen_of(self, message_id: str) -> list[str]:
        """The ids to mark handled when the kept message ``message_id`` is safe (an entry kept
        before they were stored: its own id)."""
        found = self._entries.get(message_id, {}).get("seen")
        if isinstance(found, list) and all(isinstance(item, str) for item in found):
            return list(found)
        return [message_id]

    async def add(self, message: InboundMessage, *, seen: list[str] | None = None) -> None:
        """Keep ``message`` (saved before this returns); ``seen``: the ids its channel marks
        handled once it is safe, kept with it so a copy delivered after a restart is known."""
        self.in_flight.add(message.id)
        async with self._lock:
            self._entries[message.id] = {**to_json(message), "seen": list(seen or [])}
            while len(self._entries) > LIMIT:
                dropped = next(iter(self._entries))
                log.warning("%s: too many pending messages; %s dropped", self.state.path, dropped)
                del self._entries[dropped]
            await self._save()

    async def remove(self, message_id: str, *, seen: list[str] | None = None) -> None:
        """Forget ``message_id`` (its message is safe); ``seen``: ids to mark handled too.

        The entry leaves memory only after the state (with ``seen``) is saved, so a copy of the
        message arriving meanwhile is always recognised: by the journal, then by ``seen``.
        """
        try:
            async with self._lock:
                if message_id not in self._entries and not seen:
                    return
                await self._save(seen, without=message_id)
                self._entries.pop(message_id, None)
        finally:
            self.in_flight.discard(message_id)

    async def _save(self, seen: list[str] | None = None, *, without: str | None = None) -> None:
        entries = [data for key, data in self._entries.items() if key != without]
        await asyncio.to_thread(self.state.update, seen=seen, **{KEY: entries})


_JOURNALS: weakref.WeakKeyDictionary[ChannelStateStore, InboundJournal] = (
    weakref.WeakKeyDictionary()
)


def journal_for(state: ChannelStateStore) -> InboundJournal:
    """The one journal of ``state`` (created on first use)."""
    journal = _JOURNALS.get(state)
    if journal is None:
        journal = _JOURNALS[state] = InboundJournal(state)
    return journal
