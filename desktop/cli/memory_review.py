"""``nanobot-desktop memory proposal|accept|reject``: decide a Dream proposal from the terminal.

A proposal exists when "Review Dream changes before they land" is on (desktop.json
``reviewDream``). ``accept`` takes every change, or only those named with ``--change ID``
(ids as ``memory proposal`` lists them). A proposal Dream did not write is refused (and set
aside) with a note; file entries naming a file Dream may not change are listed as refused and
never written.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from desktop.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, fail

if TYPE_CHECKING:
    from desktop.core.memory.git_store import GitStore
    from desktop.core.memory.review import ReviewOutcome


def add_review_parsers(
    actions: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    """Add ``proposal``, ``accept`` and ``reject`` to the ``memory`` actions."""
    actions.add_parser(
        "proposal", parents=[common], help="show the Dream proposal waiting for review"
    )
    accept = actions.add_parser(
        "accept", parents=[common], help="accept the Dream proposal (all of it, or some changes)"
    )
    accept.add_argument(
        "--change",
        action="append",
        default=[],
        metavar="ID",
        help="accept only this change (repeat for several; ids from 'memory proposal')",
    )
    actions.add_parser(
        "reject", parents=[common], help="reject the Dream proposal (nothing changes)"
    )


def show_proposal(store: GitStore, _args: argparse.Namespace) -> int:
    """Print the pending proposal: analysis, then each change with its id."""
    from desktop.core.memory.review import load_proposal

    proposal, warning = load_proposal(store.workspace)
    if warning:
        print(f"note: {warning}")
    if proposal is None:
        print("No Dream proposal is waiting for review.")
        return EXIT_OK
    print(
        f"Dream proposes {proposal.change_count} change(s) from history entries "
        f"{proposal.first}..{proposal.last} ({proposal.created})."
    )
    print()
    for line in proposal.analysis.splitlines():
        print(f"    {line}".rstrip())
    for note in proposal.dropped:
        print(f"pinned, left out: {note}")
    for refused in proposal.refused:
        print(f"refused, never written: {refused.label}")
    for entry in proposal.files:
        print()
        print(f"{entry.path}" + ("  (edited by you)" if entry.edited else ""))
        for hunk in proposal.hunks[entry.path]:
            print(f"  change {hunk.id}")
            for line in hunk.patch_lines():
                print(f"    {line}")
    print()
    print(
        "Accept with 'nanobot-desktop memory accept [--change ID ...]', or reject with "
        "'nanobot-desktop memory reject'."
    )
    return EXIT_OK


def _report(outcome: ReviewOutcome) -> int:
    print(outcome.message)
    for refused in outcome.refused:
        print(f"refused, not written: {refused}")
    if outcome.status == "none":
        return EXIT_FAILED
    return EXIT_FAILED if outcome.git_error else EXIT_OK


def accept(store: GitStore, args: argparse.Namespace) -> int:
    """Accept all changes, or those named with ``--change``."""
    from desktop.core.memory.review import accept_proposal, load_proposal

    selected = None
    if args.change:
        proposal, _ = load_proposal(store.workspace)
        if proposal is None:
            return fail("no Dream proposal is waiting for review", EXIT_FAILED)
        known = {h.id: path for path, hunks in proposal.hunks.items() for h in hunks}
        unknown = [c for c in args.change if c not in known]
        if unknown:
            return fail(
                f"no change {', '.join(unknown)} in the proposal; 'nanobot-desktop memory "
                "proposal' lists them",
                EXIT_USAGE,
            )
        selected = {path: [c for c in args.change if known[c] == path] for path in proposal.hunks}
    return _report(accept_proposal(store.workspace, store, selected))


def reject(store: GitStore, _args: argparse.Namespace) -> int:
    """Reject the proposal."""
    from desktop.core.memory.review import reject_proposal

    return _report(reject_proposal(store.workspace))
