"""The parts :func:`desktop.core.assembly.build_runtime` puts together, one function each.

Each function builds one group of parts from what the earlier ones built and hands every object
what it needs at construction:

1. :func:`spend_parts`: the usage ledger and the spend governor, hooked into the provider;
2. :func:`base_parts`: workspace templates, sessions, the context builder, the worker tools
   (file, search, shell, web: :func:`worker_tools`), the approval gate and the MCP manager;
3. :func:`memory_parts`: memory store, git repo, Consolidator, Dream;
4. :func:`agent_parts`: subagents, the main agent's own tools (:func:`main_tools`), the loop;
5. :func:`background_parts`: chat channels, heartbeat, the job runner, the scheduler and its
   ``cron`` tool;
6. :func:`agent_socket`: the local socket the terminal hands its messages to.

Also where the config's files live (:func:`config_dir`, :func:`usage_place`,
:func:`channel_state_dir`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.core.agent.approval import ApprovalGate, ApprovalPolicy
from desktop.core.agent.context import ContextBuilder
from desktop.core.agent.loop import AgentLoop
from desktop.core.agent.mentions import mention_notes
from desktop.core.agent.subagents import SubagentManager
from desktop.core.agent.work import SessionWork
from desktop.core.bus.limits import max_inbound_kb
from desktop.core.bus.queue import MessageBus
from desktop.core.channels.manager import ChannelManager
from desktop.core.channels.pairing.command import command_handler as pairing_commands
from desktop.core.config.budgets import Budgets
from desktop.core.config.sandbox_settings import SandboxPlaces
from desktop.core.config.schema import Config
from desktop.core.cron.delivery import JobRunner
from desktop.core.cron.receipts import JobSkipped, KeptReminders
from desktop.core.cron.service import CronService
from desktop.core.cron.system_jobs import SYSTEM_JOBS
from desktop.core.engine.skills import SkillsLoader
from desktop.core.heartbeat.service import HeartbeatService
from desktop.core.ipc.server import AgentSocketServer, socket_path
from desktop.core.memory.consolidator import Consolidator, RequestBuilder
from desktop.core.memory.git_store import GitStore
from desktop.core.memory.store import MemoryStore
from desktop.core.memory.templates import sync_workspace_templates
from desktop.core.providers.chat_models import ChatModels
from desktop.core.providers.chat_presets import ChatPresets
from desktop.core.providers.switchable import SwitchableProvider
from desktop.core.runtime import MemoryParts
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
from desktop.core.tools.sessions import session_tools
from desktop.core.tools.shell import exec_sandbox_warning, exec_tools
from desktop.core.tools.shell_sessions import ExecSessions
from desktop.core.tools.web import web_tools
from desktop.core.usage.governor import SpendGovernor
from desktop.core.usage.ledger import UsageLedger
from desktop.core.usage.place import LedgerPlace, locate
from desktop.core.utils.tasks import TaskOwner

if TYPE_CHECKING:
    from desktop.core.config.secrets import SecretStore

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


@dataclass(frozen=True)
class Spend:
    """What every model call passes through: the usage ledger and the spend governor."""

    ledger: UsageLedger
    governor: SpendGovernor
    detach: tuple[Callable[[], None], ...]


def spend_parts(
    config: Config,
    provider: SwitchableProvider,
    bus: MessageBus,
    budgets: Callable[[], Budgets] | None,
    ask_budgets: bool,
) -> Spend:
    """The ledger every answered call is appended to and the governor that checks each call."""
    ledger = UsageLedger(usage_place(config))
    governor = SpendGovernor(
        ledger.place,
        budgets or Budgets,
        bus.emit,
        interactive=ask_budgets,
        zone=config.agents.defaults.effective_timezone,
        pending=lambda: list(ledger.unwritten),
    )
    detach = (provider.add_call_listener(ledger.record), provider.add_call_guard(governor.guard))
    return Spend(ledger, governor, detach)


@dataclass(frozen=True)
class BaseParts:
    """The parts a turn works with, built first: every later part gets them."""

    config: Config
    bus: MessageBus
    provider: SwitchableProvider
    owner: TaskOwner
    work: SessionWork
    sessions: SessionManager
    context: ContextBuilder
    tools: ToolRegistry
    exec_sessions: ExecSessions
    gate: ApprovalGate | None
    mcp: MCPManager


def base_parts(
    config: Config,
    provider: SwitchableProvider,
    bus: MessageBus,
    owner: TaskOwner,
    approval: ApprovalPolicy | None,
) -> BaseParts:
    """Workspace templates, sessions, context, the worker tools, the approval gate and MCP."""
    defaults = config.agents.defaults
    workspace = config.workspace_path
    work = SessionWork()
    sync_workspace_templates(workspace)
    sessions = SessionManager(
        workspace,
        config_dir=config_dir(config),
        max_tool_result_chars=defaults.max_tool_result_chars,
    )
    skills = SkillsLoader(workspace)
    context = ContextBuilder(
        workspace,
        timezone=defaults.effective_timezone,
        skills_section=skills.sections,
        notes=(
            goal_notes,
            mention_notes(
                sessions,
                skills=skills.list_skills,
                servers=lambda: sorted(config.tools.mcp_servers),
            ),
        ),
    )
    exec_sessions = ExecSessions(owner.child("exec-sessions"), work.add_child)
    tools = worker_tools(config, exec_sessions)
    gate = (
        ApprovalGate(approval, shell_warning=lambda: exec_sandbox_warning(config.tools.exec))
        if approval is not None
        else None
    )
    mcp = MCPManager(dict(config.tools.mcp_servers), registry=tools)
    return BaseParts(
        config, bus, provider, owner, work, sessions, context, tools, exec_sessions, gate, mcp
    )


def memory_parts(base: BaseParts, review: Callable[[], bool]) -> MemoryParts:
    """Memory files, their git history, the Consolidator and Dream."""
    config, defaults = base.config, base.config.agents.defaults
    store = MemoryStore(config.workspace_path)
    consolidator = Consolidator(
        base.provider,
        store,
        base.sessions,
        context_window=defaults.context_window_tokens,
        max_tokens=defaults.max_tokens,
        build_request=request_builder(base.context, base.tools),
    )
    return MemoryParts(
        store, GitStore(config.workspace_path), consolidator, config, base.provider, review
    )


@dataclass(frozen=True)
class AgentParts:
    """The agent loop and what it hands work to."""

    loop: AgentLoop
    subagents: SubagentManager
    chat_models: ChatModels


def agent_parts(base: BaseParts, memory: MemoryParts, secrets: SecretStore | None) -> AgentParts:
    """Subagents, the main agent's own tools, then the agent loop."""
    config, provider, tools = base.config, base.provider, base.tools
    defaults = config.agents.defaults
    subagents = SubagentManager(
        provider,
        base.bus,
        lambda: worker_tools(config, base.exec_sessions),
        work=base.work,
        owner=base.owner.child("subagents"),
        approval=base.gate,
        max_concurrent=defaults.max_concurrent_subagents,
        context_window=defaults.context_window_tokens,
        max_tokens=defaults.max_tokens,
        on_end=base.exec_sessions.end_owner,
    )
    chat_models = ChatModels(config, provider, base.sessions, secrets)
    tools.register(MessageTool(base.bus, on_sent=base.work.mark_message_sent))
    tools.register(SpawnTool(subagents.spawn, subagents.run_inline))
    main_tools(
        tools,
        config,
        sessions=base.sessions,
        bus=base.bus,
        owner=base.owner.child("tools"),
        subagents=subagents,
        model=lambda: provider.model,
    )
    loop = AgentLoop(
        config=config,
        provider=provider,
        bus=base.bus,
        sessions=base.sessions,
        tools=tools,
        context=base.context,
        work=base.work,
        owner=base.owner.child("agent"),
        consolidation=memory.consolidator,
        connectors=(base.mcp,),
        approval=base.gate,
        commands=(memory.command_handler(), pairing_commands(config_dir(config))),
        models=chat_models,
        presets=ChatPresets(config, provider, secrets),
    )
    return AgentParts(loop, subagents, chat_models)


