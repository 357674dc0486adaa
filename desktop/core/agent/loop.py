"""AgentLoop: turns inbound messages into agent turns, one at a time per session.

Sessions run concurrently up to a bound (default 3); messages for a busy session wait their
turn in arrival order. Slash commands are answered at once, never queued behind a turn.

Every turn, whatever started it (a message on any channel, a cron job, the heartbeat, a
subagent report), emits one complete lifecycle on the bus: :class:`TurnStarted`, its in-turn
events, then exactly one of :class:`TurnFinished`, :class:`TurnStopped` or :class:`TurnFailed`.
The user message is saved before the model is called, and only then is the message's
:class:`~desktop.core.bus.events.Ack` resolved (the channel confirms it to its server); tool calls and results are checkpointed
as they happen; a stopped turn keeps the text it had streamed; a failed turn stays pending so
it can be retried.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from desktop.core.agent.commands import parse_command
from desktop.core.agent.context import ContextBuilder
from desktop.core.agent.mentions import MENTIONS, mentions_chat, with_mentions
from desktop.core.agent.observers import EventHook, ProgressHook
from desktop.core.agent.session_commands import SessionCommands
from desktop.core.agent.turn_parts import (
    ApprovalCheck,
    CheckpointFailed,
    CheckpointHook,
    CommandHandler,
    Connector,
    Consolidation,
    PartialHook,
    SessionStats,
    TurnOutcome,
)
from desktop.core.agent.work import RunningTurn, SessionWork
from desktop.core.bus.events import (
    CLI_CHANNEL,
    DESKTOP_CHANNEL,
    EVENT_CHANNELS,
    SYSTEM_CHANNEL,
    InboundMessage,
    OutboundMessage,
    TurnFailed,
    TurnFinished,
    TurnSource,
    TurnStarted,
    TurnStopped,
)
from desktop.core.bus.queue import MessageBus
from desktop.core.config.loader import config_origin
from desktop.core.config.schema import Config
from desktop.core.engine.hooks import AgentHook, CompositeHook
from desktop.core.engine.runner import AgentRunner
from desktop.core.providers.base import LLMError, LLMProvider
from desktop.core.providers.chat_presets import ChatPresets
from desktop.core.providers.presets import default_target
from desktop.core.providers.switchable import TURN_SOURCES, usage_scope
from desktop.core.security.paths import default_protected_paths
from desktop.core.session.handles import SESSION_MESSAGE
from desktop.core.session.manager import SessionManager
from desktop.core.session.project import chat_scope
from desktop.core.session.temporary import is_temporary, memory_paths
from desktop.core.session.unified import UNIFIED_SESSION_KEY, remember_last_channel
from desktop.core.tools.base import ToolContext
from desktop.core.tools.groups import groups_in_history
from desktop.core.tools.registry import ToolRegistry
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.tasks import TaskOwner, finish

if TYPE_CHECKING:
    from desktop.core.providers.chat_models import ChatModels

log = logging.getLogger(__name__)

# The person's sentence for a failed turn: English for logs and channels, translated where the
# window shows it (the error banner).
EMPTY_REPLY = Phrase(
    QT_TR_NOOP("The model returned no answer, even when asked again without tools.")
)
BUG_REPLY = Phrase(QT_TR_NOOP("Something went wrong on our side; the details are in the log."))


class AgentLoop(SessionCommands):
    """The agent: consumes the bus, runs turns, answers commands.

    Every collaborator is passed in; nothing is attached afterwards (see
    :mod:`desktop.core.assembly`, which builds it).

    Args:
        config: Loaded config.
        provider: Model backend.
        bus: Message bus.
        sessions: Session storage.
        tools: Tools for the main agent.
        context: Request builder.
        work: What runs per session (shared with the subagent manager).
        owner: Owns the loop's tasks (the consumer, dispatches, background consolidation).
        consolidation: Archives old turns of oversized sessions; ``None``: never.
        connectors: Connected before every turn (MCP servers).
        approval: Asked before risky tool calls; ``None``: nothing is asked.
        commands: Handlers for slash commands the loop does not answer itself.
        max_concurrent: Sessions that may run at once.
        models: Runs a chat's turns on the chat's own model, when it has one; ``None``: every
            chat uses ``provider``'s model.
        presets: Runs the turns of a chat on a model preset on that preset (it wins over a
            model of the chat's own); ``None``: no chat uses a preset.
    """

    def __init__(
        self,
        *,
        config: Config,
        provider: LLMProvider,
        bus: MessageBus,
        sessions: SessionManager,
        tools: ToolRegistry,
        context: ContextBuilder,
        work: SessionWork,
        owner: TaskOwner,
        consolidation: Consolidation | None = None,
        connectors: Sequence[Connector] = (),
        approval: ApprovalCheck | None = None,
        commands: Sequence[CommandHandler] = (),
        max_concurrent: int = 3,
        models: ChatModels | None = None,
        presets: ChatPresets | None = None,
    ) -> None:
        self.config = config
        self.provider = provider
        self.bus = bus
        self.sessions = sessions
        self.tools = tools
        self.context = context
        self.work = work
        self.consolidation = consolidation
        self.connectors = tuple(connectors)
        self.approval = approval
        self.commands = tuple(commands)
        self.models = models
        self.presets = presets
        self._owner = owner
        self._semaphore = asyncio.Semaphore(max_concurrent)
        self._locks: dict[str, asyncio.Lock] = {}
        self._stats: dict[str, SessionStats] = {}
        self._consumer: asyncio.Task[None] | None = None

    # -- bus ------------------------------------------------------------------------------
    def start(self) -> None:
        """Start consuming inbound messages."""
        if self._consumer is None:
            self._consumer = self._owner.spawn(self._consume(), name="consumer")

    @property
    def running(self) -> bool:
        """Whether the loop consumes the bus."""
        return self._consumer is not None and not self._consumer.done()

    async def stop(self) -> None:
        """Cancel the consumer, every running turn and background task, and wait for them."""
        await self._owner.aclose()
        self._consumer = None

    @property
    def background(self) -> list[asyncio.Task[Any]]:
        """Dispatches and background consolidations still running (not the consumer)."""
        return [t for t in self._owner.tasks if t is not self._consumer]

    async def idle(self) -> None:
        """Wait until dispatches and background consolidation have finished (tests, shutdown)."""
        while True:
            current = asyncio.current_task()
            tasks = [t for t in self._owner.tasks if t is not self._consumer and t is not current]
            if not tasks:
                return
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _consume(self) -> None:
        while True:
            message = await self.bus.consume_inbound()
            self._owner.try_spawn(self.dispatch(message), name=f"dispatch:{message.session_key}")

    @staticmethod
    def reply_target(message: InboundMessage) -> tuple[str, str]:
        """Channel and chat a message's answer goes to (a subagent report: its origin chat)."""
        if message.channel == SYSTEM_CHANNEL:
            return (
                str(message.metadata.get("origin_channel") or message.channel),
                str(message.metadata.get("origin_chat_id") or message.chat_id),
            )
        return message.channel, message.chat_id

    async def dispatch(self, message: InboundMessage) -> None:
        """Answer one inbound message: a command at once, else a turn in its session."""
        if (
            self.config.agents.defaults.unified_session
            and message.session_key_override is None
            and message.channel != DESKTOP_CHANNEL  # the window keeps its chats apart
        ):
            message.session_key_override = UNIFIED_SESSION_KEY  # every channel: one session
        channel, chat_id = self.reply_target(message)
        command = parse_command(message.content) if not message.media else None
        if command is not None:
            reply = await self.run_command(message.session_key, command, message)
            await self.bus.publish_outbound(
                OutboundMessage(
                    channel,
                    chat_id,
                    reply,
                    metadata={"command": command.name, "request_id": message.id},
                )
            )
            await message.acknowledge("dropped")  # answered; nothing to keep
            return
        hook: AgentHook | None = None
        if channel not in EVENT_CHANNELS:
            flags = self.config.channels
            hook = ProgressHook(
                self.bus,
                channel,
                chat_id,
                progress=flags.send_progress,
                tool_hints=flags.send_tool_hints,
            )
        source: TurnSource = "subagent" if message.channel == SYSTEM_CHANNEL else "message"
        outcome = await self.run_turn(message, source=source, hook=hook)
        # Saved at the turn's first save; a turn that failed before it cannot keep it.
        await message.acknowledge("dropped")
        if channel in EVENT_CHANNELS or outcome.message_sent:
            return
        if outcome.status == "finished":
            text = outcome.content
        elif outcome.status == "failed" and outcome.error is not None:
            text = f"Sorry, I could not answer: {outcome.error.message}"
        else:
            return
        await self.bus.publish_outbound(
            OutboundMessage(channel, chat_id, text, metadata={"turn_id": outcome.turn_id})
        )

    def session_lock(self, key: str) -> asyncio.Lock:
        """The lock a session's turns run under (hold it to edit the session safely)."""
        return self._locks.setdefault(key, asyncio.Lock())

    def is_busy(self, key: str) -> bool:
        """Whether a turn runs in ``key`` (the one source of truth for "busy")."""
        return self.work.busy(key)

    # -- compatibility entry point --------------------------------------------------------
    async def process_direct(
        self,
        content: str,
        *,
        session_key: str = "cli:direct",
        channel: str = CLI_CHANNEL,
        chat_id: str = "direct",
        media: list[str] | None = None,
        hook: AgentHook | None = None,
        source: TurnSource = "message",
    ) -> str:
        """Run one message in this task and return the answer (the CLI and ``serve`` use this).

        Commands return their reply. A stopped turn returns ``"Stopped."``. ``source`` is what
        the turn's spend is counted as (``api`` for the API server).

        Raises:
            LLMError: The turn failed (it stays pending for a retry).
        """
        message = InboundMessage(
            channel,
            "user",
            chat_id,
            content,
            media=list(media or []),
            session_key_override=session_key,
        )
        command = parse_command(content) if not media else None
        if command is not None:
            return await self.run_command(session_key, command)
        outcome = await self.run_turn(message, source=source, hook=hook)
        if outcome.status == "failed":
            assert outcome.error is not None
            raise outcome.error
        if outcome.status == "stopped":
            return "Stopped."
        return "" if outcome.message_sent else outcome.content

    # -- turns ----------------------------------------------------------------------------
    async def run_turn(
        self,
        message: InboundMessage,
        *,
        source: TurnSource = "message",
        hook: AgentHook | None = None,
        shown: str | None = None,
        label: str = "",
        extra: dict[str, Any] | None = None,
    ) -> TurnOutcome:
        """Run a turn for ``message`` in its session, in the calling task.

        Waits while another turn runs in the session. Emits the turn's whole lifecycle, unless
        the message was withdrawn meanwhile (``withdrawn``, no events).

        Args:
            message: What to answer.
            source: What started the turn (for front ends).
            hook: Extra observer (the CLI prints through one).
            shown: What front ends show as the turn's request (default: the message text);
                also saved as the user message's ``display`` when it differs.
            label: A short label for front ends (a job's name).
            extra: More keys for the saved user message.

        Raises:
            asyncio.CancelledError: The calling task was cancelled (shutdown); the turn ended
                as stopped first. A ``/stop`` does not raise: it returns ``stopped``.
        """
        key = message.session_key
        turn_id = uuid.uuid4().hex[:12]
        async with self.session_lock(key), self._semaphore:
            if message.withdrawn:  # its sender left while it waited: nothing to answer
                log.info("message %s for %s was withdrawn before its turn", message.id, key)
                await message.acknowledge("dropped")
                return TurnOutcome(turn_id, "withdrawn")
            turn = RunningTurn(turn_id, key, task=asyncio.current_task())
            self.work.begin(turn)
            channel, chat_id = self.reply_target(message)
            display = message.content if shown is None else shown
            await self.bus.emit(
                TurnStarted(
                    turn_id,
                    key,
                    source,
                    channel,
                    chat_id,
                    display,
                    tuple(message.media),
                    message.id,
                    label,
                )
            )
            saved = dict(extra or {})
            if shown is not None and shown != message.content:
                saved["display"] = shown
            try:
                with (
                    usage_scope(source=TURN_SOURCES[source], session=key, channel=channel),
                    self.models.pin(key) if self.models else contextlib.nullcontext(),
                ):
                    content = await self._turn(message, turn, hook, saved, source)
            except asyncio.CancelledError:
                self.work.end(turn)
                task = asyncio.current_task()
                if turn.answer is not None:  # stopped after the answer was saved: finished
                    await self.bus.emit(TurnFinished(turn_id, key, turn.answer))
                    if turn.stop_requested and task is not None and task.uncancel() == 0:
                        return TurnOutcome(
                            turn_id, "finished", turn.answer, None, turn.message_sent
                        )
                    raise  # shutdown, or another cancel came while stopping: it goes on
                partial = turn.partial_text
                await self._keep_stopped(key, partial)
                await self.bus.emit(TurnStopped(turn_id, key, partial))
                if turn.stop_requested and task is not None and task.uncancel() == 0:
                    return TurnOutcome(turn_id, "stopped", partial, None, turn.message_sent)
                raise  # shutdown, or another cancel came while stopping: it goes on
            except LLMError as exc:
                self.work.end(turn)
                # Pending for a Retry here; other processes need not wait for it.
                await asyncio.to_thread(self.sessions.release_turn, key)
                await self.bus.emit(
                    TurnFailed(turn_id, key, exc.message, exc.kind, exc.details, pending=True)
                )
                return TurnOutcome(turn_id, "failed", "", exc, turn.message_sent)
            except Exception as exc:  # a bug must not kill the caller; say so, keep the turn
                self.work.end(turn)
                log.exception("turn %s in %s failed", turn_id, key)
                await asyncio.to_thread(self.sessions.release_turn, key)
                details = f"{type(exc).__name__}: {exc}"
                error = LLMError(BUG_REPLY, kind="unknown", details=details)
                await self.bus.emit(TurnFailed(turn_id, key, BUG_REPLY, "unknown", details))
                return TurnOutcome(turn_id, "failed", "", error, turn.message_sent)
            self.work.end(turn)
            await self.bus.emit(TurnFinished(turn_id, key, content))
            return TurnOutcome(turn_id, "finished", content, None, turn.message_sent)

    async def _keep_stopped(self, key: str, partial: str) -> None:
        """A stopped turn keeps what it streamed. This runs while the turn is cancelled: the save
        is finished even when another cancel comes meanwhile (that cancel goes on after it)."""

        async def keep() -> None:
            session = await asyncio.to_thread(self.sessions.get_or_create, key)
            session.stop_turn(partial)
            await asyncio.to_thread(self.sessions.save, session)

        try:
            await finish(keep())
        except asyncio.CancelledError:
            pass  # another cancel came during the save (done): the caller sees it (uncancel)
        except Exception:
            log.exception("saving the stopped turn of %s failed", key)

    def _consolidate_later(self, key: str) -> None:
        """Consolidate the session in the background once the turn has released its lock."""
        consolidation = self.consolidation
        if consolidation is None or is_temporary(key):  # a temporary chat keeps nothing
            return

        async def run() -> None:
            async with self.session_lock(key):
                try:
                    session = await asyncio.to_thread(self.sessions.get_or_create, key)
                    await consolidation.maybe_consolidate(session)
                except Exception:
                    log.exception("background consolidation of %s failed", key)

        self._owner.try_spawn(run(), name=f"consolidate:{key}")

    async def _turn(  # noqa: C901  # one turn, in order: context, runner, save; split = scattered
        self,
        message: InboundMessage,
        turn: RunningTurn,
        hook: AgentHook | None,
        saved: dict[str, Any],
        source: TurnSource = "message",
    ) -> str:
        key = message.session_key
        for connector in self.connectors:
            await connector.ensure_connected()
        channel, chat_id = self.reply_target(message)
        extra: dict[str, Any] = dict(saved)
        if message.media:
            extra["media"] = list(message.media)
        if message.channel == SYSTEM_CHANNEL:
            extra["subagent"] = message.metadata.get("subagent", True)
        if SESSION_MESSAGE in message.metadata:  # from another chat (send_session_message)
            extra[SESSION_MESSAGE] = message.metadata[SESSION_MESSAGE]
        session = await asyncio.to_thread(self.sessions.get_or_create, key)
        if await asyncio.to_thread(session.repair):
            await asyncio.to_thread(self.sessions.save, session)
        if key == UNIFIED_SESSION_KEY and channel not in EVENT_CHANNELS:
            remember_last_channel(session.metadata, channel, chat_id)
        session.begin_turn(message.content, **extra)
        await asyncio.to_thread(self.sessions.save, session)  # saved before any model call
        await message.acknowledge("saved")  # the channel may confirm it to its server now
        if self.consolidation is not None and not is_temporary(key):
            await self.consolidation.maybe_consolidate(session)
        # The new message goes in below, with its runtime block.
        history = (await asyncio.to_thread(session.get_history))[:-1]
        defaults = self.config.agents.defaults
        messages = await asyncio.to_thread(
            self.context.build_messages,
            history,
            message.content,
            channel=channel,
            chat_id=chat_id,
            media=message.media,
            metadata=with_mentions(session.metadata, message.metadata.get(MENTIONS)),
        )
        hooks = CompositeHook(
            [
                CheckpointHook(self.sessions, session),
                PartialHook(turn),
                EventHook(self.bus, context_window=defaults.context_window_tokens),
            ]
        )
        if hook is not None:
            hooks.add(hook)
        preset = self.presets.target_for(session.metadata) if self.presets else None
        model = preset or default_target(self.config)  # the window and length in force
        runner = AgentRunner(
            self.provider,
            self.tools,
            hook=hooks,
            max_iterations=defaults.max_tool_iterations,
            context_window=model.context_window_tokens or defaults.context_window_tokens,
            max_tokens=model.max_tokens or defaults.max_tokens,
            approval=self.approval,
            steering=turn.take_guidance,
        )
        scope = await asyncio.to_thread(  # the chat's project and access mode
            chat_scope,
            session.metadata,
            self.context.workspace,
            self.config.tools.restrict_to_workspace,
        )
        ctx = ToolContext(
            workspace=scope.root,
            agent_workspace=self.context.workspace if scope.project is not None else None,
            session_key=key,
            channel=channel,
            chat_id=chat_id,
            restrict_to_workspace=scope.restricted,
            protected_paths=default_protected_paths(
                self.context.workspace, config_origin(self.config).path
            )
            + (memory_paths(self.context.workspace) if is_temporary(key) else ()),
            turn_id=turn.turn_id,
            tool_groups=groups_in_history(history, self.tools, message.content)
            | ({"sessions"} if mentions_chat(message.metadata.get(MENTIONS)) else set()),
            source="session" if SESSION_MESSAGE in message.metadata else source,
        )
        with self.presets.pin(preset) if self.presets else contextlib.nullcontext():
            try:
                result = await runner.run(messages, ctx, session_key=key, turn_id=turn.turn_id)
            except CheckpointFailed as exc:  # a failed turn, pending for a Retry
                raise LLMError(exc.message, kind="storage", details=exc.details) from exc
        if result.stop_reason == "empty":
            # Not an answer: the turn stays pending (Retry), nothing is saved as final.
            session.checkpoint(result.added)
            await asyncio.to_thread(self.sessions.save, session)
            raise LLMError(EMPTY_REPLY, kind="empty_reply", details="empty reply after retries")
        session.finish_turn(result.added)
        turn.answer = result.content  # from here on a stop changes nothing
        await asyncio.to_thread(self.sessions.save, session)
        self._consolidate_later(key)
        stats = self._stats.setdefault(key, SessionStats())
        stats.prompt_tokens += result.usage.prompt_tokens
        stats.completion_tokens += result.usage.completion_tokens
        stats.last_context_tokens = result.context_tokens  # the request as sent (trimmed)
        return result.content
