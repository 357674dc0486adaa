"""The composition root: one place builds the whole runtime, for the app, the CLI and the gateway.

:func:`build_runtime` creates every part and passes it in at construction (nothing is attached
to an object after it is built) and returns one typed :class:`Runtime`. :func:`start_runtime`
also builds the provider (importing LiteLLM, off the event loop), injects keyring-stored
secrets, registers the system jobs and starts the loop and the scheduler.

Build order (each part gets what it needs, nothing later):

1. bus, task owner, session work registry, sessions, context, tool registry (file, shell, web);
2. approval gate (the app passes its policy; approvers register themselves later);
3. MCP manager (always present; empty when no server is configured);
4. memory: store, git repo, Dream factory, Consolidator, the memory slash commands;
5. subagents, then the ``message`` and ``spawn`` tools and the deferred groups (sessions,
   goals, ``my``, images) with ``load_tools`` (:func:`main_tools`);
6. the agent loop;
7. heartbeat and the cron service (their job runner runs turns on the loop), then the
   ``cron`` tool.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.core.agent.approval import ApprovalGate, ApprovalPolicy
from desktop.core.agent.context import ContextBuilder
from desktop.core.agent.loop import AgentLoop
from desktop.core.agent.skills import SkillsLoader
from desktop.core.agent.subagents import SubagentManager
from desktop.core.agent.work import SessionWork
from desktop.core.bus.limits import max_inbound_kb
from desktop.core.bus.queue import MessageBus
from desktop.core.channels.manager import ChannelManager
from desktop.core.config.schema import Config
from desktop.core.cron.delivery import JobRunner
from desktop.core.cron.receipts import JobSkipped, KeptReminders
from desktop.core.cron.service import CronService
from desktop.core.cron.system_jobs import SYSTEM_JOBS
from desktop.core.heartbeat.service import HeartbeatService
from desktop.core.ipc.server import AgentSocketServer, socket_path
from desktop.core.memory.consolidator import Consolidator, RequestBuilder
from desktop.core.memory.git_store import GitStore
from desktop.core.memory.store import MemoryStore
from desktop.core.memory.templates import sync_workspace_templates
from desktop.core.providers.base import LLMProvider
from desktop.core.providers.chat_models import ChatModels
from desktop.core.providers.chat_presets import ChatPresets
from desktop.core.providers.fallback import FallbackChain
from desktop.core.providers.reconfigure import snapshot
from desktop.core.providers.switchable import SwitchableProvider
from desktop.core.runtime import MemoryParts, Runtime, never
from desktop.core.security.sandbox_settings import SandboxPlaces
from desktop.core.session.manager import Session, SessionManager
from desktop.core.tools.cron import CronTool
from desktop.core.tools.filesystem import filesystem_tools
from desktop.core.tools.find import FindFilesTool
from desktop.core.tools.goals import GoalContinuer, goal_notes, goal_tools
from desktop.core.tools.groups import LoadToolsTool, groups_in_history
from desktop.core.tools.images import GenerateImageTool
from desktop.core.tools.mcp import MCPManager
from desktop.core.tools.messaging import MessageTool, SpawnTool
from desktop.core.tools.my import MyTool
from desktop.core.tools.patch import ApplyPatchTool
from desktop.core.tools.registry import ToolRegistry
from desktop.core.tools.sessions import mention_notes, session_tools
from desktop.core.tools.shell import exec_sandbox_warning, exec_tools
from desktop.core.tools.shell_sessions import ExecSessions
from desktop.core.tools.web import web_tools
from desktop.core.usage.budgets import Budgets
from desktop.core.usage.governor import SpendGovernor
from desktop.core.usage.ledger import UsageLedger
from desktop.core.usage.place import LedgerPlace, locate
from desktop.core.utils.tasks import TaskOwner

if TYPE_CHECKING:
    from desktop.core.config.secrets import SecretStore

log = logging.getLogger(__name__)

Clock = Callable[[], float]


def worker_tools(config: Config, sessions: ExecSessions | None = None) -> ToolRegistry:
    """File, search, shell and web tools: what subagents get (and the base of the main set);
    with ``sessions``, commands may keep running (``exec_session``, ``list_exec_sessions``)."""
    registry = ToolRegistry()
    places = SandboxPlaces(config_dir(config))
    for tool in [
        *filesystem_tools(),
        ApplyPatchTool(),
        FindFilesTool(),
        *exec_tools(config.tools.exec, places=places, sessions=sessions),
        *web_tools(config.tools.web),
    ]:
        registry.register(tool)
    return registry


def image_key(config: Config) -> Callable[[str], str | None]:
    """The image tool's key lookup: the provider's key as chat finds it (keyring, config,
    environment); blocking, called in a worker thread."""

    def key_for(provider: str) -> str | None:
        from desktop.core.config.secrets import SecretStore

        return SecretStore().resolve(provider, config).value

    return key_for


def main_tools(
    tools: ToolRegistry,
    config: Config,
    *,
    sessions: SessionManager,
    bus: MessageBus,
    owner: TaskOwner,
    subagents: SubagentManager,
    model: Callable[[], str],
) -> None:
    """The main agent's tools beyond the workers': the deferred groups (sessions, goals,
    ``my``, images) and ``load_tools``, which offers them."""
    settings = config.tools
    extra = [
        LoadToolsTool(tools),
        *session_tools(sessions, bus, owner, per_minute=settings.max_session_messages_per_minute),
        *goal_tools(sessions),
    ]
    if settings.my.enable:
        extra.append(
            MyTool(config, tools, model=model, subagents=lambda: sorted(subagents.running))
        )
    if settings.image_generation.enabled:
        extra.append(GenerateImageTool(config, bus, image_key(config)))
    for tool in extra:
        tools.register(tool)


def request_builder(context: ContextBuilder, tools: ToolRegistry) -> RequestBuilder:
    """What the Consolidator measures: a session's next request (history, tools, no new text)."""

    def build(session: Session) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        channel, _, chat_id = session.key.partition(":")
        history = session.get_history()
        messages = context.build_messages(history, "", channel=channel, chat_id=chat_id)
        return messages, tools.definitions(groups_in_history(history, tools))

    return build


