"""``nanobot-desktop memory log|show|revert``: the memory timeline from the terminal, and
``proposal|accept|reject`` for a Dream proposal (:mod:`desktop.cli.memory_review`).

Exit codes: 0 done, 1 refused (a conflicting or pointless revert, a damaged or busy
repository, no proposal waiting), 2 usage (unknown commit or change, unusable config or
workspace).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from desktop.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, fail, load
from desktop.cli.memory_review import accept, add_review_parsers, reject, show_proposal

if TYPE_CHECKING:  # pygit2 loads only when a memory command runs, not for every CLI call
    from desktop.core.memory.git_store import CommitInfo, GitStore

_DEFAULT_LIMIT = 20


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return value


def add_memory_parser(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    common: argparse.ArgumentParser,
) -> None:
    """Add ``memory`` with its ``log``, ``show`` and ``revert`` actions.

    Args:
        commands: The top-level sub-parsers.
        common: The parent parser holding ``--config``/``--workspace``.
    """
    memory = commands.add_parser(
        "memory",
        parents=[common],
        help="the memory timeline: git history of SOUL.md, USER.md and memory/MEMORY.md",
        description="Every Dream run and every edit of the memory files is a commit; any "
        "commit can be undone without losing later changes. Edits made outside the app are "
        "recorded as 'edit:' commits first.",
    )
    actions = memory.add_subparsers(dest="memory_command", metavar="ACTION", required=True)
    log = actions.add_parser("log", parents=[common], help="list commits, newest first")
    log.add_argument(
        "--limit",
        type=_positive,
        default=_DEFAULT_LIMIT,
        metavar="N",
        help=f"show at most N commits (default {_DEFAULT_LIMIT})",
    )
    log.add_argument("--dream", action="store_true", help="only commits made by Dream")
    show = actions.add_parser("show", parents=[common], help="show what one commit changed")
    show.add_argument("sha", help="commit id (full or the first 7 characters)")
    revert = actions.add_parser(
        "revert", parents=[common], help="undo one commit, keeping every later change"
    )
    revert.add_argument("sha", help="commit id (full or the first 7 characters)")
    add_review_parsers(actions, common)


def run_memory(args: argparse.Namespace) -> int:
    """Dispatch the ``memory`` actions; see the module docstring for exit codes."""
    from desktop.core.memory.git_store import GitStore, GitStoreError, RevertConflict, UnknownCommit

    config = load(args)
    if config is None:
        return EXIT_USAGE
    workspace = config.workspace_path
    if not workspace.is_dir():
        return fail(f"the workspace {workspace} does not exist")
    store = GitStore(workspace)
    try:
        for notice in store.ensure_repo():
            print(f"note: {notice}", file=sys.stderr)
        return _ACTIONS[args.memory_command](store, args)
    except UnknownCommit as exc:
        return fail(f"{exc}. 'nanobot-desktop memory log' lists the commits.", EXIT_USAGE)
    except RevertConflict as exc:
        return fail(exc.message, EXIT_FAILED)
    except (GitStoreError, OSError) as exc:
        return fail(str(exc), EXIT_FAILED)


def _stamp(info: CommitInfo) -> str:
    return info.time.astimezone().strftime("%Y-%m-%d %H:%M")


def _log(store: GitStore, args: argparse.Namespace) -> int:
    entries = store.log("dream:" if args.dream else None, limit=args.limit)
    if not entries:
        print("No Dream commits yet." if args.dream else "No memory commits yet.")
        return EXIT_OK
    rows = [(e.short_sha, _stamp(e), f"+{e.additions} -{e.deletions}", e.subject) for e in entries]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        print("  ".join([*cells, row[3]]))
    return EXIT_OK


def _show(store: GitStore, args: argparse.Namespace) -> int:
    info = store.info(args.sha)
    diffs = store.show(info.sha)
    print(f"commit {info.sha}")
    print(f"Date:   {info.time.strftime('%Y-%m-%d %H:%M:%S %z')}")
    print()
    print(f"    {info.subject}")
    if info.body:
        print()
        for line in info.body.splitlines():
            print(f"    {line}".rstrip())
    print()
    if not diffs:
        print("(no file changes)")
    for diff in diffs:
        sys.stdout.write(diff.patch if diff.patch.endswith("\n") else diff.patch + "\n")
    return EXIT_OK


def _revert(store: GitStore, args: argparse.Namespace) -> int:
    target = store.info(args.sha)
    sha = store.revert(target.sha)
    print(f'Undid {target.short_sha} "{target.subject}" with the new commit {sha[:7]}.')
    for diff in store.show(sha):
        print(f"  {diff.path}  +{diff.additions} -{diff.deletions}")
    return EXIT_OK


_ACTIONS: dict[str, Callable[[GitStore, argparse.Namespace], int]] = {
    "log": _log,
    "show": _show,
    "revert": _revert,
    "proposal": show_proposal,
    "accept": accept,
    "reject": reject,
}
