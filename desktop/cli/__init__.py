"""``nanobot-desktop``: the window with no arguments, headless commands otherwise."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from desktop import __version__


def _common(parser: argparse.ArgumentParser, *, top: bool) -> None:
    # Sub-commands use SUPPRESS so an option given before the command is not reset by them.
    default = None if top else argparse.SUPPRESS
    parser.add_argument(
        "--config",
        metavar="PATH",
        default=default,
        help="config file (default ~/.nanobot/config.json)",
    )
    parser.add_argument(
        "--workspace",
        metavar="PATH",
        default=default,
        help="workspace folder (overrides the config)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every command."""
    common = argparse.ArgumentParser(add_help=False)
    _common(common, top=False)
    parser = argparse.ArgumentParser(
        prog="nanobot-desktop",
        description="nanobot Desktop: a personal AI agent on your machine. "
        "With no command it opens the window.",
    )
    _common(parser, top=True)
    parser.add_argument("--version", action="version", version=f"nanobot-desktop {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    agent = commands.add_parser("agent", parents=[common], help="chat from the terminal")
    agent.add_argument("-m", "--message", help="send one message, stream the reply, exit")
    agent.add_argument(
        "--session", default="cli:direct", help="conversation key (default cli:direct)"
    )
    agent.add_argument("--model", help="model for this run (default: the configured one)")

    commands.add_parser(
        "status", parents=[common], help="show config, model, provider and key source"
    )

    keys = commands.add_parser(
        "keys", parents=[common], help="manage provider keys in the OS keyring"
    )
    key_commands = keys.add_subparsers(dest="keys_command", metavar="ACTION", required=True)
    key_set = key_commands.add_parser(
        "set", parents=[common], help="store a provider key (no echo)"
    )
    key_set.add_argument("provider", help="provider name, e.g. openai, anthropic, openrouter")
    key_set.add_argument("--stdin", action="store_true", help="read the key from standard input")
    key_commands.add_parser("list", parents=[common], help="where each provider's key comes from")
    key_delete = key_commands.add_parser("delete", parents=[common], help="remove a stored key")
    key_delete.add_argument("provider")
    key_commands.add_parser(
        "migrate",
        parents=[common],
        help="move plaintext apiKey values from config.json to the keyring",
    )
    from desktop.cli.provider import add_provider_parser

    add_provider_parser(commands, common)
    from desktop.cli.memory import add_memory_parser

    add_memory_parser(commands, common)
    from desktop.cli.cron import add_cron_parser

    add_cron_parser(commands, common)
    from desktop.cli.channels import add_channels_parser

    add_channels_parser(commands, common)
    from desktop.cli.mcp import add_mcp_parser

    add_mcp_parser(commands, common)
    from desktop.cli.sessions import add_sessions_parser

    add_sessions_parser(commands, common)
    from desktop.cli.trigger import add_trigger_parser

    add_trigger_parser(commands, common)
    from desktop.cli.plugins import add_plugins_parser

    add_plugins_parser(commands, common)
    usage = commands.add_parser(
        "usage", parents=[common], help="tokens and cost today and this month, against budgets"
    )
    usage.add_argument("--json", action="store_true", help="print the summary as JSON")

    from desktop.cli.onboard import add_onboard_parser

    add_onboard_parser(commands, common)
    from desktop.cli.serve import add_serve_parser

    add_serve_parser(commands, common)
    from desktop.cli.gateway_commands import add_gateway_parser

    add_gateway_parser(commands, common)
    return parser


def _exit_now(code: int) -> NoReturn:
    """End the process without the interpreter's teardown of every module.

    With LiteLLM loaded that teardown (freeing a few hundred MB of objects one by one) takes
    about a second after the answer is printed; for the window, the teardown destroys Qt and
    Python objects in no set order, which can crash a process that has already shut down
    cleanly (seen once as a segfault after Ctrl-C). Everything a normal exit does that matters
    still happens first: other threads that are not daemons are given a moment to end,
    ``atexit`` handlers run, logs and standard streams are flushed. Session files are already
    on disk (written atomically, awaited before the loop ended).
    """
    import atexit
    import logging
    import os
    import threading

    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join(timeout=2)
    atexit._run_exitfuncs()
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def main(argv: Sequence[str] | None = None) -> int:  # noqa: C901  # one branch per sub-command, read top to bottom
    """Entry point of the ``nanobot-desktop`` console script.

    Args:
        argv: The arguments; ``None`` means the process's own command line. Only then does
            ``agent`` end the process itself when done (see :func:`_exit_now`); a caller that
            passes arguments always gets the exit code back.
    """
    from desktop.core.utils.lazy import defer_httpx_cli

    defer_httpx_cli()  # before anything imports httpx: ≈6 MB of click, rich, pygments
    args = build_parser().parse_args(argv)
    if args.command is None:
        from desktop.app import run_app

        code = run_app(args)
        if argv is None:  # the window's own process: its shutdown is done, nothing to tear down
            _exit_now(code)
        return code
    if args.command == "agent":
        from desktop.cli.chat import run_agent

        code = run_agent(args)
        if argv is None:
            _exit_now(code)
        return code
    if args.command == "channels":
        from desktop.cli.channels import run_channels

        return run_channels(args)
    if args.command == "onboard":
        from desktop.cli.onboard import run_onboard

        return run_onboard(args)
    if args.command == "status":
        from desktop.cli.status import run_status

        return run_status(args)
    if args.command == "keys":
        from desktop.cli.keys import run_keys

        return run_keys(args)
    if args.command == "provider":
        from desktop.cli.provider import run_provider

        return run_provider(args)
    if args.command == "memory":
        from desktop.cli.memory import run_memory

        return run_memory(args)
    if args.command == "cron":
        from desktop.cli.cron import run_cron

        return run_cron(args)
    if args.command == "mcp":
        from desktop.cli.mcp import run_mcp

        return run_mcp(args)
    if args.command == "sessions":
        from desktop.cli.sessions import run_sessions

        return run_sessions(args)
    if args.command == "trigger":
        from desktop.cli.trigger import run_trigger

        return run_trigger(args)
    if args.command == "plugins":
        from desktop.cli.plugins import run_plugins

        return run_plugins(args)
    if args.command == "usage":
        from desktop.cli.usage import run_usage

        return run_usage(args)
    if args.command == "serve":
        from desktop.cli.serve import run_serve

        return run_serve(args)
    if args.command == "gateway":
        from desktop.cli.gateway import run_gateway

        return run_gateway(args)
    print(f"unknown command {args.command}", file=sys.stderr)
    return 2
