"""``nanobot-desktop sessions list|export``: chats from the terminal.

Exit codes: 0 done, 1 the file could not be written, 2 usage (unknown chat, unusable config).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from desktop.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, fail, load


def add_sessions_parser(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    common: argparse.ArgumentParser,
) -> None:
    """Add ``sessions`` with its ``list`` and ``export`` actions."""
    sessions = commands.add_parser("sessions", parents=[common], help="list or export chats")
    actions = sessions.add_subparsers(dest="sessions_command", metavar="ACTION", required=True)
    actions.add_parser("list", parents=[common], help="every chat, newest first")
    export = actions.add_parser("export", parents=[common], help="a chat as Markdown or JSON")
    export.add_argument("key", help="the chat's key, as 'sessions list' shows it")
    export.add_argument("--format", choices=("md", "json"), default="md", help="default: md")
    export.add_argument(
        "--output", "-o", metavar="FILE", help="write to FILE (default: standard output)"
    )


def run_sessions(args: argparse.Namespace) -> int:
    """Dispatch the ``sessions`` actions; see the module docstring for exit codes."""
    from desktop.core.config.loader import config_origin
    from desktop.core.config.paths import default_config_path
    from desktop.core.session.export import export_session
    from desktop.core.session.manager import SessionManager
    from desktop.core.utils.atomic import atomic_write_text

    config = load(args)
    if config is None:
        return EXIT_USAGE
    config_file = config_origin(config).path or default_config_path()
    manager = SessionManager(config.workspace_path, config_dir=config_file.expanduser().parent)
    summaries = manager.summaries()
    if args.sessions_command == "list":
        for summary in summaries:
            print(f"{summary.key}\t{summary.updated_at[:16]}\t{summary.title}")
        return EXIT_OK
    if args.key not in {s.key for s in summaries}:
        return fail(f"no chat {args.key!r}; 'nanobot-desktop sessions list' shows them")
    text = export_session(manager.get_or_create(args.key), args.format)
    if not args.output:
        sys.stdout.write(text)
        return EXIT_OK
    try:
        atomic_write_text(Path(args.output).expanduser(), text)
    except OSError as exc:
        return fail(f"cannot write {args.output}: {exc}", EXIT_FAILED)
    return EXIT_OK
