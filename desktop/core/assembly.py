"""The composition root: one place builds the whole runtime, and one function starts it.

:func:`start_runtime` is the one start path of the app, ``gateway``, ``agent`` (without a
running app) and ``cron run``; :class:`StartOptions` says what each of them runs (chat
networks, scheduler, socket). It puts the keyring's stored secrets into the live config, builds
the provider (importing LiteLLM, off the event loop), reads ``desktop.json``, builds the
runtime and starts it.

:func:`build_runtime` creates every part and passes it in at construction (nothing is attached
to an object after it is built) and returns one typed :class:`Runtime`. Build order (each part
gets what it needs, nothing later; one function each in :mod:`desktop.core.parts`):

1. the spend ledger and governor around the provider;
2. workspace templates, sessions, context, the worker tools (file, shell, web), the approval
   gate (the front end passes its policy; approvers register themselves later), MCP;
3. memory: store, git repo, Consolidator, Dream;
4. subagents, the ``message`` and ``spawn`` tools and the deferred groups (sessions, goals,
   ``my``, images) with ``load_tools``, then the agent loop;
5. channels, heartbeat and the cron service (their job runner runs turns on the loop), then
   the ``cron`` tool;
6. the local socket (app and gateway).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from desktop.core.agent.approval import ApprovalPolicy
from desktop.core.agent.idle_compaction import IdleClock, IdleCompactor
from desktop.core.bus.queue import MessageBus
from desktop.core.config.budgets import Budgets
from desktop.core.config.loader import config_origin
from desktop.core.config.prefs import PrefsStore
from desktop.core.config.prefs_peek import prefs_path
from desktop.core.config.schema import Config
from desktop.core.parts import (
    Clock,
    agent_parts,
    agent_socket,
    background_parts,
    base_parts,
    memory_parts,
    spend_parts,
)
from desktop.core.parts import channel_state_dir as channel_state_dir
from desktop.core.parts import config_dir as config_dir
from desktop.core.parts import main_tools as main_tools
from desktop.core.parts import request_builder as request_builder
from desktop.core.parts import usage_place as usage_place
from desktop.core.parts import worker_tools as worker_tools
from desktop.core.providers.base import LLMProvider
from desktop.core.providers.fallback import FallbackChain
from desktop.core.providers.reconfigure import snapshot
from desktop.core.providers.switchable import SwitchableProvider
from desktop.core.runtime import Runtime, never
from desktop.core.utils.tasks import TaskOwner

if TYPE_CHECKING:
    from desktop.core.config.secrets import SecretStore


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
    idle_clock: IdleClock | None = None,
) -> Runtime:
    """Build (not start) the runtime for ``config``. Blocking file I/O: call it in a thread.

    Front ends start it with :func:`start_runtime`; tests build it on the scripted server.

    Args:
        config: Loaded config (stored secrets already injected, see :func:`start_runtime`).
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
        idle_clock: Idle compaction's time source and sleep (tests).
    """
    bus = bus or MessageBus()
    switchable = (
        provider
        if isinstance(provider, SwitchableProvider)
        else SwitchableProvider(provider, fallbacks=FallbackChain(config, secrets))
    )
    spend = spend_parts(config, switchable, bus, budgets, ask_budgets)
    base = base_parts(config, switchable, bus, TaskOwner("runtime"), approval)
    memory = memory_parts(base, dream_review or never)
    agent = agent_parts(base, memory, secrets)
    background = background_parts(base, agent.loop, memory, clock, reminders_paused)
    return Runtime(
        config=config,
        bus=bus,
        provider=switchable,
        sessions=base.sessions,
        tools=base.tools,
        work=base.work,
        agent=agent.loop,
        subagents=agent.subagents,
        mcp=base.mcp,
        approval=base.gate,
        memory=memory,
        heartbeat=background.heartbeat,
        cron=background.cron,
        channels=background.channels,
        owner=base.owner,
        reminders=background.reminders,
        ledger=spend.ledger,
        governor=spend.governor,
        ipc=agent_socket(base) if serve_socket else None,
        applied=snapshot(config),
        detach=spend.detach,
        chat_models=agent.chat_models,
        idle=IdleCompactor(
            base.sessions,
            memory.consolidator,
            lock_for=agent.loop.session_lock,
            busy=agent.loop.is_busy,
            owner=base.owner.child("idle-compaction"),
            after_minutes=config.agents.defaults.idle_compact_after_minutes,
            interval_s=config.agents.defaults.idle_compact_check_interval_seconds,
            clock=idle_clock,
        ),
    )


@dataclass(frozen=True, kw_only=True)
class StartOptions:
    """How a front end starts the runtime (:func:`start_runtime`); the defaults are the app's
    and the gateway's, :meth:`one_command` is a terminal command's.

    Attributes:
        networks: Connect the chat channels enabled in the config.
        scheduler: Register the system jobs and run the scheduler (cron jobs, heartbeat,
            Dream).
        serve_socket: Serve the local socket ``nanobot-desktop agent`` hands messages to.
        probe_window: Ask the model's server (then LiteLLM's table) for its context window,
            in the background.
        model: A model other than the configured one (``agent --model``).
        provider: A ready model backend instead of the configured one (tests).
        bus: The bus to use (created first to subscribe to it before the start).
        secrets: The key store (``None``: the system keyring); its stored secrets (channel
            tokens, the web-search key) are put into the live config before anything is built.
        prefs: ``desktop.json`` (budgets, Dream review, paused reminders), read live; ``None``:
            read once from beside the config.
        approval: Approval rules; ``None`` builds no gate (nothing is asked).
        ask_budgets: A front end answers budget pauses (the window); otherwise a call over
            budget is refused at once and reported.
    """

    networks: bool = True
    scheduler: bool = True
    serve_socket: bool = True
    probe_window: bool = True
    model: str | None = None
    provider: LLMProvider | None = None
    bus: MessageBus | None = None
    secrets: SecretStore | None = None
    prefs: PrefsStore | None = None
    approval: ApprovalPolicy | None = None
    ask_budgets: bool = False

    @classmethod
    def one_command(
        cls, *, model: str | None = None, bus: MessageBus | None = None
    ) -> StartOptions:
        """A terminal command's runtime (``agent`` without a running app, ``cron run``): no
        chat networks, no scheduler, no socket, no context-window probe."""
        return cls(
            networks=False,
            scheduler=False,
            serve_socket=False,
            probe_window=False,
            model=model,
            bus=bus,
        )


async def start_runtime(config: Config, options: StartOptions | None = None) -> Runtime:
    """Start the runtime for ``config``: the one start path of the app, ``gateway``, ``agent``
    (without a running app) and ``cron run``.

    In order: the keyring's stored secrets go into the live config, the provider is built
    (unless given; LiteLLM is imported off the event loop), ``desktop.json`` is read (unless
    given), the runtime is built in a worker thread and started as ``options`` say. Blocking
    work runs in worker threads, so a window on the same event loop stays responsive.

    Raises:
        desktop.core.providers.factory.MissingKeyError: No key for the configured provider.
        desktop.core.providers.matching.ProviderNotFound: No provider fits the model.
    """
    from desktop.core.config.secret_fields import inject_stored_secrets
    from desktop.core.config.secrets import SecretStore

    options = options or StartOptions()
    secrets = options.secrets or SecretStore()
    # Channel tokens and the web-search key stored in the keyring take effect in memory.
    await inject_stored_secrets(config, secrets)
    provider, built = options.provider, None
    if provider is None:
        from desktop.core.providers.factory import abuild_provider

        built = await abuild_provider(config, secrets, model=options.model)
        provider = built.provider
    prefs = options.prefs
    if prefs is None:
        prefs = await asyncio.to_thread(PrefsStore, prefs_path(config_origin(config).path))
    live = prefs  # read on every use: the window's settings change them while it runs
    runtime = await asyncio.to_thread(
        build_runtime,
        config,
        provider,
        bus=options.bus or MessageBus(),
        approval=options.approval,
        serve_socket=options.serve_socket,
        budgets=lambda: live.prefs.budgets,
        ask_budgets=options.ask_budgets,
        reminders_paused=lambda: live.prefs.reminders_paused,
        dream_review=lambda: live.prefs.review_dream,
        secrets=secrets,
    )
    try:
        await runtime.start(networks=options.networks, scheduler=options.scheduler)
    except BaseException:  # nothing it started may outlive a failed start
        await runtime.stop()
        raise
    if built is not None and options.probe_window:  # asked in the background (may be slow)
        # LiteLLM's table waits for LiteLLM's first call; providers whose calls never load
        # LiteLLM (Codex, Grok) read the table now.
        runtime.owner.try_spawn(
            runtime.refresh_context_window(
                built.choice, built.key.value, table_when_loaded=built.provider.calls_litellm
            ),
            name="context-window",
        )
    return runtime
