"""``nanobot-desktop gateway``: the agent, scheduler, heartbeat and MCP servers, headless.

Runs until Ctrl-C (SIGINT) or SIGTERM, then shuts down cleanly: the scheduler stops, running
turns are cancelled (their sessions stay consistent), MCP children are closed. Reminders and
heartbeat news are printed; messages for chat channels are printed too until channel runtimes
exist.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from datetime import datetime
from typing import TYPE_CHECKING

from desktop.cli.common import EXIT_OK, EXIT_USAGE, fail, load

if TYPE_CHECKING:
    from desktop.core.assembly import Runtime
    from desktop.core.bus.events import OutboundMessage, RunEvent
    from desktop.core.config.schema import Config


def _say(text: str) -> None:
    sys.stdout.write(f"[{datetime.now():%H:%M:%S}] {text}\n")
    sys.stdout.flush()


def _print_outbound(message: OutboundMessage) -> None:
    """Messages for channels that are not running here are printed."""
    if message.metadata.get("progress") or message.metadata.get("tool_hint"):
        return
    _say(f"→ {message.channel}:{message.chat_id}: {message.content}")


def _summary(runtime: Runtime, config: Config) -> None:
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
    _say("running; Ctrl-C to stop")


async def _serve(config: Config) -> int:
    from desktop.core.assembly import start_runtime
    from desktop.core.bus.events import ReminderDue
    from desktop.core.providers.factory import MissingKeyError
    from desktop.core.providers.matching import ProviderNotFound

    try:
        runtime = await start_runtime(config)
    except (MissingKeyError, ProviderNotFound) as exc:
        return fail(str(exc))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)

    def on_event(event: RunEvent) -> None:
        if isinstance(event, ReminderDue):
            label = "heartbeat" if event.source == "heartbeat" else f"reminder '{event.job_name}'"
            _say(f"{label} ({event.session_key}): {event.text}")

    runtime.bus.subscribe(on_event)
    runtime.channels.set_fallback(_print_outbound)
    _summary(runtime, config)
    try:
        await stop.wait()
    finally:
        _say("stopping…")
        await runtime.stop()
        _say("stopped")
    return EXIT_OK


def run_gateway(args: argparse.Namespace) -> int:
    """Run the gateway until interrupted."""
    config = load(args)
    if config is None:
        return EXIT_USAGE
    return asyncio.run(_serve(config))
