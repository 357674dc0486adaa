"""What a cancelled Dream leaves behind: its edits so far, committed as a ``dream:`` entry."""

from __future__ import annotations

from datetime import datetime

from desktop.core.memory.git_store import GitStore


def commit_cancelled(git: GitStore) -> str | None:
    """Commit what a cancelled Dream had already changed, as a ``dream:`` entry.

    Call only when outside edits were recorded before the run started (so everything that
    differs from HEAD now is the Dream's). Returns the commit id, ``None`` when nothing changed.
    """
    stamp = datetime.now().strftime("%Y-%m-%d %H:%M")
    return git.commit(
        f"dream: {stamp}, cancelled\n\nDream was cancelled before it finished; these are the "
        "edits it had already made. The history entries will be read again next time.\n"
    )
