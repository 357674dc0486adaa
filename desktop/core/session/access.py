"""Session operations for front ends, off the event loop and under the agent's session locks.

Front ends (the Chat tab, later the CLI's chat list) must not edit a session while a turn of
it runs, and must not block the event loop with file I/O. :class:`SessionAccess` does both:
every file operation runs in a worker thread, and edits hold the agent's session lock.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.core.providers.chat_model import ModelChoice, chat_model, set_chat_model
from desktop.core.session import edits
from desktop.core.session.export import ExportFormat, export_session
from desktop.core.session.manager import PENDING, SessionManager, SessionSummary
from desktop.core.session.project import ChatProject, ChatScope, chat_scope, set_project
from desktop.core.session.search import SearchHit, search_sessions
from desktop.core.session.versions import VersionInfo, fork_points

if TYPE_CHECKING:
    from desktop.core.providers.base import LLMProvider

LockFor = Callable[[str], asyncio.Lock]
StopSession = Callable[[str], Awaitable[str]]


@dataclass(frozen=True)
class SessionSnapshot:
    """A session as read from disk (or the cache).

    Attributes:
        key: Session key.
        messages: Its messages (a copy).
        title: Its title.
        pending_index: Index of the user message of a turn that started and never finished
            (running now, or failed and waiting for a Retry), else ``None``.
        versions: The fork points of the conversation shown, by message index (see
            :mod:`desktop.core.session.versions`).
        model: The chat's own model (``None``: it uses the default).
    """

    key: str
    messages: list[dict[str, Any]]
    title: str
    pending_index: int | None
    versions: dict[int, VersionInfo] = field(default_factory=dict)
    model: ModelChoice | None = None


class SessionAccess:
    """Async, lock-respecting access to sessions.

    Args:
        sessions: The session storage (the agent's, once it runs: one cache, no stale copies).
        lock_for: The agent's per-session lock; ``None`` before the agent exists.
        stop: Stops a session's running turn (before deleting it); ``None`` without an agent.
    """

    def __init__(
        self,
        sessions: SessionManager,
        *,
        lock_for: LockFor | None = None,
        stop: StopSession | None = None,
    ) -> None:
        self.sessions = sessions
        self._lock_for = lock_for
        self._stop = stop

    @contextlib.asynccontextmanager
    async def _locked(self, key: str) -> AsyncIterator[None]:
        if self._lock_for is None:
            yield
            return
        async with self._lock_for(key):
            yield

    async def summaries(self) -> list[SessionSummary]:
        """Every session, most recent activity first."""
        return await asyncio.to_thread(self.sessions.summaries)

    async def load(self, key: str) -> SessionSnapshot:
        """Read ``key`` (without waiting for a running turn)."""

        def work() -> SessionSnapshot:
            session = self.sessions.get_or_create(key)
            state = session.metadata.get(PENDING)
            index = state.get("index") if isinstance(state, dict) else None
            pending = (
                index if isinstance(index, int) and 0 <= index < len(session.messages) else None
            )
            return SessionSnapshot(
                key,
                list(session.messages),
                session.title,
                pending,
                fork_points(session),
                chat_model(session.metadata),
            )

        return await asyncio.to_thread(work)

    async def rename(self, key: str, title: str) -> None:
        """Set the title (empty: back to the first message)."""
        async with self._locked(key):
            await asyncio.to_thread(self.sessions.rename, key, title)

    async def set_chat_model(self, key: str, choice: ModelChoice | None) -> None:
        """Give the chat its own model (``None``: back to the default)."""
        async with self._locked(key):
            await asyncio.to_thread(set_chat_model, self.sessions, key, choice)

    async def set_aside(self, key: str) -> Path | None:
        """Delete with undo: stop the chat's turn, move its file aside; returns where."""
        if self._stop is not None:
            await self._stop(key)
        async with self._locked(key):
            return await asyncio.to_thread(self.sessions.set_aside, key)

    async def restore(self, key: str, aside: Path) -> None:
        """Undo :meth:`set_aside`."""
        async with self._locked(key):
            await asyncio.to_thread(self.sessions.restore, key, aside)

    async def preset(self, key: str) -> str | None:
        """The model preset chat ``key`` is on (``None``: the default model)."""
        from desktop.core.providers.presets import session_preset

        def read() -> str | None:
            return session_preset(self.sessions.get_or_create(key).metadata)

        return await asyncio.to_thread(read)

    async def set_preset(self, key: str, name: str | None) -> None:
        """Put chat ``key`` on model preset ``name`` (``None``: the default model)."""
        from desktop.core.providers.chat_presets import set_session_preset

        async with self._locked(key):
            await asyncio.to_thread(set_session_preset, self.sessions, key, name)

    async def project(self, key: str, workspace: Path, settings_restrict: bool) -> ChatScope:
        """Where chat ``key`` works: its project folder and access mode within Settings."""

        def read() -> ChatScope:
            return chat_scope(
                self.sessions.get_or_create(key).metadata, workspace, settings_restrict
            )

        return await asyncio.to_thread(read)

    async def set_project(self, key: str, project: ChatProject, workspace: Path) -> ChatProject:
        """Give chat ``key`` a project folder and access mode (saved with the session).

        Raises:
            desktop.core.session.project.ProjectError: The folder is not usable.
        """
        async with self._locked(key):
            return await asyncio.to_thread(set_project, self.sessions, key, project, workspace)

    async def search(self, query: str) -> list[str]:
        """Keys of sessions whose title or messages contain ``query``."""
        return await asyncio.to_thread(self.sessions.search, query)

    async def take_pending(self, key: str) -> dict[str, Any] | None:
        """Remove the unfinished turn (for a Retry) and return its user message."""
        async with self._locked(key):

            def work() -> dict[str, Any] | None:
                session = self.sessions.get_or_create(key)
                message = session.take_pending_turn()
                if message is not None:
                    self.sessions.save(session)
                return message

            return await asyncio.to_thread(work)

    async def search_hits(self, query: str) -> list[SearchHit]:
        """Chats matching ``query`` with a snippet and the matching message."""
        return await asyncio.to_thread(search_sessions, self.sessions, query)

    async def regenerate(self, key: str) -> edits.Rewind:
        """Keep the chat as a version and take its last answer out; returns the person's
        last message (to be sent again as a new turn).

        Raises:
            desktop.core.session.edits.RewindError: Nothing to answer again.
        """
        async with self._locked(key):
            return await asyncio.to_thread(edits.regenerate, self.sessions, key)

    async def edit(self, key: str, ordinal: int, text: str) -> edits.Rewind:
        """Keep the chat as a version and cut it before the person's ``ordinal``-th message
        (whose text was ``text``); the edited text is then sent as a new turn.

        Raises:
            desktop.core.session.edits.RewindError: The message is not there any more.
        """
        async with self._locked(key):
            return await asyncio.to_thread(edits.edit, self.sessions, key, ordinal, text)

    async def show_version(self, key: str, at: int, target: int) -> VersionInfo:
        """Show version ``target`` (0-based) of the conversation at fork point ``at``.

        Raises:
            desktop.core.session.versions.VersionError: No such version, a damaged one, or
                a turn is pending.
        """
        async with self._locked(key):
            return await asyncio.to_thread(edits.show_version, self.sessions, key, at, target)

    async def export(self, key: str, fmt: ExportFormat) -> str:
        """The chat as Markdown (``md``) or JSON (``json``)."""

        def work() -> str:
            return export_session(self.sessions.get_or_create(key), fmt)

        return await asyncio.to_thread(work)

    async def auto_title(self, key: str, provider: LLMProvider) -> str | None:
        """Give the chat a title from its first exchange (one cheap model call), unless it has
        one; returns the new title, or ``None`` when nothing was done.

        A title set while the model was asked (a rename) wins: it is not overwritten.
        """
        from desktop.core.session.titles import AUTO_TITLE, first_exchange, suggest_title

        def due() -> tuple[str, str] | None:
            return first_exchange(self.sessions.get_or_create(key))

        exchange = await asyncio.to_thread(due)
        if exchange is None:
            return None
        title = await suggest_title(provider, *exchange)
        if not title:
            return None
        async with self._locked(key):

            def store() -> bool:
                session = self.sessions.get_or_create(key)
                if session.metadata.get("title"):
                    return False
                session.metadata["title"] = title
                session.metadata[AUTO_TITLE] = True
                self.sessions.save(session)
                return True

            return title if await asyncio.to_thread(store) else None
