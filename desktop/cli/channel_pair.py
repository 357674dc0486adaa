"""``nanobot-desktop channels pair``: the DM pairing requests and approved senders.

``pair`` (or ``pair list``) shows them; ``pair approve CODE`` lets the sender in,
``pair deny CODE`` discards the request, ``pair revoke CHANNEL SENDER`` takes an approval
back. The file is ``pairing.json`` beside the config (shared with nanobot 0.3.5); a running
app sees a change at the sender's next message.
"""

from __future__ import annotations

import argparse
from typing import Any

from desktop.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, load


def add_pair_parser(actions: Any, common: argparse.ArgumentParser) -> None:
    """``channels pair [list | approve CODE | deny CODE | revoke CHANNEL SENDER]``."""
    pair = actions.add_parser(
        "pair",
        parents=[common],
        help="DM pairing: list, approve CODE, deny CODE, revoke CHANNEL SENDER",
        description=(
            "Show, approve, deny or revoke DM pairing requests. The file is pairing.json "
            "beside the config (shared with nanobot 0.3.5); a running app sees a change at "
            "the sender's next message."
        ),
    )
    pair.add_argument(
        "pair_action",
        nargs="?",
        default="list",
        choices=("list", "approve", "deny", "revoke"),
        metavar="ACTION",
        help="list (default), approve, deny or revoke",
    )
    pair.add_argument("pair_args", nargs="*", metavar="ARG", help="CODE, or CHANNEL SENDER")


def run_pair(args: argparse.Namespace) -> int:
    """Carry out ``channels pair``."""
    from desktop.core.channels.pairing.command import run
    from desktop.core.parts import config_dir

    action: str = args.pair_action
    extra: list[str] = list(args.pair_args)
    wanted = {"list": 0, "approve": 1, "deny": 1, "revoke": 2}[action]
    if len(extra) != wanted and not (action == "revoke" and len(extra) > wanted):
        usage = {
            "list": "channels pair list",
            "approve": "channels pair approve CODE",
            "deny": "channels pair deny CODE",
            "revoke": "channels pair revoke CHANNEL SENDER",
        }[action]
        print(f"usage: nanobot-desktop {usage}")
        return EXIT_USAGE
    config = load(args)
    if config is None:
        return EXIT_USAGE
    ok, text = run(config_dir(config), " ".join([action, *extra]))
    print(text)
    return EXIT_OK if ok else EXIT_FAILED