def config_dir(config: Config) -> Path:
    """The folder of the config file in use (``~/.nanobot`` by default)."""
    from desktop.core.config.loader import config_origin
    from desktop.core.config.paths import default_config_path

    path = config_origin(config).path or default_config_path()
    return Path(path).expanduser().parent


def usage_place(config: Config) -> LedgerPlace:
    """Where ``config``'s workspace keeps its usage ledger (beside the config; a ledger left in
    the workspace by an earlier version is moved there). Blocking: call it in a thread."""
    return locate(config.workspace_path, config_dir(config))


def channel_state_dir(config: Config) -> Path:
    """Where chat channels keep their cursors: beside the config file."""
    return config_dir(config) / "channel-state"


def build_runtime(
    config: Config,
    provider: LLMProvider,
    *,
    bus: MessageBus | None = None,
    approval: ApprovalPolicy | None = None,
    clock: Clock | None = None,
    serve_socket: bool = False,
    budgets: Callable[[], Budgets] | None = None,
    ask_budgets: bool = False,
    reminders_paused: Callable[[], bool] | None = None,
    dream_review: Callable[[], bool] | None = None,
    secrets: SecretStore | None = None,
) -> Runtime:
    """Build (not start) the runtime for ``config``. Blocking file I/O: call it in a thread.

    Args:
        config: Loaded config.
        provider: The model backend.
        bus: The bus to use (the app creates it first, to subscribe its bridge).
        approval: Approval rules; ``None`` builds no gate (nothing is asked).
        clock: The scheduler's time source (tests).
        serve_socket: Serve the local socket ``nanobot-desktop agent`` hands messages to.
        budgets: Returns the spend budgets in force (``desktop.json``); default: none set
            (the runaway guard still runs at its default multiple).
        ask_budgets: A front end answers budget pauses (the window); otherwise a background
            call over budget is refused at once and reported.
        reminders_paused: Whether the window shows reminders without a pop-up now (the
            ``remindersPaused`` preference; their receipts say they arrived quietly).
        dream_review: Whether Dream proposes instead of changing the files (``desktop.json``);
            default: never.
        secrets: Where keys are found when a chat's own model, a preset or a fallback
            model needs its provider built (``None``: the system keyring).
    """
    defaults = config.agents.defaults
    workspace = config.workspace_path
    bus = bus or MessageBus()
    provider = (
        provider
        if isinstance(provider, SwitchableProvider)
        else SwitchableProvider(provider, fallbacks=FallbackChain(config, secrets))
    )
    owner = TaskOwner("runtime")
    ledger = UsageLedger(usage_place(config))
    governor = SpendGovernor(
        ledger.place,
        budgets or Budgets,
        bus.emit,
        interactive=ask_budgets,
        zone=defaults.effective_timezone,
        pending=lambda: list(ledger.unwritten),
    )
    detach = (provider.add_call_listener(ledger.record), provider.add_call_guard(governor.guard))
    work = SessionWork()
    sync_workspace_templates(workspace)
    sessions = SessionManager(
        workspace,
        config_dir=config_dir(config),
        max_tool_result_chars=defaults.max_tool_result_chars,
    )
    context = ContextBuilder(
        workspace,
        timezone=defaults.effective_timezone,
        skills_section=SkillsLoader(workspace).sections,
        notes=(goal_notes, mention_notes(sessions)),
    )
    exec_sessions = ExecSessions(owner.child("exec-sessions"), work.add_child)
    tools = worker_tools(config, exec_sessions)
    gate = (
        ApprovalGate(approval, shell_warning=lambda: exec_sandbox_warning(config.tools.exec))
        if approval is not None
        else None
    )
    mcp = MCPManager(dict(config.tools.mcp_servers), registry=tools)
    store = MemoryStore(workspace)
    consolidator = Consolidator(
        provider,
        store,
        sessions,
        context_window=defaults.context_window_tokens,
        max_tokens=defaults.max_tokens,
        build_request=request_builder(context, tools),
    )
    memory = MemoryParts(
        store, GitStore(workspace), consolidator, config, provider, dream_review or never
    )
    subagents = SubagentManager(
        provider,
        bus,
        lambda: worker_tools(config, exec_sessions),
        work=work,
        owner=owner.child("subagents"),
        approval=gate,
        max_concurrent=defaults.max_concurrent_subagents,
        context_window=defaults.context_window_tokens,
        max_tokens=defaults.max_tokens,
        on_end=exec_sessions.end_owner,
    )
    memory_commands = memory.command_handler()
    chat_models = ChatModels(config, provider, sessions, secrets)
    presets = ChatPresets(config, provider, secrets)
    tools.register(MessageTool(bus, on_sent=work.mark_message_sent))
    tools.register(SpawnTool(subagents.spawn, subagents.run_inline))
    main_tools(
        tools,
        config,
        sessions=sessions,
        bus=bus,
        owner=owner.child("tools"),
        subagents=subagents,
        model=lambda: provider.model,
    )
    agent = AgentLoop(
        config=config,
        provider=provider,
        bus=bus,
        sessions=sessions,
        tools=tools,
        context=context,
        work=work,
        owner=owner.child("agent"),
        consolidation=consolidator,
        connectors=(mcp,),
        approval=gate,
        commands=(memory_commands,),
        models=chat_models,
        presets=presets,
    )
    tz = defaults.effective_timezone
    heartbeat = HeartbeatService(
        workspace, provider, agent, timezone=tz, goals=GoalContinuer(agent)
    )

    async def dream_job() -> str | None:
        result = await memory.dream().run()
        if result.status == "paused":  # the spend governor kept it from running
            raise JobSkipped(result.message, cause="budget")
        if result.status == "pending":  # waiting for the person to review its last proposal
            raise JobSkipped(result.message, cause="paused")
        if result.status == "failed":  # its batch is tried again at the next run
            raise RuntimeError(result.message)
        return result.message or f"Dream finished: {result.status}."

    channels = ChannelManager(
        bus,
        owner.child("channels"),
        config=config,
        state_dir=channel_state_dir(config),
        media_dir=workspace / "media",
        approval=gate,
    )
    runner = JobRunner(
        agent,
        {"dream": dream_job, "heartbeat": heartbeat.tick},
        timezone=tz,
        channels=channels,
        kept=KeptReminders(workspace / "cron"),
        reminders_paused=reminders_paused,
    )
    cron_options: dict[str, Any] = {"clock": clock} if clock is not None else {}
    cron = CronService(
        workspace / "cron" / "jobs.json",
        on_job=runner,
        default_tz=tz,
        protected=SYSTEM_JOBS,
        **cron_options,
    )
    tools.register(CronTool(cron, default_tz=tz))
    return Runtime(
        config=config,
        bus=bus,
        provider=provider,
        sessions=sessions,
        tools=tools,
        work=work,
        agent=agent,
        subagents=subagents,
        mcp=mcp,
        approval=gate,
        memory=memory,
        heartbeat=heartbeat,
        cron=cron,
        channels=channels,
        owner=owner,
        reminders=runner,
        ipc=AgentSocketServer(
            socket_path(config_dir(config)),
            bus,
            owner.child("ipc"),
            workspace=workspace,
            model=lambda: provider.model,  # the one in use now (the model picker switches it)
            approval=gate,  # a terminal's turn asks there too
            max_inbound_kb=lambda: max_inbound_kb(config),
        )
        if serve_socket
        else None,
        applied=snapshot(config),
        ledger=ledger,
        governor=governor,
        detach=detach,
        chat_models=chat_models,
    )


