"""Regenerate an answer, or edit a sent message and send it again, keeping the old branch.

Both rewind a session to one of the person's messages and hand that message back, so the
front end can send it (or its edited text) as a new turn through the bus. The conversation
as it was is never lost: it is first copied to a session of its own (an *earlier version*,
titled "… (earlier version)"), a plain nanobot session file that nanobot, the chat list and
search all read like any other.

Why a copy and not a branch record inside the session: nanobot keeps one linear list of
messages per file and ignores unknown metadata keys, so a branch stored inside the metadata
would be invisible (and silently dropped) for nanobot, and would bloat the metadata line that
the chat list reads for every session. A copy is readable everywhere; the two are linked by
small metadata pointers (``forked_from`` in the copy, ``earlier_versions`` in the original),
which nanobot ignores.

The functions here are blocking (file I/O): call them in a worker thread, under the agent's
session lock (:class:`desktop.core.session.access.SessionAccess` does both).
"""

from __future__ import annotations

import copy
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from desktop.core.session.manager import CHECKPOINT, PENDING, Session, SessionManager
from desktop.core.session.naming import internal_source

EARLIER_SUFFIX = " (earlier version)"
FORKED_FROM = "forked_from"
EARLIER_VERSIONS = "earlier_versions"


class RewindError(LookupError):
    """The message to rewind to is not (or no longer) in the session. The text says why."""


@dataclass(frozen=True)
class Rewind:
    """The result of a rewind.

    Attributes:
        message: The person's message the session was rewound to (now removed: send it, or its
            edited text, as the next turn). Keys as saved: ``content``, ``media``…
        earlier_key: The session that keeps the conversation as it was.
        index: Where the message was (the session now has exactly this many messages).
    """

    message: dict[str, Any]
    earlier_key: str
    index: int


def message_text(message: dict[str, Any]) -> str:
    """The text of a saved message (list contents joined)."""
    content = message.get("content")
    if isinstance(content, list):
        return "\n".join(
            str(p.get("text", ""))
            for p in content
            if isinstance(p, dict) and p.get("type") == "text"
        )
    return str(content or "")


def is_person_message(message: dict[str, Any]) -> bool:
    """A user message the person wrote (not a reminder's prompt, the heartbeat's or a
    subagent's report: :func:`~desktop.core.session.naming.internal_source`)."""
    return message.get("role") == "user" and internal_source(message) is None


def person_messages(messages: list[dict[str, Any]]) -> list[int]:
    """Indices of the person's messages, oldest first."""
    return [i for i, m in enumerate(messages) if is_person_message(m)]


def find_person_message(messages: list[dict[str, Any]], ordinal: int, text: str) -> int:
    """The index of the person's ``ordinal``-th message (0-based), checked against ``text``.

    When the ordinal does not point at a message with that text (the view was out of date),
    the latest of the person's messages with exactly that text is used.

    Raises:
        RewindError: No such message.
    """
    indices = person_messages(messages)
    if 0 <= ordinal < len(indices) and message_text(messages[indices[ordinal]]) == text:
        return indices[ordinal]
    for index in reversed(indices):
        if message_text(messages[index]) == text:
            return index
    raise RewindError("That message is no longer in this chat.")


def earlier_key(key: str, now: datetime | None = None) -> str:
    """A new key for an earlier version of ``key`` (same channel)."""
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    return f"{key}~{stamp}-{secrets.token_hex(2)}"


def keep_earlier_version(sessions: SessionManager, session: Session, at: int) -> Session:
    """Save a copy of ``session`` as its earlier version (the original is not changed)."""
    now = datetime.now()
    metadata = {
        k: copy.deepcopy(v)
        for k, v in session.metadata.items()
        if k not in (PENDING, CHECKPOINT, EARLIER_VERSIONS)
    }
    metadata["title"] = f"{session.title}{EARLIER_SUFFIX}"
    metadata[FORKED_FROM] = {"key": session.key, "at": at, "created_at": now.isoformat()}
    earlier = Session(
        key=earlier_key(session.key, now),
        messages=copy.deepcopy(session.messages),
        created_at=session.created_at,
        updated_at=session.updated_at,  # sorts where the conversation was, not on top
        metadata=metadata,
        last_consolidated=session.last_consolidated,
    )
    earlier.repair()  # a turn left pending in the original is closed in the copy
    earlier.updated_at = session.updated_at
    sessions.save(earlier)
    return earlier


def rewind_to(sessions: SessionManager, key: str, index: int) -> Rewind:
    """Keep the conversation as an earlier version, then cut ``key`` before message ``index``.

    Raises:
        RewindError: ``index`` is not one of the person's messages.
    """
    session = sessions.get_or_create(key)
    if not 0 <= index < len(session.messages) or not is_person_message(session.messages[index]):
        raise RewindError("That message is no longer in this chat.")
    earlier = keep_earlier_version(sessions, session, index)
    message = session.messages[index]
    del session.messages[index:]
    session.metadata.pop(PENDING, None)
    session.metadata.pop(CHECKPOINT, None)
    session.last_consolidated = min(session.last_consolidated, index)
    versions = session.metadata.get(EARLIER_VERSIONS)
    if not isinstance(versions, list):
        versions = []
    versions.append({"key": earlier.key, "at": index, "created_at": datetime.now().isoformat()})
    session.metadata[EARLIER_VERSIONS] = versions
    session.updated_at = datetime.now()
    sessions.save(session)
    return Rewind(dict(message), earlier.key, index)


def regenerate(sessions: SessionManager, key: str) -> Rewind:
    """Rewind to the person's last message (its answer is kept in the earlier version).

    Raises:
        RewindError: The chat has no message of the person's.
    """
    session = sessions.get_or_create(key)
    indices = person_messages(session.messages)
    if not indices:
        raise RewindError("There is no message to answer again in this chat.")
    return rewind_to(sessions, key, indices[-1])


def edit(sessions: SessionManager, key: str, ordinal: int, text: str) -> Rewind:
    """Rewind to the person's ``ordinal``-th message (whose text was ``text``).

    Raises:
        RewindError: No such message.
    """
    session = sessions.get_or_create(key)
    return rewind_to(sessions, key, find_person_message(session.messages, ordinal, text))
