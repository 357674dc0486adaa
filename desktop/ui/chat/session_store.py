"""The chat tab's view of sessions: :class:`~desktop.core.session.access.SessionAccess` plus rows.

Before the agent exists the tab reads sessions through a private manager; once it runs,
through the agent's (one cache, its locks). Turning messages into rows happens in the same
worker thread as the read.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.core.providers.chat_model import ModelChoice
from desktop.core.session.access import SessionAccess
from desktop.core.session.edits import Rewind
from desktop.core.session.export import ExportFormat
from desktop.core.session.manager import SessionManager, SessionSummary
from desktop.core.session.search import SearchHit
from desktop.core.session.versions import VersionInfo
from desktop.ui.chat.items import ChatItem, items_from_messages

if TYPE_CHECKING:
    from desktop.core.providers.base import LLMProvider
    from desktop.core.runtime import Runtime


@dataclass
class LoadedSession:
    """A session turned into rows.

    Attributes:
        key: Session key.
        items: The rows (without the rows of a turn running now).
        title: Its title.
        pending: A turn was started and never finished (a Retry can re-run it).
        model: The chat's own model (``None``: it uses the default).
    """

    key: str
    items: list[ChatItem]
    title: str
    pending: bool
    model: ModelChoice | None = None


class SessionStore:
    """Session access for the tab.

    Args:
        workspace: The workspace folder (for the manager used before the agent exists).
        config_dir: The folder of the config file in use (its ``sessions/`` holds the
            workspace's sessions); ``None``: ``~/.nanobot``.
    """

    def __init__(self, workspace: Path, config_dir: Path | None = None) -> None:
        self.access = SessionAccess(SessionManager(workspace, config_dir=config_dir))

    def attach(self, runtime: Runtime) -> None:
        """Use the runtime's sessions and locks from now on."""
        self.access = SessionAccess(
            runtime.sessions,
            lock_for=runtime.agent.session_lock,
            stop=runtime.agent.stop_session,
        )

    async def summaries(self) -> list[SessionSummary]:
        """Every session, most recent activity first."""
        return await self.access.summaries()

    async def load(self, key: str, *, live: bool = False) -> LoadedSession:
        """Read ``key`` into rows.

        ``live``: a turn runs in ``key`` now; its rows (its opening row included) come from
        the live turn, so the saved messages are cut before that turn's user message. Every
        turn read here is then over: a call of it without a result was interrupted, not
        running (nothing would ever stop its spinner).
        """
        snapshot = await self.access.load(key)

        def rows() -> LoadedSession:
            messages = snapshot.messages
            running = live and snapshot.pending_index is not None
            if running:
                assert snapshot.pending_index is not None
                messages = messages[: snapshot.pending_index]
            items = items_from_messages(messages)
            forks = dict(snapshot.versions)
            for item in items:  # the switcher goes on the first row of each fork point
                info = forks.pop(item.message_index, None)
                if info is not None:
                    item.fork = (info.at, info.current, info.total)
            return LoadedSession(
                key,
                items,
                snapshot.title,
                snapshot.pending_index is not None and not live,
                snapshot.model,
            )

        return await asyncio.to_thread(rows)

    async def rename(self, key: str, title: str) -> None:
        """Set the title (empty: back to the first message)."""
        await self.access.rename(key, title)

    async def set_chat_model(self, key: str, choice: ModelChoice | None) -> None:
        """Give the chat its own model (``None``: it follows the default)."""
        await self.access.set_chat_model(key, choice)

    async def set_aside(self, key: str) -> Path | None:
        """Delete with undo; returns where the file went."""
        return await self.access.set_aside(key)

    async def restore(self, key: str, aside: Path) -> None:
        """Undo :meth:`set_aside`."""
        await self.access.restore(key, aside)

    async def search(self, query: str) -> list[str]:
        """Keys of sessions whose title or messages contain ``query``."""
        return await self.access.search(query)

    async def take_pending(self, key: str) -> dict[str, Any] | None:
        """Remove the unfinished turn (for a Retry) and return its user message."""
        return await self.access.take_pending(key)

    async def search_hits(self, query: str) -> list[SearchHit]:
        """Chats matching ``query``, with a snippet and the matching message."""
        return await self.access.search_hits(query)

    async def regenerate(self, key: str) -> Rewind:
        """Keep the chat as a version and take its last answer out."""
        return await self.access.regenerate(key)

    async def edit(self, key: str, ordinal: int, text: str) -> Rewind:
        """Keep the chat as a version and cut it before the person's ``ordinal``-th message."""
        return await self.access.edit(key, ordinal, text)

    async def show_version(self, key: str, at: int, target: int) -> VersionInfo:
        """Show version ``target`` (0-based) of the chat from fork point ``at``."""
        return await self.access.show_version(key, at, target)

    async def export(self, key: str, fmt: ExportFormat) -> str:
        """The chat as Markdown or JSON."""
        return await self.access.export(key, fmt)

    async def auto_title(self, key: str, provider: LLMProvider) -> str | None:
        """Title the chat from its first exchange when it has no title."""
        return await self.access.auto_title(key, provider)
