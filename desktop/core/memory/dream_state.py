"""Dream's bookkeeping: failed attempts per batch (``memory/.dream_state``) and consuming a batch.

``memory/.dream_state`` is JSON ``{"failures": {"<first cursor>": n}}``; a damaged file reads as
no failures. Consuming a batch moves ``memory/.dream_cursor`` past it, forgets its failures and
compacts the history log. Synchronous: run it in a worker thread.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from desktop.core.memory.store import MemoryStore
from desktop.core.utils.atomic import atomic_write_text
from desktop.core.utils.validate import Unusable, read_document

STATE_FILE = "memory/.dream_state"


def _root(state_file: Path) -> Path:
    """The workspace (``memory/.dream_state``'s grandparent): no link below it is followed."""
    return state_file.parent.parent


def read_failures(state_file: Path) -> dict[str, int]:
    """Failed attempts per batch (keyed by the batch's first cursor)."""
    try:
        document = read_document(state_file, root=_root(state_file))
    except (Unusable, OSError):
        return {}
    failures = document[0].get("failures") if document and isinstance(document[0], dict) else None
    if not isinstance(failures, dict):
        return {}
    return {
        str(k): v for k, v in failures.items() if isinstance(v, int) and not isinstance(v, bool)
    }


def write_failures(state_file: Path, failures: dict[str, int]) -> None:
    """Record ``failures`` (nothing is written for none when there is no file yet)."""
    if not failures and not os.path.lexists(state_file):
        return
    text = json.dumps({"failures": failures}, indent=2) + "\n"
    atomic_write_text(state_file, text, root=_root(state_file))


def consume_batch(store: MemoryStore, last: int) -> None:
    """Move the dream cursor past the batch ending at ``last``, forget its failures, compact."""
    store.dream_cursor = max(last, store.dream_cursor)
    write_failures(store.workspace / STATE_FILE, {})
    store.compact_history()
