"""``nanobot-desktop trigger <id> ["message"]``: send a message into the chat a trigger is bound
to (``/trigger <name>`` in that chat made it; nanobot 0.3.5's ``nanobot trigger``).

The message (the argument, else standard input when it is not a terminal) is queued in the
workspace's ``triggers/inbox/`` as 0.3.5 queues it. When the app or a gateway runs on this
config and workspace, it is told over its socket and delivers the message at once (nanobot's
gateway would take it too, whichever comes first); otherwise the agent runs here, delivers
what is queued and prints the answer.

Exit codes: 0 queued (and delivered, when run here), 1 the delivery failed or the store
cannot be used, 2 usage (no message, unknown or disabled trigger, unusable config).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, fail, load

if TYPE_CHECKING:
    from desktop.core.config.schema import Config


def add_trigger_parser(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    common: argparse.ArgumentParser,
) -> None:
    """Add ``trigger <id> [message]``."""
    trigger = commands.add_parser(
        "trigger",
        parents=[common],
        help="send a message into the chat a trigger is bound to (/trigger <name> makes one)",
    )
    trigger.add_argument("trigger_id", help="the trigger's id, as /trigger answered (trg_…)")
    trigger.add_argument(
        "message", nargs="?", help="the message (default: standard input, when piped)"
    )


def _message(args: argparse.Namespace) -> str | None:
    if args.message and args.message.strip():
        return str(args.message)
    stdin = sys.stdin
    if stdin is not None and not stdin.isatty():
        text = stdin.read()
        if text.strip():
            return text
    return None


def run_trigger(args: argparse.Namespace) -> int:
    """Queue the message, then have it delivered (see the module docstring)."""
    from desktop.core.config.loader import config_origin
    from desktop.core.config.paths import default_config_path
    from desktop.core.triggers.store import (
        TriggerDisabled,
        TriggerNotFound,
        TriggerStore,
        TriggerStoreError,
    )

    content = _message(args)
    if content is None:
        return fail("trigger message is required (an argument, or piped to standard input)")
    config = load(args)
    if config is None:
        return EXIT_USAGE
    store = TriggerStore(config.workspace_path)
    try:
        delivery = store.enqueue(args.trigger_id, content)
    except (TriggerNotFound, TriggerDisabled, ValueError) as exc:
        return fail(str(exc))
    except (TriggerStoreError, OSError) as exc:
        return fail(str(exc), EXIT_FAILED)
    print(f"Queued {delivery.trigger_id} ({delivery.id})")
    config_dir = (config_origin(config).path or default_config_path()).expanduser().parent
    try:
        return asyncio.run(_deliver(config, config_dir))
    except KeyboardInterrupt:
        print()
        return 130


async def _deliver(config: Config, config_dir: Path) -> int:
    from desktop.core.ipc.client import AgentConnection, socket_path

    connection = await AgentConnection.open(socket_path(config_dir))
    if connection is not None:
        try:
            hello = await connection.hello() or {}
            same = Path(str(hello.get("workspace", ""))) == config.workspace_path
            if same and await connection.trigger():
                print("Handed to the running nanobot Desktop; it delivers it now.")
                return EXIT_OK
        except (ConnectionError, OSError):
            pass
        finally:
            await connection.close()
    return await _deliver_here(config)


async def _deliver_here(config: Config) -> int:
    """No app or gateway delivers it: run the agent here for what is queued."""
    from desktop.core.assembly import StartOptions, start_runtime
    from desktop.core.bus.events import RunEvent, TurnFailed, TurnFinished
    from desktop.core.bus.queue import MessageBus
    from desktop.core.providers.factory import MissingKeyError
    from desktop.core.providers.matching import ProviderNotFound

    bus = MessageBus()
    failed: list[str] = []

    def on_event(event: RunEvent) -> None:
        if isinstance(event, TurnFinished):
            sys.stdout.write(f"{event.content}\n")
            sys.stdout.flush()
        elif isinstance(event, TurnFailed):
            failed.append(event.message)
            sys.stderr.write(f"nanobot-desktop: the turn failed: {event.message}\n")

    bus.subscribe(on_event)
    try:
        runtime = await start_runtime(config, StartOptions.one_command(bus=bus))
    except (ProviderNotFound, MissingKeyError) as exc:
        return fail(f"{exc} (the message stays queued)")
    try:
        assert runtime.triggers is not None, "built by build_runtime"
        await runtime.triggers.drain()
        await runtime.subagents.idle()
    finally:
        await runtime.stop()
    return EXIT_FAILED if failed else EXIT_OK
