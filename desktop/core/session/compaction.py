"""A compacted session as nanobot 0.3.5 stores it (``/compact``, idle compaction).

Compaction keeps every message in the file. It inserts a hidden user message, the
*checkpoint*, right after the messages it summarised, moves ``last_consolidated`` to it and
stores the summary in the metadata under ``_last_summary`` (``{"text", "last_active"}``).
The next request replays from the checkpoint on and shows the summary in the system prompt,
so the old turns no longer cost tokens. Both programs read and write this shape.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from desktop.core.session.model import Session
from desktop.core.session.validate import PENDING

#: The checkpoint's text (nanobot 0.3.5's words: both programs recognise it by them).
CONTINUATION_TEXT = "Continue the active task from the working-memory checkpoint above."
#: Marks a message that is replayed to the model but never shown as a chat turn.
HIDDEN_KEY = "_hidden_history"
#: Session metadata key of the latest summary.
SUMMARY_KEY = "_last_summary"
#: A summary with this text says nothing (nanobot leaves it out of the prompt).
NOTHING = "(nothing)"


def is_hidden(message: Mapping[str, Any]) -> bool:
    """Whether ``message`` is kept for the model only (nanobot's hidden-history marker)."""
    marker = message.get(HIDDEN_KEY)
    return marker is True or isinstance(marker, Mapping)


def is_checkpoint(message: Mapping[str, Any]) -> bool:
    """Whether ``message`` is a compaction checkpoint."""
    return is_hidden(message) and message.get("content") == CONTINUATION_TEXT


def archivable(message: Mapping[str, Any]) -> bool:
    """Whether ``message`` is conversation a summary should cover (not a checkpoint, not a
    command's echo)."""
    return not message.get("_command") and not is_checkpoint(message)


def last_summary(metadata: Mapping[str, Any] | None) -> tuple[str, str] | None:
    """The stored summary and when its conversation was last active; ``None`` when there is
    none (or it is malformed: a bad value never stops a turn)."""
    raw = metadata.get(SUMMARY_KEY) if metadata is not None else None
    if not isinstance(raw, Mapping):
        return None
    text = raw.get("text")
    if not isinstance(text, str) or not text.strip():
        return None
    active = raw.get("last_active")
    return text, active if isinstance(active, str) else ""


def summary_section(metadata: Mapping[str, Any] | None) -> str:
    """The system prompt's ``[Archived Context Summary]`` for a compacted session, or ``""``."""
    found = last_summary(metadata)
    if found is None or found[0].strip() == NOTHING:
        return ""
    text, active = found
    when = f" (last active {active})" if active else ""
    return f"[Archived Context Summary]\n\nPrevious conversation summary{when}:\n{text}"


def commit_checkpoint(session: Session, summary: str, end: int) -> None:
    """Insert the checkpoint at ``end`` (after the summarised messages) and store ``summary``.

    A pending turn's user message at or after ``end`` moves one place on, and its marker
    with it. ``updated_at`` stays: compaction is not activity.
    """
    end = max(0, min(end, len(session.messages)))
    session.messages.insert(
        end,
        {
            "role": "user",
            "content": CONTINUATION_TEXT,
            HIDDEN_KEY: True,
            "timestamp": datetime.now().isoformat(),
        },
    )
    state = session.metadata.get(PENDING)
    if isinstance(state, dict) and isinstance(state.get("index"), int) and state["index"] >= end:
        state["index"] += 1
    session.metadata[SUMMARY_KEY] = {
        "text": summary,
        "last_active": session.updated_at.isoformat(),
    }
    session.last_consolidated = end


def has_unarchived(session: Session) -> bool:
    """Whether the session has conversation after its last archive (something to compact)."""
    end = session.pending_index
    stop = len(session.messages) if end is None else end
    return any(archivable(m) for m in session.messages[session.last_consolidated : stop])