async def start_runtime(
    config: Config,
    *,
    provider: LLMProvider | None = None,
    bus: MessageBus | None = None,
    secrets: SecretStore | None = None,
    approval: ApprovalPolicy | None = None,
    serve_socket: bool = True,
    budgets: Callable[[], Budgets] | None = None,
    ask_budgets: bool = False,
    reminders_paused: Callable[[], bool] | None = None,
    dream_review: Callable[[], bool] | None = None,
) -> Runtime:
    """Build the provider (unless given) and the runtime, then start it.

    Blocking work (importing LiteLLM, keyring, templates, jobs.json) runs in worker threads,
    so a window on the same event loop stays responsive.

    Raises:
        desktop.core.providers.factory.MissingKeyError: No key for the configured provider.
        desktop.core.providers.matching.ProviderNotFound: No provider fits the model.
    """
    from desktop.core.config.secret_fields import inject_stored_secrets
    from desktop.core.config.secrets import SecretStore

    secrets = secrets or SecretStore()
    # Channel tokens and the web-search key stored in the keyring take effect in memory.
    await inject_stored_secrets(config, secrets)
    built = None
    if provider is None:
        from desktop.core.providers.factory import abuild_provider

        built = await abuild_provider(config, secrets)
        provider = built.provider
    runtime = await asyncio.to_thread(
        build_runtime,
        config,
        provider,
        bus=bus or MessageBus(),
        approval=approval,
        serve_socket=serve_socket,
        budgets=budgets,
        ask_budgets=ask_budgets,
        reminders_paused=reminders_paused,
        dream_review=dream_review,
        secrets=secrets,
    )
    await runtime.start()
    if built is not None:  # the real window, asked in the background (a server may be slow)
        # LiteLLM's table waits for LiteLLM's first call; providers whose calls never load
        # LiteLLM (Codex, Grok) read the table now.
        runtime.owner.try_spawn(
            runtime.refresh_context_window(
                built.choice, built.key.value, table_when_loaded=built.provider.calls_litellm
            ),
            name="context-window",
        )
    return runtime
