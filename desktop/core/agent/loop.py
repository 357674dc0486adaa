"""AgentLoop: turns inbound messages into agent runs, one at a time per session.

Sessions run concurrently up to a bound (default 3). Slash commands are handled here. The
user message is saved before the model is called; tool calls and results are checkpointed
as they happen; an interrupted turn is repaired before the next one starts.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from desktop.core.agent.commands import help_text, parse_command
from desktop.core.agent.context import ContextBuilder
from desktop.core.agent.hooks import AgentHook, CompositeHook, HookContext
from desktop.core.agent.observers import EventHook, ProgressHook
from desktop.core.agent.runner import AgentRunner, estimate_request
from desktop.core.bus.events import InboundMessage, OutboundMessage, RunError, TurnFinished
from desktop.core.bus.queue import MessageBus
from desktop.core.config.loader import config_origin
from desktop.core.config.schema import Config
from desktop.core.providers.base import LLMError, LLMProvider
from desktop.core.security.paths import default_protected_paths
from desktop.core.session.manager import Session, SessionManager
from desktop.core.tools.base import ToolContext
from desktop.core.tools.registry import ToolRegistry
from desktop.core.utils.atomic import set_aside

log = logging.getLogger(__name__)

SYSTEM_CHANNEL = "system"
QUIET_CHANNELS = {
    "cli",
    "desktop",
    "heartbeat",
    SYSTEM_CHANNEL,
}  # front ends that render typed events instead


class _CheckpointHook(AgentHook):
    """Saves the session whenever the runner says new messages must survive a crash."""

    def __init__(self, loop: "AgentLoop", session: Session) -> None:
        self.loop = loop
        self.session = session

    async def on_checkpoint(self, ctx: HookContext) -> None:
        self.session.checkpoint(ctx.added)
        await asyncio.to_thread(self.loop.sessions.save, self.session)


@dataclass
class SessionStats:
    """Per-session counters for ``/status``."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    last_context_tokens: int = 0


@dataclass
class TurnState:
    """What the loop knows about a running turn."""

    task: asyncio.Task[Any]
    message_sent: bool = False


