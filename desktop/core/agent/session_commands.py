"""The slash commands the agent loop answers itself, and the session operations behind them.

``/stop``, ``/help``, ``/status``, ``/new``, ``/compact``, ``/trigger`` and ``/image`` (nanobot 0.3.5's
names and answers); other commands go to the loop's handlers (memory's ``/dream``…). A mixin of
:class:`desktop.core.agent.loop.AgentLoop`, which provides the attributes declared below.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Sequence

from desktop.core.agent.commands import Command, help_text
from desktop.core.agent.image_command import image_command
from desktop.core.agent.turn_parts import CommandHandler, Consolidation, SessionStats
from desktop.core.agent.work import SessionWork
from desktop.core.bus.events import InboundMessage, SessionChanged
from desktop.core.bus.queue import MessageBus
from desktop.core.config.schema import Config
from desktop.core.engine.hooks import Guidance
from desktop.core.providers.base import LLMProvider
from desktop.core.providers.chat_model import chat_model
from desktop.core.session.manager import SessionManager
from desktop.core.session.temporary import is_temporary, refusal
from desktop.core.tools.registry import ToolRegistry
from desktop.core.triggers.store import TriggerStore, TriggerStoreError
from desktop.core.utils.atomic import set_aside

log = logging.getLogger(__name__)


class SessionCommands:
    """Slash commands and session operations (see the module docstring)."""

    config: Config
    provider: LLMProvider
    bus: MessageBus
    sessions: SessionManager
    work: SessionWork
    consolidation: Consolidation | None
    commands: Sequence[CommandHandler]
    tools: ToolRegistry
    _stats: dict[str, SessionStats]

    def session_lock(self, key: str) -> asyncio.Lock:
        """The lock a session's turns run under (the loop provides it)."""
        raise NotImplementedError

    async def run_command(
        self, key: str, command: Command, message: InboundMessage | None = None
    ) -> str:
        """Answer a slash command for session ``key`` (``message``: the one that asked, when
        it came over the bus)."""
        if command.name == "/trigger":
            return await self.create_trigger(key, command.argument, message)
        if command.name == "/stop":
            return await self.stop_session(key)
        if command.name == "/help":
            return help_text()
        if command.name == "/status":
            return await self.status_text(key)
        if command.name == "/new":
            return await self.new_session(key)
        if command.name == "/compact":
            return await self.compact_session(key)
        if command.name == "/image":
            return await self.image(key, command.argument, message)
        for handler in self.commands:
            reply = await handler(command.name, command.argument)
            if reply is not None:
                return reply
        return help_text(command.name)

    async def create_trigger(
        self, key: str, name: str, message: InboundMessage | None = None
    ) -> str:
        """``/trigger <name>``: a trigger bound to this chat (stored as nanobot 0.3.5 does)."""
        name = name.strip()
        if is_temporary(key):
            return refusal("make a trigger")
        if not name:
            return (
                "Usage: /trigger <name>\n\nCreate a named local trigger bound to this chat session."
            )
        if message is not None:
            channel, chat_id = message.channel, message.chat_id
            origin = {k: v for k, v in message.metadata.items() if not k.startswith("_")}
        else:
            channel, _, chat_id = key.partition(":")
            origin = {}
        store = TriggerStore(self.config.workspace_path)
        try:
            trigger = await asyncio.to_thread(
                store.create,
                name=name,
                channel=channel,
                chat_id=chat_id,
                session_key=key,
                origin_metadata=origin,
            )
        except (TriggerStoreError, ValueError, OSError) as exc:
            return f"Could not create the trigger: {exc}"
        return (
            f"Trigger created: {trigger.name}\nID: {trigger.id}\n\n"
            f'Command:\nnanobot-desktop trigger {trigger.id} "message"'
        )

    async def image(self, key: str, prompt: str, message: InboundMessage | None = None) -> str:
        """``/image <prompt>``: an image from the image provider (:mod:`.image_command`)."""
        channel, _, chat_id = key.partition(":")
        if message is not None:
            channel, chat_id = message.channel, message.chat_id
        return await image_command(
            key=key,
            prompt=prompt,
            channel=channel,
            chat_id=chat_id,
            config=self.config,
            tools=self.tools,
            sessions=self.sessions,
            lock=self.session_lock,
        )

    async def stop_session(self, key: str) -> str:
        """Cancel the session's running turn and its subagents."""
        return "Stopped." if await self.work.stop(key) else "Nothing is running."

    def steer(self, key: str, text: str, guidance_id: str = "") -> str | None:
        """Steer the running turn of ``key``: it takes ``text`` in at its next step, as a
        message of the person's, and goes on (a :class:`~desktop.core.bus.events.GuidanceTaken`
        event says when). Returns the guidance's id, or ``None`` when no turn runs there that
        could take it (send ``text`` as a new message instead)."""
        guidance = Guidance(guidance_id or uuid.uuid4().hex[:12], text)
        return guidance.id if self.work.steer(key, guidance) else None

    def withdraw_guidance(self, key: str, guidance_id: str) -> str | None:
        """Take back guidance the running turn has not taken in yet; its text, or ``None``
        when it was taken already (or the turn ended)."""
        guidance = self.work.withdraw(key, guidance_id)
        return guidance.text if guidance is not None else None

    async def archive_session(self, key: str) -> int:
        """Archive the session's messages not yet in memory into ``history.jsonl`` now, as
        ``/new`` does first (the window's "Archive into memory now"); how many were archived.

        Waits for a running turn of the session; a turn waiting for Retry stays out (its
        user message would otherwise be archived twice). The session keeps every message.
        """
        if self.consolidation is None or is_temporary(key):
            return 0
        async with self.session_lock(key):
            session = await asyncio.to_thread(self.sessions.get_or_create, key)
            before = session.last_consolidated
            end = session.pending_index
            await self.consolidation.archive_all(session, end)
            return max(0, session.last_consolidated - before)

    async def compact_session(self, key: str) -> str:
        """``/compact``: summarise the conversation so far into a checkpoint the next turns
        replay instead (nanobot 0.3.5's format); waits for a running turn to end first."""
        if self.consolidation is None:
            return "Unable to compact context."
        if is_temporary(key):
            return refusal("be compacted into memory")
        async with self.session_lock(key):
            session = await asyncio.to_thread(self.sessions.get_or_create, key)
            try:
                done = await self.consolidation.compact(session, session.pending_index)
            except Exception:
                log.exception("compacting %s failed", key)
                return "Unable to compact context."
        return "Context compacted." if done else "Nothing to compact yet."

    async def new_session(self, key: str) -> str:
        """Archive (memory) and start the session afresh; the old file is kept beside it."""
        await self.stop_session(key)
        async with self.session_lock(key):
            session = await asyncio.to_thread(self.sessions.get_or_create, key)
            if self.consolidation is not None and session.messages and not is_temporary(key):
                await self.consolidation.archive_all(session)
            archived = len(session.messages)
            path = self.sessions.path_for(key)
            if archived and await asyncio.to_thread(path.exists):
                await asyncio.to_thread(self.sessions.save, session)
                await asyncio.to_thread(set_aside, path, "archived")
            session.messages.clear()
            session.last_consolidated = 0
            session.metadata.pop("title", None)
            await asyncio.to_thread(self.sessions.save, session)
        self._stats.pop(key, None)
        await self.bus.emit(SessionChanged(key, "new"))
        return f"New conversation started ({archived} earlier message(s) set aside)."

    async def status_text(self, key: str) -> str:
        """Model, tokens used, context fill, messages, running tasks."""
        defaults = self.config.agents.defaults
        stats = self._stats.get(key, SessionStats())
        session = await asyncio.to_thread(self.sessions.get_or_create, key)
        window = defaults.context_window_tokens
        fill = 100.0 * stats.last_context_tokens / window if window else 0.0
        own = chat_model(session.metadata)
        model = f"{own.model} (this chat's own)" if own is not None else self.provider.model
        return "\n".join(
            [
                f"Model: {model}",
                f"Tokens this session: {stats.prompt_tokens} in, {stats.completion_tokens} out",
                f"Context: {stats.last_context_tokens} of {window} tokens ({fill:.0f}%)",
                f"Messages: {len(session.messages)}",
                f"Running tasks: {self.work.running_count()}",
            ]
        )
