"""``nanobot-desktop channels status``: which chat channels are enabled, installed and working;
``channels login``: link WhatsApp (:mod:`desktop.cli.channel_login`); ``channels pair``: DM
pairing (:mod:`desktop.cli.channel_pair`)."""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
from typing import Any

from desktop.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, load


def add_channels_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    """``channels status [--test]``, ``channels login [whatsapp]``."""
    channels = commands.add_parser("channels", parents=[common], help="chat channels")
    actions = channels.add_subparsers(dest="channels_command", metavar="ACTION", required=True)
    status = actions.add_parser(
        "status", parents=[common], help="enabled channels, their SDKs and settings"
    )
    status.add_argument(
        "--test", action="store_true", help="also make a cheap real call with each enabled one"
    )
    from desktop.cli.channel_login import add_login_parser

    add_login_parser(actions, common)
    from desktop.cli.channel_pair import add_pair_parser

    add_pair_parser(actions, common)


def _installed(requires: tuple[str, ...]) -> bool:
    return all(importlib.util.find_spec(name) is not None for name in requires)


async def _status(config: Any, test: bool) -> int:
    from desktop.core.assembly import channel_state_dir
    from desktop.core.bus.queue import MessageBus
    from desktop.core.channels.base import ChannelUnavailable
    from desktop.core.channels.manager import ChannelManager, explain
    from desktop.core.channels.registry import CHANNELS
    from desktop.core.config.secret_fields import inject_stored_secrets
    from desktop.core.config.secrets import SecretStore
    from desktop.core.utils.tasks import TaskOwner

    await inject_stored_secrets(config, SecretStore())
    owner = TaskOwner("channels-cli")
    manager = ChannelManager(
        MessageBus(), owner, config=config, state_dir=channel_state_dir(config)
    )
    failed = False
    width = max(len(info.display_name) for info in CHANNELS.values())
    for name, info in CHANNELS.items():
        section = getattr(config.channels, name, None)
        enabled = bool(getattr(section, "enabled", False))
        installed = _installed(info.requires)
        words = ["enabled" if enabled else "disabled"]
        words.append("installed" if installed else f"not installed ({info.install_hint})")
        if enabled and installed and test:
            try:
                words.append(await manager.check(name, section))
            except ChannelUnavailable as exc:
                failed = True
                words.append(f"cannot run: {exc.reason}")
            except NotImplementedError:
                words.append("no connection test")
            except Exception as exc:  # noqa: BLE001 - a failed test is the answer, not a crash
                failed = True
                words.append(f"test failed: {explain(exc)}")
        print(f"{info.display_name:<{width}}  {', '.join(words)}")
    await owner.aclose()
    from desktop.cli.sandbox_note import sandbox_report
    from desktop.core.security.sandbox import probe_sandbox

    line, warning = await asyncio.to_thread(sandbox_report, config, await probe_sandbox())
    print()
    if warning is None:
        print(f"sandbox: {line}")
    else:
        print(f"WARNING: {warning} Commands asked for in a chat run with your full rights.")
    return EXIT_FAILED if failed else EXIT_OK


def run_channels(args: argparse.Namespace) -> int:
    """Print the channels' status, or link one (``login``)."""
    if args.channels_command == "login":
        from desktop.cli.channel_login import run_login

        return run_login(args)
    if args.channels_command == "pair":
        from desktop.cli.channel_pair import run_pair

        return run_pair(args)
    config = load(args)
    if config is None:
        return EXIT_USAGE
    return asyncio.run(_status(config, bool(getattr(args, "test", False))))
