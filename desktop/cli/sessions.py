"""``nanobot-desktop sessions list|export|restore-workspace``: chats from the terminal.

``restore-workspace`` copies the workspace's sessions back to ``<workspace>/sessions`` before
going back to an older nanobot (:mod:`desktop.core.session.restore`, nanobot 0.3.5's command).

Exit codes: 0 done, 1 the file could not be written (``restore-workspace``: files need a
review), 2 usage (unknown chat, unusable config).
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
    actions.add_parser(
        "restore-workspace",
        parents=[common],
        help="copy sessions back into the workspace before downgrading nanobot",
    )


def _restore(workspace: Path, config_dir: Path) -> int:
    from filelock import Timeout

    from desktop.core.session.restore import restore_to_workspace

    try:
        result = restore_to_workspace(workspace, config_dir)
    except (RuntimeError, Timeout, OSError) as exc:
        return fail(str(exc), EXIT_FAILED)
    print(
        f"Restored {result.restored} session file(s) to {result.target}; "
        f"{result.unchanged} already matched."
    )
    if not result.conflicts:
        return EXIT_OK
    print("Rollback is incomplete: existing or invalid files require manual review.")
    for path in result.conflicts:
        print(f"- {path}")
    return EXIT_FAILED


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
    if args.sessions_command == "restore-workspace":  # before a manager adopts legacy files
        return _restore(config.workspace_path, config_file.expanduser().parent)
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
