"""Temporary chats: conversations that leave nothing behind.

A temporary chat (the window's "New temporary chat") has a key of its own shape
(``desktop:temp-<time>-<random>``, :func:`new_temporary_key`), and that shape is all the rest
of the app needs to know: its session is kept in memory only (never written), nothing of it
is archived into ``memory/history.jsonl`` (so Dream never sees it), its tools may not write the
memory files, and it starts no automations (reminders, triggers, goals). It is gone when the
window closes it or the app quits. Spend is still counted in the usage ledger (by key), as it
is real money.
"""

from __future__ import annotations

import secrets
import time
from pathlib import Path

TEMPORARY_PREFIX = "desktop:temp-"

MEMORY_FILES = ("memory", "USER.md")
"""What a temporary chat's tools may not write, relative to the workspace: the long-term
memory (``memory/``: MEMORY.md, the history, Dream's files) and what the agent knows of the
person (``USER.md``)."""

REFUSAL = (
    "This is a temporary chat: it keeps nothing after it is closed, so it cannot {what}. "
    "Ask again in a normal chat."
)


def is_temporary(key: str) -> bool:
    """Whether session ``key`` is a temporary chat."""
    return key.startswith(TEMPORARY_PREFIX)


def new_temporary_key() -> str:
    """A fresh temporary chat key."""
    return f"{TEMPORARY_PREFIX}{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"


def memory_paths(workspace: Path) -> tuple[Path, ...]:
    """The memory files a temporary chat's tools may not write (see :data:`MEMORY_FILES`)."""
    root = Path(workspace).expanduser()
    return tuple(root / name for name in MEMORY_FILES)


def refusal(what: str) -> str:
    """Why a temporary chat cannot ``what`` (for a tool result or a command's answer)."""
    return REFUSAL.format(what=what)