def dream_job_of(memory: MemoryParts) -> Callable[[], Awaitable[str | None]]:
    """The ``dream`` system job: a Dream run, its outcome as the job's result or skip."""

    async def dream_job() -> str | None:
        result = await memory.dream().run()
        if result.status == "paused":  # the spend governor kept it from running
            raise JobSkipped(result.message, cause="budget")
        if result.status == "pending":  # waiting for the person to review its last proposal
            raise JobSkipped(result.message, cause="paused")
        if result.status == "failed":  # its batch is tried again at the next run
            raise RuntimeError(result.message)
        return result.message or f"Dream finished: {result.status}."

    return dream_job


@dataclass(frozen=True)
class Background:
    """Work that runs without a person asking: chat channels, heartbeat, scheduled jobs."""

    channels: ChannelManager
    heartbeat: HeartbeatService
    reminders: JobRunner
    cron: CronService


def background_parts(
    base: BaseParts,
    agent: AgentLoop,
    memory: MemoryParts,
    clock: Clock | None,
    reminders_paused: Callable[[], bool] | None,
) -> Background:
    """The channel manager, the heartbeat, the job runner and the scheduler (and its tool)."""
    workspace = base.config.workspace_path
    tz = base.config.agents.defaults.effective_timezone
    heartbeat = HeartbeatService(
        workspace, base.provider, agent, timezone=tz, goals=GoalContinuer(agent)
    )
    channels = ChannelManager(
        base.bus,
        base.owner.child("channels"),
        config=base.config,
        state_dir=channel_state_dir(base.config),
        media_dir=workspace / "media",
        approval=base.gate,
    )
    runner = JobRunner(
        agent,
        {"dream": dream_job_of(memory), "heartbeat": heartbeat.tick},
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
    base.tools.register(CronTool(cron, default_tz=tz))
    return Background(channels, heartbeat, runner, cron)


def agent_socket(
    base: BaseParts, on_trigger: Callable[[], None] | None = None
) -> AgentSocketServer:
    """The local socket ``nanobot-desktop agent`` hands its messages to (``on_trigger``:
    wakes the trigger queue when ``nanobot-desktop trigger`` queued a delivery)."""
    config, provider = base.config, base.provider
    return AgentSocketServer(
        socket_path(config_dir(config)),
        base.bus,
        base.owner.child("ipc"),
        workspace=config.workspace_path,
        model=lambda: provider.model,  # the one in use now (the model picker switches it)
        approval=base.gate,  # a terminal's turn asks there too
        max_inbound_kb=lambda: max_inbound_kb(config),
        on_trigger=on_trigger,
    )
