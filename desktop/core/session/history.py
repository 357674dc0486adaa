"""The request form of a session's messages, made once per message.

:meth:`Session.get_history <desktop.core.session.manager.Session.get_history>` runs before
every turn (and the Consolidator's measurement), over every message not yet consolidated.
Copying them all each time costs as much as the session is long; :class:`HistoryCache` keeps
the copies and, on each call, checks at C speed that the messages they came from are still
in place, copying only messages that are new (or changed). Reusing the same copies also
lets :func:`~desktop.core.providers.tokens.message_tokens` remember their token counts.
"""

from __future__ import annotations

import threading
from typing import Any

Message = dict[str, Any]


class HistoryCache:
    """Copies of ``messages[start:]`` restricted to ``keys``: ``out[i]`` is the copy of
    ``src[i]``, which was ``messages[start + i]`` at the last call. Thread-safe."""

    def __init__(self, keys: tuple[str, ...]) -> None:
        self.keys = keys
        self._src: list[Message] = []
        self._out: list[Message] = []
        self._start = 0
        self._lock = threading.Lock()

    def window(self, messages: list[Message], start: int) -> list[Message]:
        """Copies of ``messages[start:]`` (a new list of shared copies: treat them as
        read-only)."""
        with self._lock:
            src, out = self._src, self._out
            if not self._start <= start <= self._start + len(src):
                src.clear()
                out.clear()
                self._start = start
            elif start > self._start:
                del src[: start - self._start]
                del out[: start - self._start]
                self._start = start
            end = start + len(src)
            if end > len(messages) or messages[start:end] != src:
                limit = min(len(src), len(messages) - start)
                same = next(
                    (
                        i
                        for i in range(limit)
                        if messages[start + i] is not src[i] and messages[start + i] != src[i]
                    ),
                    limit,
                )
                del src[same:]
                del out[same:]
            keys = self.keys
            for message in messages[start + len(src) :]:
                src.append(message)
                out.append({k: message[k] for k in keys if k in message})
            return out[:]
