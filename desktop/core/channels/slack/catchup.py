"""Where the bot stopped reading, per conversation, so messages sent while it was not
listening are fetched after a (re)connect.

Socket Mode only delivers events while a connection is open (Slack retries an unacknowledged
event a few times within minutes, then drops it). So the channel keeps, per conversation it has
seen recently, the ``ts`` of the newest message it saw (:class:`Positions`, in the channel
state under :data:`KEY`), and after connecting asks ``conversations.history`` (a channel or
DM) or ``conversations.replies`` (a thread the bot answers in) for what came after it.

Bounded: at most :data:`CONVERSATIONS` conversations (threads included, the least recently
seen dropped first), only those seen in the last :data:`RECENT` seconds are caught up, and at
most :data:`MESSAGES` messages are fetched per conversation (pages of :data:`PAGE`). A
conversation with no stored position (the first start) is not caught up: it starts from now.
While a conversation is being caught up (or its fetch failed) it also keeps where the catch-up
starts (:meth:`Positions.hold`), so live messages moving its position on meanwhile do not make
the next attempt skip what is still missing.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from desktop.core.channels.slack.inbound import join_chat

log = logging.getLogger(__name__)

KEY = "positions"
CONVERSATIONS = 50
RECENT = 7 * 24 * 3600.0
MESSAGES = 200
PAGE = 100


def ts_order(ts: str) -> tuple[int, int]:
    """A message ``ts`` (``"1700000000.000100"``) as a sortable pair (``(0, 0)`` if unusable)."""
    seconds, _, fraction = ts.partition(".")
    try:
        return int(seconds), int(fraction.ljust(6, "0")[:6])
    except ValueError:
        return 0, 0


class Positions:
    """The newest ``ts`` seen per conversation (``C…`` or ``C…:<thread ts>``), with when.

    Args:
        stored: The state value as saved (anything unusable is ignored).
    """

    def __init__(self, stored: Any) -> None:
        self._items: dict[str, tuple[str, float]] = {}
        self._held: dict[str, str] = {}
        if isinstance(stored, dict):
            for key, value in stored.items():
                if (
                    isinstance(key, str)
                    and isinstance(value, list)
                    and len(value) in (2, 3)
                    and isinstance(value[0], str)
                    and ts_order(value[0]) > (0, 0)
                    and isinstance(value[1], int | float)
                ):
                    self._items[key] = (value[0], float(value[1]))
                    if (
                        len(value) == 3
                        and isinstance(value[2], str)
                        and ts_order(value[2]) > (0, 0)
                    ):
                        self._held[key] = value[2]
        self._trim()

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def get(self, key: str) -> str | None:
        """The stored ``ts`` of ``key``."""
        found = self._items.get(key)
        return found[0] if found else None

    def note(self, key: str, ts: str, *, now: float | None = None) -> bool:
        """Remember that ``key`` was seen up to ``ts`` (never moves back); ``True`` if it moved."""
        if ts_order(ts) == (0, 0):
            return False
        old = self._items.get(key)
        newest = ts if old is None or ts_order(ts) > ts_order(old[0]) else old[0]
        self._items[key] = (newest, time.time() if now is None else now)
        self._trim()
        return old is None or newest != old[0]

    def hold(self, key: str, ts: str) -> None:
        """A catch-up of ``key`` from ``ts`` is under way (kept until :meth:`release`)."""
        if key in self._items:
            self._held.setdefault(key, ts)

    def release(self, key: str) -> None:
        """``key`` is caught up."""
        self._held.pop(key, None)

    def due(self, *, now: float | None = None) -> list[tuple[str, str]]:
        """The conversations to catch up (seen within :data:`RECENT`), most recent first, each
        from its held start when a catch-up of it did not finish."""
        now = time.time() if now is None else now
        recent = [(k, v) for k, v in self._items.items() if now - v[1] <= RECENT]
        recent.sort(key=lambda item: item[1][1], reverse=True)
        return [(key, self._held.get(key, ts)) for key, (ts, _) in recent[:CONVERSATIONS]]

    def to_json(self) -> dict[str, list[Any]]:
        """The state value to save (a fresh object)."""
        return {
            key: [ts, at, self._held[key]] if key in self._held else [ts, at]
            for key, (ts, at) in self._items.items()
        }

    def _trim(self) -> None:
        if len(self._items) <= CONVERSATIONS:
            return
        kept = sorted(self._items.items(), key=lambda item: item[1][1], reverse=True)
        self._items = dict(kept[:CONVERSATIONS])
        self._held = {k: v for k, v in self._held.items() if k in self._items}


async def fetch(
    call: Callable[..., Awaitable[dict[str, Any]]], channel: str, thread: str | None, oldest: str
) -> list[dict[str, Any]]:
    """The messages of a conversation (a thread) after ``oldest``, oldest first, at most
    :data:`MESSAGES` (the newest of a channel's, the first of a thread's).

    Args:
        call: Calls a Web API method (the channel's rate-limit-aware ``_call``).
        channel: The conversation id.
        thread: The thread's root ``ts``, or ``None`` for the conversation itself.
        oldest: The last ``ts`` already handled.
    """
    found: list[dict[str, Any]] = []
    cursor: str | None = None
    after = ts_order(oldest)
    while True:
        params: dict[str, Any] = {
            "channel": channel, "oldest": oldest, "inclusive": False,
            "limit": PAGE, "cursor": cursor,
        }  # fmt: skip
        if thread is None:
            data = await call("conversations_history", **params)
        else:
            data = await call("conversations_replies", ts=thread, **params)
        page = data.get("messages")
        for message in page if isinstance(page, list) else []:
            ts = message.get("ts") if isinstance(message, dict) else None
            if isinstance(ts, str) and ts_order(ts) > after:
                found.append(message)
        metadata = data.get("response_metadata")
        cursor = metadata.get("next_cursor") if isinstance(metadata, dict) else None
        if not cursor or len(found) >= MESSAGES:
            break
    if cursor:
        log.warning(
            "Slack: more than %d messages were missed in %s; only %d are handled",
            MESSAGES,
            join_chat(channel, thread),
            MESSAGES,
        )
    found.sort(key=lambda m: ts_order(str(m["ts"])))
    if thread is None:
        return found[-MESSAGES:]
    return found[:MESSAGES]
