"""Regenerate an answer, or edit a sent message and send it again, keeping what was there.

Both rewind a session to one of the person's messages and hand that message back, so the
front end can send it (or its edited text) as a new turn through the bus. The conversation
as it was is never lost: it is kept as a *version* inside the same session file
(:mod:`desktop.core.session.versions`), where nanobot ignores it and the chat shows
"‹ 1/2 ›" on the message to switch between versions. The chat list keeps one entry per chat.

Only when a version is too large to keep inline (its line would outgrow what the readers
accept) is it copied to a session of its own instead, titled "… (version of <time>)" so the
chat list tells the copies apart; the two are linked by small metadata pointers
(``forked_from`` in the copy, ``earlier_versions`` in the original), which nanobot ignores.

Editing the person's first message of a chat titled automatically drops the title, so the
chat is titled again from the new exchange (the old title stays with the old version).

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
from desktop.core.session.versions import (
    AUTO_TITLE,
    VersionError,
    VersionInfo,
    first_person_index,
    is_person_message,
    keep_version,
    switch_version,
)
from desktop.core.utils.i18n import QT_TR_NOOP

EARLIER_SUFFIX = " (earlier version)"  # copies made before versions were kept inline
VERSION_OF = " (version of {when})"
FORKED_FROM = "forked_from"
EARLIER_VERSIONS = "earlier_versions"

__all__ = [
    "EARLIER_VERSIONS",
    "FORKED_FROM",
    "Rewind",
    "RewindError",
    "VersionError",
    "edit",
    "is_person_message",
    "message_text",
    "person_messages",
    "regenerate",
    "rewind_to",
    "show_version",
]


class RewindError(LookupError):
    """The message to rewind to is not (or no longer) in the session. The text says why."""


@dataclass(frozen=True)
class Rewind:
    """The result of a rewind.

    Attributes:
        message: The person's message the session was rewound to (now removed: send it, or its
            edited text, as the next turn). Keys as saved: ``content``, ``media``…
        earlier_key: The session that keeps the conversation as it was, when it was too large
            to keep as a version inside the chat (``""``: it is a version of this chat).
        index: Where the message was (the session now has exactly this many messages).
        version: The new version's place (``None`` when ``earlier_key`` holds the old one).
    """

    message: dict[str, Any]
    earlier_key: str
    index: int
    version: VersionInfo | None = None


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
    raise RewindError(QT_TR_NOOP("That message is no longer in this chat."))


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
        if k not in (PENDING, CHECKPOINT, EARLIER_VERSIONS, AUTO_TITLE)
    }
    when = session.updated_at.strftime("%d %b %H:%M")
    metadata["title"] = session.title + VERSION_OF.format(when=when)
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


def rewind_to(sessions: SessionManager, key: str, index: int, *, retitle: bool = False) -> Rewind:
    """Keep the conversation from message ``index`` on as a version, then cut ``key`` there.

    ``retitle``: an edit — when it is of the person's first message and the chat was titled
    automatically, the title goes with the old version (the chat is titled again).

    Raises:
        RewindError: ``index`` is not one of the person's messages.
    """
    session = sessions.get_or_create(key)
    if not 0 <= index < len(session.messages) or not is_person_message(session.messages[index]):
        raise RewindError(QT_TR_NOOP("That message is no longer in this chat."))
    message = session.messages[index]
    titled = (
        retitle
        and index == first_person_index(session.messages)
        and bool(session.metadata.get(AUTO_TITLE))
    )
    title = str(session.metadata.get("title") or "") if titled else None
    version = keep_version(session, index, pending=session.has_pending_turn, title=title)
    earlier = "" if version is not None else keep_earlier_version(sessions, session, index).key
    del session.messages[index:]
    session.metadata.pop(PENDING, None)
    session.metadata.pop(CHECKPOINT, None)
    session.last_consolidated = min(session.last_consolidated, index)
    if earlier:
        versions = session.metadata.get(EARLIER_VERSIONS)
        if not isinstance(versions, list):
            versions = []
        versions.append({"key": earlier, "at": index, "created_at": datetime.now().isoformat()})
        session.metadata[EARLIER_VERSIONS] = versions
    if titled:
        session.metadata.pop("title", None)
        session.metadata.pop(AUTO_TITLE, None)
    session.updated_at = datetime.now()
    sessions.save(session)
    return Rewind(dict(message), earlier, index, version)


def regenerate(sessions: SessionManager, key: str) -> Rewind:
    """Rewind to the person's last message (its answer is kept in the earlier version).

    Raises:
        RewindError: The chat has no message of the person's.
    """
    session = sessions.get_or_create(key)
    indices = person_messages(session.messages)
    if not indices:
        raise RewindError(QT_TR_NOOP("There is no message to answer again in this chat."))
    return rewind_to(sessions, key, indices[-1])


def edit(sessions: SessionManager, key: str, ordinal: int, text: str) -> Rewind:
    """Rewind to the person's ``ordinal``-th message (whose text was ``text``).

    Raises:
        RewindError: No such message.
    """
    session = sessions.get_or_create(key)
    index = find_person_message(session.messages, ordinal, text)
    return rewind_to(sessions, key, index, retitle=True)


def show_version(sessions: SessionManager, key: str, at: int, target: int) -> VersionInfo:
    """Show version ``target`` (0-based) of the conversation at fork point ``at`` and save.

    Raises:
        VersionError: No such version, a damaged one, or a turn is pending.
    """
    session = sessions.get_or_create(key)
    info = switch_version(session, at, target)
    sessions.save(session)
    return info
