"""Build a Dream for the "Dream now" button the way ``factory.memory_commands`` does (Qt-free).

The Dream machinery is imported on first use, keeping it off the path to the first window.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from desktop.core.memory.git_store import GitStore

if TYPE_CHECKING:
    from desktop.core.config.schema import Config
    from desktop.core.memory.dream import Dream
    from desktop.core.providers.base import LLMProvider


def build_dream(config: Config, provider: LLMProvider) -> Dream:
    """A fresh :class:`Dream` for the configured workspace with the configured limits."""
    from desktop.core.memory.dream import Dream
    from desktop.core.memory.store import MemoryStore

    defaults = config.agents.defaults
    workspace = config.workspace_path
    settings = defaults.dream
    return Dream(
        provider,
        MemoryStore(workspace),
        GitStore(workspace),
        workspace,
        max_batch_size=settings.max_batch_size,
        max_iterations=settings.max_iterations,
        token_budget=settings.token_budget,
        context_window=defaults.context_window_tokens,
        max_tokens=defaults.max_tokens,
    )


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
