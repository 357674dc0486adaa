"""``/pairing`` in a chat and ``nanobot-desktop channels pair``: list, approve, deny, revoke.

The subcommands and their arguments are nanobot 0.3.5's: ``list`` (the default),
``approve CODE``, ``deny CODE``, ``revoke SENDER`` (on the chat's own channel) and
``revoke CHANNEL SENDER``. The answers are plain text for a chat or a terminal.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from desktop.core.agent.turn_parts import CommandHandler
from desktop.core.channels.pairing.store import PairingStore

USAGE = "Usage: /pairing [list | approve CODE | deny CODE | revoke SENDER | revoke CHANNEL SENDER]"


def describe(store: PairingStore, *, now: float | None = None) -> str:
    """Pending requests and approved senders, one per line."""
    at = time.time() if now is None else now
    pairings = store.read()
    lines: list[str] = []
    pending = sorted(pairings.pending.values(), key=lambda r: r.created_at)
    if pending:
        lines.append("Pending pairing requests:")
        lines += [
            f"  {r.code}  {r.channel}  {r.sender}  (expires in {r.expires_in(at) // 60 + 1} min)"
            for r in pending
        ]
    else:
        lines.append("No pending pairing requests.")
    approved = [(ch, s) for ch, senders in sorted(pairings.approved.items()) for s in senders]
    if approved:
        lines.append("Approved senders:")
        lines += [f"  {channel}  {sender}" for channel, sender in approved]
    return "\n".join(lines)


def run(folder: Path, argument: str, channel: str = "") -> tuple[bool, str]:
    """Carry out a ``/pairing`` argument against ``pairing.json`` in ``folder`` (blocking I/O).

    Args:
        folder: The config folder.
        argument: What follows ``/pairing``.
        channel: The chat's channel (what ``revoke SENDER`` applies to).

    Returns:
        Whether it worked, and the answer.
    """
    store = PairingStore(folder)
    words = argument.split()
    action = words[0].lower() if words else "list"
    rest = words[1:]
    try:
        if action == "list" and not rest:
            return True, describe(store)
        if action in ("approve", "deny") and len(rest) == 1:
            found = store.approve(rest[0]) if action == "approve" else store.deny(rest[0])
            if found is None:
                return False, f"No pending pairing request has the code {rest[0]} (or it expired)."
            if action == "approve":
                return (
                    True,
                    f"Approved: {found.sender} may now talk to the assistant on {found.channel}.",
                )
            return True, f"Denied the pairing request of {found.sender} on {found.channel}."
        if action == "revoke" and rest:
            # The sender is the rest of the line (a display name after "|" may have spaces).
            where, sender = (channel, rest[0]) if len(rest) == 1 else (rest[0], " ".join(rest[1:]))
            if not where:
                return False, "Say which channel: revoke CHANNEL SENDER."
            if store.revoke(where, sender):
                return True, f"Revoked: {sender} is no longer paired on {where}."
            return False, f"{sender} is not a paired sender on {where}."
    except OSError as exc:
        return False, f"The pairing file cannot be used ({exc}); nothing was changed."
    return False, USAGE


def command_handler(folder: Path) -> CommandHandler:
    """The agent loop's ``/pairing`` handler (``pairing.json`` in ``folder``).

    The loop's handlers are not told the chat's channel, so ``revoke`` names it:
    ``/pairing revoke CHANNEL SENDER``.
    """

    async def handle(name: str, argument: str) -> str | None:
        if name != "/pairing":
            return None
        _, text = await asyncio.to_thread(run, folder, argument)
        return text

    return handle
