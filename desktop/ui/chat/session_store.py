"""Session operations for the chat tab, off the GUI thread.

Uses the agent's :class:`~desktop.core.session.manager.SessionManager` once the agent exists
(one cache, no stale copies), and a private read-mostly manager before that. Every file
operation runs in a worker thread; edits of a session that may be running hold the agent's
session lock.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.core.session.manager import SessionManager, SessionSummary
from desktop.ui.chat.items import ChatItem, items_from_messages


@dataclass
class LoadedSession:
    """A session turned into rows.

    Attributes:
        key: Session key.
        items: The rows.
        title: Its title.
        pending: A turn was started and never finished (a Retry can re-run it).
    """

    key: str
    items: list[ChatItem]
    title: str
    pending: bool


class SessionStore:
    """Async facade over the session manager.

    Args:
        workspace: The workspace folder (for the manager used before the agent exists).
    """

    def __init__(self, workspace: Path) -> None:
        self.workspace = Path(workspace)
        self.agent: Any = None
        self._own: SessionManager | None = None

    @property
    def manager(self) -> SessionManager:
        """The agent's manager, or a private one until the agent exists."""
        if self.agent is not None:
            return self.agent.sessions
        if self._own is None:
            self._own = SessionManager(self.workspace)
        return self._own

    def attach(self, agent: Any) -> None:
        """Use ``agent``'s session manager from now on."""
        self.agent = agent
        self._own = None

    @contextlib.asynccontextmanager
    async def _locked(self, key: str) -> AsyncIterator[None]:
        lock = getattr(self.agent, "session_lock", None) if self.agent is not None else None
        if lock is None:
            yield
            return
        async with lock(key):
            yield

    async def summaries(self) -> list[SessionSummary]:
        """Every session, most recent activity first."""
        return await asyncio.to_thread(self.manager.summaries)

    async def load(self, key: str, *, live: bool = False) -> LoadedSession:
        """Read ``key`` and build its rows (``live``: a turn is running; keep open cards)."""
        manager = self.manager

        def work() -> LoadedSession:
            session = manager.get_or_create(key)
            messages = list(session.messages)
            return LoadedSession(
                key,
                items_from_messages(messages, live=live),
                session.title,
                session.has_pending_turn and not live,
            )

        return await asyncio.to_thread(work)

    async def rename(self, key: str, title: str) -> None:
        """Set the title (empty: back to the first message)."""
        async with self._locked(key):
            await asyncio.to_thread(self.manager.rename, key, title)

    async def set_aside(self, key: str) -> Path | None:
        """Delete with undo: stop the chat's turn, move its file aside; returns where."""
        if self.agent is not None:
            await self.agent.stop_session(key)
        async with self._locked(key):
            return await asyncio.to_thread(self.manager.set_aside, key)

    async def restore(self, key: str, aside: Path) -> None:
        """Undo :meth:`set_aside`."""
        async with self._locked(key):
            await asyncio.to_thread(self.manager.restore, key, aside)

    async def search(self, query: str) -> list[str]:
        """Keys of sessions whose title or messages contain ``query``."""
        return await asyncio.to_thread(self.manager.search, query)

    async def take_pending(self, key: str) -> dict[str, Any] | None:
        """Remove the unfinished turn (for a Retry) and return its user message."""
        manager = self.manager
        async with self._locked(key):

            def work() -> dict[str, Any] | None:
                session = manager.get_or_create(key)
                message = session.take_pending_turn()
                if message is not None:
                    manager.save(session)
                return message

            return await asyncio.to_thread(work)
