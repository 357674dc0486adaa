"""``nanobot-desktop gateway``: the agent, its chat channels, scheduler, heartbeat and MCP
servers, headless.

* **Channels.** Every chat channel enabled in the config (``channels.<name>.enabled``) runs
  here as in the app: messages are answered in their chat, and status changes are printed.
  Messages for a channel that is not running (a reminder for the window's chat) are printed.
* **Approvals** follow the app's setting in ``desktop.json`` beside the config
  (``approvalMode``, the always-allowed tools). In ``ask`` mode a risky tool call
  (:func:`~desktop.core.agent.approval.approval_reason`) is asked in the chat it came from
  (Telegram buttons, a reply keyword elsewhere) and runs only after a yes; a turn with nobody
  to ask (a cron job for the window's chat) gets "not executed" as the tool's result. An
  "Always" answer is saved to ``desktop.json``. In ``autonomous`` mode nothing is asked
  (nanobot's behaviour).
* The agent socket lets ``agent -m`` hand its message to this process.

Runs until Ctrl-C (SIGINT) or SIGTERM, then shuts down cleanly: the scheduler and the channels
stop, running turns are cancelled (their sessions stay consistent), MCP children are closed.
Reminders and heartbeat news are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from datetime import datetime
from typing import TYPE_CHECKING

from desktop.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, fail, load

if TYPE_CHECKING:
    from desktop.cli.gateway_process import GatewayPaths
    from desktop.core.bus.events import OutboundMessage, RunEvent
    from desktop.core.config.schema import Config
    from desktop.core.runtime import Runtime


def _say(text: str) -> None:
    sys.stdout.write(f"[{datetime.now():%H:%M:%S}] {text}\n")
    sys.stdout.flush()


def _print_outbound(message: OutboundMessage) -> None:
    """Messages for channels that are not running here are printed."""
    if message.metadata.get("progress") or message.metadata.get("tool_hint"):
        return
    _say(f"→ {message.channel}:{message.chat_id}: {message.content}")


def _summary(runtime: Runtime, config: Config, mode: str, sandbox: tuple[str, str | None]) -> None:
    defaults = config.agents.defaults
    _say(
        f"nanobot gateway: model {runtime.agent.provider.model}, workspace {config.workspace_path}"
    )
    jobs = runtime.cron.list_jobs()
    system = [j.id for j in jobs if runtime.cron.is_protected(j.id)]
    _say(f"scheduler: {len(jobs) - len(system)} job(s), system jobs: {', '.join(system) or 'none'}")
    if not defaults.dream.enabled:
        _say("Dream: disabled in the config")
    if config.tools.mcp_servers:
        _say(f"MCP servers: {', '.join(config.tools.mcp_servers)} (connected on the first turn)")
    enabled = runtime.channels.enabled()
    _say(f"channels: {', '.join(enabled) or 'none enabled'}")
    if mode == "ask":
        _say("approvals: ask (risky tool calls are asked in their chat)")
    else:
        _say("approvals: autonomous (tool calls run without asking)")
    line, warning = sandbox
    _say(f"sandbox: {line}")
    if warning is not None:
        _say(f"WARNING: {warning}")
    _say("running; Ctrl-C to stop")


async def _serve(config: Config, paths: GatewayPaths) -> int:
    from desktop.cli import gateway_process

    # The record nanobot's ``gateway status|stop`` read too: one gateway per config.
    claim = gateway_process.claim(paths, config.gateway.port)
    try:
        await asyncio.to_thread(claim.__enter__)
    except gateway_process.AlreadyRunning as exc:
        return fail(
            f"{exc} since {exc.status.started_at or '?'} ({exc.status.program}, "
            f"{exc.status.launch_mode}); `nanobot-desktop gateway stop` stops it",
            EXIT_FAILED,
        )
    try:
        return await _serve_claimed(config, paths)
    finally:
        await asyncio.to_thread(claim.__exit__, None, None, None)


async def _serve_claimed(config: Config, paths: GatewayPaths) -> int:
    from desktop.cli import gateway_process
    from desktop.core.agent.approval_prefs import policy_from_prefs
    from desktop.core.assembly import StartOptions, start_runtime
    from desktop.core.bus.events import (
        BudgetPaused,
        BudgetWarning,
        ChannelStatusChanged,
        ReminderDue,
        RunawayStopped,
    )
    from desktop.core.bus.queue import MessageBus
    from desktop.core.config.loader import config_origin
    from desktop.core.config.prefs import PrefsStore
    from desktop.core.config.prefs_peek import prefs_path
    from desktop.core.providers.factory import MissingKeyError
    from desktop.core.providers.matching import ProviderNotFound
    from desktop.core.utils.tasks import TaskOwner

    prefs = await asyncio.to_thread(PrefsStore, prefs_path(config_origin(config).path))
    if prefs.warning:
        print(f"warning: {prefs.warning}", file=sys.stderr)
    prefs_owner = TaskOwner("gateway-prefs")  # saves "Always allow" answers
    policy = policy_from_prefs(prefs, prefs_owner)

    def on_event(event: RunEvent) -> None:
        if isinstance(event, ReminderDue):
            label = "heartbeat" if event.source == "heartbeat" else f"reminder '{event.job_name}'"
            _say(f"{label} ({event.session_key}): {event.text}")
        elif isinstance(event, BudgetPaused | BudgetWarning | RunawayStopped):
            _say(
                f"budget: {event.message}"
                + ("" if event.kind != "budget_paused" else " (kept paused)")
            )
        elif isinstance(event, ChannelStatusChanged):
            detail = " — ".join(p for p in (event.account, event.reason, event.hint) if p)
            _say(f"channel {event.channel}: {event.state}" + (f" ({detail})" if detail else ""))

    bus = MessageBus()
    bus.subscribe(on_event)  # before the start: the channels' first status changes too
    try:
        runtime = await start_runtime(config, StartOptions(bus=bus, prefs=prefs, approval=policy))
    except (MissingKeyError, ProviderNotFound) as exc:
        await prefs_owner.aclose()
        return fail(str(exc))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)

    from desktop.cli.sandbox_note import sandbox_report
    from desktop.core.security.sandbox import probe_sandbox

    status = await probe_sandbox()
    sandbox = await asyncio.to_thread(sandbox_report, config, status)
    runtime.channels.set_fallback(_print_outbound)
    # Reminders kept while nothing could show them.
    runtime.owner.try_spawn(runtime.reminders.deliver_kept(), name="kept-reminders")
    _summary(runtime, config, policy.mode, sandbox)
    await asyncio.to_thread(gateway_process.mark_ready, paths)
    try:
        await stop.wait()
    finally:
        _say("stopping…")
        await runtime.stop()
        await prefs_owner.aclose()
        _say("stopped")
    return EXIT_OK


def run_gateway(args: argparse.Namespace) -> int:
    """Run the gateway here until interrupted, or one of the management commands
    (:mod:`desktop.cli.gateway_commands`)."""
    from desktop.cli.gateway_commands import paths_for, run_gateway_command

    code = run_gateway_command(args)
    if code is not None:
        return code
    config = load(args)
    if config is None:
        return EXIT_USAGE
    return asyncio.run(_serve(config, paths_for(args)))
