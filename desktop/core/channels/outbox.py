"""Answers on their way to a chat network, delivered whole: in order, resumed, kept across a stop.

One answer (an :class:`~desktop.core.bus.events.OutboundMessage`) becomes pieces with its
channel's own splitter (:meth:`BaseChannel.pieces <desktop.core.channels.base.BaseChannel.pieces>`:
text under the network's limit, files). A :class:`Delivery` carries the answer and how many of
its pieces the network has acknowledged (:attr:`Delivery.done`); the channel sends from there
(:meth:`BaseChannel.deliver <desktop.core.channels.base.BaseChannel.deliver>`), so when the
manager tries again after a failure, the delivery resumes at the piece that failed: none is
skipped, none that was acknowledged is sent again.

The manager keeps every answer it takes from the bus for a running chat channel in that
channel's :class:`Outbox` (its state file, beside the inbound journal) from the moment it takes
it until its last piece is acknowledged, and saves the progress after every piece. An answer
the app stops (or crashes) in the middle of is delivered from where it stopped after the
restart, once the channel is connected; one older than :data:`MAX_AGE_S` is not sent so late:
the chat gets a short note instead (:data:`NOTE_PART` / :data:`NOTE_WHOLE`).

A piece in doubt: when a request fails after the network took it (the connection reset while
the answer was read), the piece is sent again: a piece twice is better than a piece missing.
Where the network offers an idempotency key, the resend is harmless; the keys come from
:attr:`Delivery.id` and :attr:`Delivery.keys`, saved with the progress, so they hold across a
restart too:

* Feishu: the ``uuid`` of each piece (Feishu keeps one message per uuid for an hour);
* Matrix: the transaction id of each piece (the homeserver stores one event per id);
* QQ: a passive reply's ``msg_id`` + ``msg_seq`` (QQ answers "duplicate" for a second copy);
* Email: one piece; its Message-ID comes from the delivery id (mail clients show one copy);
* Telegram, Slack, Discord (discord.py does not enforce its nonce), DingTalk, Mochat and
  WhatsApp's bridge have no key: the piece in doubt may arrive twice.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
import weakref
from dataclasses import dataclass, field
from typing import Any

from desktop.core.bus.events import OutboundMessage
from desktop.core.channels.state import ChannelStateStore
from desktop.core.utils.tasks import finish

log = logging.getLogger(__name__)

KEY = "outbox"  # the state value holding the kept deliveries (written as ``outbox=``)
LIMIT = 200  # deliveries kept at most (the oldest are dropped, with a warning)
MAX_AGE_S = 24 * 3600.0
"""An answer kept longer than this (a day) is not sent after a restart: a note goes instead."""
NOTE_PART = "(part of an earlier answer could not be delivered)"
NOTE_WHOLE = "(an earlier answer could not be delivered)"


def _new_id() -> str:
    return uuid.uuid4().hex


@dataclass(eq=False)
class Delivery:
    """One answer on its way to its chat, as a unit of pieces.

    Attributes:
        message: The answer.
        id: Identifies the delivery (stable across a restart; the base of idempotency keys).
        done: How many of its pieces the network acknowledged.
        keys: What the channel must reuse when it sends a piece again (QQ's reply numbers);
            saved with the progress, so JSON values only.
        created: When the answer was taken from the bus (seconds since the epoch).
        resumed: Kept from before a restart (it waits for its channel to connect).
        outbox: Where it is kept until delivered (``None``: not kept, e.g. progress notes).
    """

    message: OutboundMessage
    id: str = field(default_factory=_new_id)
    done: int = 0
    keys: dict[str, Any] = field(default_factory=dict)
    created: float = field(default_factory=time.time)
    resumed: bool = False
    outbox: Outbox | None = field(default=None, repr=False)

    @property
    def interim(self) -> bool:
        """A progress note or tool hint (not worth keeping across a restart)."""
        meta = self.message.metadata
        return bool(meta.get("progress") or meta.get("tool_hint"))

    async def save(self) -> None:
        """Save the progress (when the delivery is kept)."""
        if self.outbox is not None:
            await self.outbox.save(self)

    async def forget(self) -> None:
        """Leave the outbox: delivered, or given up and reported."""
        outbox, self.outbox = self.outbox, None
        if outbox is not None:
            await outbox.remove(self)


def _plain(values: dict[str, Any]) -> dict[str, Any]:
    """The JSON-compatible part of ``values`` (metadata is free-form)."""
    kept: dict[str, Any] = {}
    for key, value in values.items():
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            continue
        kept[str(key)] = value
    return kept


def to_json(delivery: Delivery) -> dict[str, Any]:
    """What is kept of ``delivery``."""
    message = delivery.message
    return {
        "id": delivery.id,
        "channel": message.channel,
        "chat_id": message.chat_id,
        "content": message.content,
        "reply_to": message.reply_to,
        "media": list(message.media),
        "metadata": _plain(message.metadata),
        "created": delivery.created,
        "done": delivery.done,
        "keys": _plain(delivery.keys),
    }


def from_json(data: Any) -> Delivery | None:
    """The delivery kept as ``data`` (``None`` when the entry is unusable)."""
    if not isinstance(data, dict):
        return None
    texts = [data.get(k) for k in ("id", "channel", "chat_id", "content")]
    if not all(isinstance(v, str) for v in texts) or not data["id"]:
        return None
    reply_to, media = data.get("reply_to"), data.get("media") or []
    metadata, keys = data.get("metadata") or {}, data.get("keys") or {}
    done, created = data.get("done", 0), data.get("created", 0)
    if (
        not isinstance(media, list)
        or not isinstance(metadata, dict)
        or not isinstance(keys, dict)
        or not isinstance(done, int)
        or done < 0
        or not isinstance(created, int | float)
    ):
        return None
    message = OutboundMessage(
        data["channel"],
        data["chat_id"],
        data["content"],
        reply_to=reply_to if isinstance(reply_to, str) else None,
        media=[str(m) for m in media],
        metadata=dict(metadata),
    )
    return Delivery(message, id=data["id"], done=done, keys=dict(keys), created=float(created))


class Outbox:
    """The unfinished deliveries of one channel, saved in its state file.

    Args:
        state: The channel's state store (the outbox is its ``outbox`` value).
    """

    def __init__(self, state: ChannelStateStore) -> None:
        self.state = state
        stored = state.get(KEY, [])
        self._entries: dict[str, dict[str, Any]] = {}
        for data in stored if isinstance(stored, list) else ():
            if from_json(data) is not None:
                self._entries[str(data["id"])] = data
            else:
                log.warning("%s: an unusable kept answer was dropped", state.path.name)
        self._lock = asyncio.Lock()
        self.resumed = False
        """Whether what was kept from before a restart went back to the manager in this
        process (once: a channel restarted with new settings finds its deliveries queued)."""

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, delivery_id: object) -> bool:
        return delivery_id in self._entries

    def pending(self) -> list[Delivery]:
        """The kept deliveries, oldest first (marked as resumed and kept here)."""
        found: list[Delivery] = []
        for data in self._entries.values():
            delivery = from_json(data)
            if delivery is not None:
                delivery.resumed, delivery.outbox = True, self
                found.append(delivery)
        return found

    async def add(self, delivery: Delivery) -> None:
        """Keep ``delivery`` until it is delivered (saved before this returns)."""
        async with self._lock:
            delivery.outbox = self
            self._entries[delivery.id] = to_json(delivery)
            while len(self._entries) > LIMIT:
                dropped = next(iter(self._entries))
                log.warning(
                    "%s: too many undelivered answers; %s dropped", self.state.path, dropped
                )
                del self._entries[dropped]
            await self._save()

    async def save(self, delivery: Delivery) -> None:
        """Save how far ``delivery`` has come (nothing when it is not kept here)."""
        async with self._lock:
            if delivery.id not in self._entries:
                return
            self._entries[delivery.id] = to_json(delivery)
            await self._save()

    async def remove(self, delivery: Delivery) -> None:
        """Forget ``delivery`` (delivered, or given up and reported)."""
        async with self._lock:
            if self._entries.pop(delivery.id, None) is not None:
                await self._save()

    async def _save(self) -> None:
        entries = list(self._entries.values())
        try:
            # to its end even when the delivery is cancelled meanwhile (the app stops): the
            # file then holds the progress, and no later save overtakes this one
            await finish(asyncio.to_thread(self.state.update, outbox=entries))
        except OSError as exc:  # the answer still goes out; it is only not kept on disk
            log.warning("%s: undelivered answers could not be saved: %s", self.state.path, exc)


_OUTBOXES: weakref.WeakKeyDictionary[ChannelStateStore, Outbox] = weakref.WeakKeyDictionary()


def outbox_for(state: ChannelStateStore) -> Outbox:
    """The one outbox of ``state`` (created on first use)."""
    outbox = _OUTBOXES.get(state)
    if outbox is None:
        outbox = _OUTBOXES[state] = Outbox(state)
    return outbox