class AgentLoop:
    """The agent: consumes the bus, runs turns, answers commands.

    Args:
        config: Loaded config.
        provider: Model backend.
        bus: Message bus.
        sessions: Session storage.
        tools: Tools for the main agent.
        context: Request builder.
        max_concurrent: Sessions that may run at once.
        on_new_session: Called with the old session on ``/new`` (memory archiving plugs in here).
        before_turn: Awaited before every turn (e.g. connect MCP servers lazily).
        consolidate: Archives old turns of an oversized session (the Consolidator); awaited
            before a turn and run again in the background after it, under the session lock.
    """

    def __init__(
        self,
        config: Config,
        provider: LLMProvider,
        bus: MessageBus,
        sessions: SessionManager,
        tools: ToolRegistry,
        context: ContextBuilder,
        *,
        max_concurrent: int = 3,
        on_new_session: Callable[[Session], Any] | None = None,
        before_turn: Callable[[], Awaitable[None]] | None = None,
        consolidate: Callable[[Session], Awaitable[Any]] | None = None,
    ) -> None:
        self.config = config
        self.provider = provider
        self.bus = bus
        self.sessions = sessions
        self.tools = tools
        self.context = context
        self.on_new_session = on_new_session
        self.before_turn = before_turn
        self.consolidate = consolidate
        self.subagents: Any = None  # a SubagentManager, set by the factory
        self.mcp: Any = None  # an MCPManager when MCP servers are configured
        self.cron: Any = None  # the CronService (started by desktop.core.runtime)
        self.heartbeat: Any = None  # the HeartbeatService the scheduler calls
        self.closers: list[Callable[[], Awaitable[None]]] = []
        # Answers commands the loop does not know (memory commands); None → help text.
        self.extra_commands: Callable[[str, str], Awaitable[str | None]] | None = None
        self._semaphore = asyncio.Semaphore(max_concurrent)
        self._locks: dict[str, asyncio.Lock] = {}
        self._turns: dict[str, TurnState] = {}
        self._stats: dict[str, SessionStats] = {}
        self._children: dict[str, set[asyncio.Task[Any]]] = {}
        self._consumer: asyncio.Task[None] | None = None
        self._dispatches: set[asyncio.Task[None]] = set()
        self._background: set[asyncio.Task[None]] = set()

    # -- bus ------------------------------------------------------------------------------
    def start(self) -> None:
        """Start consuming inbound messages."""
        if self._consumer is None:
            self._consumer = asyncio.create_task(self._consume(), name="agent-loop")

    async def stop(self) -> None:
        """Cancel every running turn, subagent and the consumer, and wait for them."""
        tasks = [t.task for t in self._turns.values()]
        tasks.extend(task for children in self._children.values() for task in children)
        tasks.extend(self._dispatches)
        tasks.extend(self._background)
        if self._consumer is not None:
            tasks.append(self._consumer)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._consumer = None
        for close in self.closers:
            try:
                await close()
            except Exception:
                log.exception("closing %r failed", close)

    async def _consume(self) -> None:
        while True:
            message = await self.bus.consume_inbound()
            task = asyncio.create_task(self._dispatch(message), name=f"turn:{message.session_key}")
            self._dispatches.add(task)
            task.add_done_callback(self._dispatches.discard)

    @staticmethod
    def reply_target(message: InboundMessage) -> tuple[str, str]:
        """Channel and chat a message's answer goes to (a subagent report: its origin chat)."""
        if message.channel == SYSTEM_CHANNEL:
            return (
                str(message.metadata.get("origin_channel") or message.channel),
                str(message.metadata.get("origin_chat_id") or message.chat_id),
            )
        return message.channel, message.chat_id

    async def _dispatch(self, message: InboundMessage) -> None:
        channel, chat_id = self.reply_target(message)
        hooks: list[AgentHook] = []
        if channel not in QUIET_CHANNELS:
            flags = self.config.channels
            hooks.append(
                ProgressHook(
                    self.bus,
                    channel,
                    chat_id,
                    progress=flags.send_progress,
                    tool_hints=flags.send_tool_hints,
                )
            )
        try:
            reply = await self.handle(message, hook=CompositeHook(hooks))
        except asyncio.CancelledError:
            return
        except LLMError as exc:
            reply = f"Sorry, the model call failed: {exc.message}"
        except Exception:  # a bug must not kill the consumer
            log.exception("turn failed for %s", message.session_key)
            reply = "Sorry, something went wrong; the details are in the log."
        if reply is not None:
            await self.bus.publish_outbound(OutboundMessage(channel, chat_id, reply))

    def session_lock(self, key: str) -> asyncio.Lock:
        """The lock a session's turns run under (hold it to edit the session safely)."""
        return self._locks.setdefault(key, asyncio.Lock())

    def track_child(self, session_key: str, task: asyncio.Task[Any]) -> None:
        """Register a background task (a subagent) so ``/stop`` cancels it too."""
        children = self._children.setdefault(session_key, set())
        children.add(task)
        task.add_done_callback(children.discard)

    # -- entry points ---------------------------------------------------------------------
    async def process_direct(
        self,
        content: str,
        *,
        session_key: str = "cli:direct",
        channel: str = "cli",
        chat_id: str = "direct",
        media: list[str] | None = None,
        hook: AgentHook | None = None,
    ) -> str:
        """Run one message and return the answer (CLI and GUI use this)."""
        message = InboundMessage(
            channel,
            "user",
            chat_id,
            content,
            media=list(media or []),
            session_key_override=session_key,
        )
        return await self.handle(message, hook=hook) or ""

    async def handle(self, message: InboundMessage, *, hook: AgentHook | None = None) -> str | None:
        """Answer a command, or run a turn. Returns the reply to send (``None``: already sent)."""
        command = parse_command(message.content) if not message.media else None
        key = message.session_key
        if command is not None:
            if command.name == "/stop":
                return await self.stop_session(key)
            if command.name == "/help":
                return help_text()
            if command.name == "/status":
                return await self.status_text(key)
            if command.name == "/new":
                return await self.new_session(key)
            if self.extra_commands is not None:
                reply = await self.extra_commands(command.name, command.argument)
                if reply is not None:
                    return reply
            return help_text(command.name)
        async with self.session_lock(key), self._semaphore:
            task = asyncio.create_task(self._run_turn(message, hook))
            state = TurnState(task)
            self._turns[key] = state
            try:
                content = await task
            except asyncio.CancelledError:
                # Either /stop cancelled the turn, or our caller is cancelling us (shutdown).
                await self._after_stop(key)
                current = asyncio.current_task()
                if current is not None and current.cancelling():
                    raise
                content = "Stopped."
            finally:
                self._turns.pop(key, None)
        if state.message_sent:
            return None
        return content

    # -- commands -------------------------------------------------------------------------
    async def stop_session(self, key: str) -> str:
        """Cancel the session's running turn and its subagents."""
        state = self._turns.get(key)
        children = list(self._children.get(key, ()))
        for task in children:
            task.cancel()
        if state is None and not children:
            return "Nothing is running."
        if state is not None:
            state.task.cancel()
            await asyncio.gather(state.task, return_exceptions=True)
        await asyncio.gather(*children, return_exceptions=True)
        return "Stopped."

    async def _after_stop(self, key: str) -> None:
        session = await asyncio.to_thread(self.sessions.get_or_create, key)
        if session.repair():
            await asyncio.to_thread(self.sessions.save, session)

    async def new_session(self, key: str) -> str:
        """Archive (via ``on_new_session``) and start the session afresh."""
        await self.stop_session(key)
        session = await asyncio.to_thread(self.sessions.get_or_create, key)
        if self.on_new_session is not None and session.messages:
            result = self.on_new_session(session)
            if asyncio.iscoroutine(result):
                await result
        archived = len(session.messages)
        path = self.sessions.path_for(key)
        if archived and path.exists():
            # The raw conversation is kept beside the session file, not thrown away.
            await asyncio.to_thread(self.sessions.save, session)
            await asyncio.to_thread(set_aside, path, "archived")
        session.messages.clear()
        session.last_consolidated = 0
        session.metadata.pop("title", None)
        await asyncio.to_thread(self.sessions.save, session)
        self._stats.pop(key, None)
        return f"New conversation started ({archived} earlier message(s) set aside)."

    async def status_text(self, key: str) -> str:
        """Model, tokens used, context fill, messages, running tasks."""
        defaults = self.config.agents.defaults
        stats = self._stats.get(key, SessionStats())
        session = await asyncio.to_thread(self.sessions.get_or_create, key)
        window = defaults.context_window_tokens
        fill = 100.0 * stats.last_context_tokens / window if window else 0.0
        running = len(self._turns) + sum(len(c) for c in self._children.values())
        return "\n".join(
            [
                f"Model: {self.provider.model}",
                f"Tokens this session: {stats.prompt_tokens} in, {stats.completion_tokens} out",
                f"Context: {stats.last_context_tokens} of {window} tokens ({fill:.0f}%)",
                f"Messages: {len(session.messages)}",
                f"Running tasks: {running}",
            ]
        )

    # -- turns ----------------------------------------------------------------------------
    def mark_message_sent(self, key: str) -> None:
        """The ``message`` tool answered in this turn: don't send the final reply again."""
        state = self._turns.get(key)
        if state is not None:
            state.message_sent = True

    def _consolidate_later(self, key: str) -> None:
        """Consolidate the session in the background once the turn has released its lock."""
        if self.consolidate is None:
            return
        consolidate = self.consolidate

        async def run() -> None:
            async with self.session_lock(key):
                try:
                    await consolidate(await asyncio.to_thread(self.sessions.get_or_create, key))
                except Exception:
                    log.exception("background consolidation of %s failed", key)

        task = asyncio.create_task(run(), name=f"consolidate:{key}")
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _run_turn(self, message: InboundMessage, hook: AgentHook | None) -> str:
        key = message.session_key
        if self.before_turn is not None:
            await self.before_turn()
        channel, chat_id = self.reply_target(message)
        extra: dict[str, Any] = {"media": list(message.media)} if message.media else {}
        if message.channel == SYSTEM_CHANNEL:
            extra["subagent"] = message.metadata.get("subagent", True)
        session = await asyncio.to_thread(self.sessions.get_or_create, key)
        if session.repair():
            await asyncio.to_thread(self.sessions.save, session)
        session.begin_turn(message.content, **extra)
        await asyncio.to_thread(self.sessions.save, session)  # saved before any model call
        if self.consolidate is not None:
            await self.consolidate(session)
        history = session.get_history()[
            :-1
        ]  # the new message goes in below, with its runtime block
        defaults = self.config.agents.defaults
        messages = await asyncio.to_thread(
            self.context.build_messages,
            history,
            message.content,
            channel=channel,
            chat_id=chat_id,
            media=message.media,
        )
        hooks = CompositeHook(
            [
                _CheckpointHook(self, session),
                EventHook(self.bus, context_window=defaults.context_window_tokens),
            ]
        )
        if hook is not None:
            hooks.add(hook)
        runner = AgentRunner(
            self.provider,
            self.tools,
            hook=hooks,
            max_iterations=defaults.max_tool_iterations,
            context_window=defaults.context_window_tokens,
            max_tokens=defaults.max_tokens,
        )
        ctx = ToolContext(
            workspace=self.context.workspace,
            session_key=key,
            channel=channel,
            chat_id=chat_id,
            restrict_to_workspace=self.config.tools.restrict_to_workspace,
            protected_paths=default_protected_paths(
                self.context.workspace, config_origin(self.config).path
            ),
        )
        try:
            result = await runner.run(messages, ctx, session_key=key)
        except LLMError as exc:
            # The turn stays pending (user message saved, marker set): a retry can re-run it,
            # and the next new message repairs the session first.
            await self.bus.emit(RunError(key, exc.message, exc.kind))
            raise
        session.finish_turn(result.added)
        await asyncio.to_thread(self.sessions.save, session)
        self._consolidate_later(key)
        stats = self._stats.setdefault(key, SessionStats())
        stats.prompt_tokens += result.usage.prompt_tokens
        stats.completion_tokens += result.usage.completion_tokens
        stats.last_context_tokens = await asyncio.to_thread(
            estimate_request, messages, self.tools.definitions()
        )
        await self.bus.emit(TurnFinished(key, result.content))
        return result.content
