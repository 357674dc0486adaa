"""Short public handles for chats (``@bodami``), shared with nanobot 0.3.5.

The session tools name other chats by handle, as nanobot 0.3.5 does: 4–16 lowercase letters,
kept in the session's metadata under ``session_handle`` (0.3.5's key), so both programs call a
chat by the same name. A chat without a stored handle gets one derived from its key (a few
consonant–vowel syllables from a hash: the same key gives the same name), unless another chat
holds that name; the handle is stored the first time a tool uses it
(:func:`remember_handle`). Only chats a person takes part in get handles: subagent sessions
(``…#sub-1``) are left out.

This module also holds the envelope a session message carries (0.3.5's
``_session_message`` metadata), so the receiving chat knows who wrote.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any

from desktop.core.session.manager import SessionManager

HANDLE_KEY = "session_handle"
SESSION_MESSAGE = "_session_message"
_HANDLE = re.compile(r"^[a-z]{4,16}$")
_CONSONANTS = "bdfgklmnprstvz"
_VOWELS = "aeiou"


@dataclass(frozen=True)
class Chat:
    """A chat the session tools can name.

    Attributes:
        key: Its session key (``telegram:42``).
        handle: Its handle without ``@``.
        title: Its title.
        updated_at: ISO time of its last activity.
        stored: Whether the handle is already in its metadata.
    """

    key: str
    handle: str
    title: str
    updated_at: str
    stored: bool


def normalize_handle(value: str) -> str | None:
    """``"@Bodami "`` → ``"bodami"``; ``None`` when it is not a handle."""
    name = value.strip().removeprefix("@").casefold()
    return name if _HANDLE.fullmatch(name) else None


def derived_handle(key: str, attempt: int = 0) -> str:
    """A pronounceable name for ``key`` (three syllables; more after collisions)."""
    digest = hashlib.sha256(f"{key}\0{attempt}".encode()).digest()
    syllables = 3 + min(attempt // 8, 3)
    return "".join(
        _CONSONANTS[digest[2 * i] % len(_CONSONANTS)] + _VOWELS[digest[2 * i + 1] % len(_VOWELS)]
        for i in range(syllables)
    )


def _stored_handle(metadata: Any) -> str | None:
    raw = metadata.get(HANDLE_KEY) if isinstance(metadata, dict) else None
    return normalize_handle(raw) if isinstance(raw, str) else None


def list_chats(sessions: SessionManager) -> list[Chat]:
    """Every chat with its handle, newest activity first (blocking: reads session heads).

    Stored handles win; a duplicate stored name (two files copied around) keeps it for the
    older chat and derives a new one for the other, as a missing one is derived.
    """
    from desktop.core.session.validate import read_session_header

    summaries = [s for s in sessions.summaries() if "#" not in s.key]
    stored: dict[str, str] = {}
    created: dict[str, str] = {}
    for summary in summaries:
        cached = sessions.cached_metadata(summary.key)
        if cached is None:
            opened = read_session_header(summary.path)
            if opened is None:
                continue
            header, handle = opened
            handle.close()
            cached = header.metadata
            created[summary.key] = header.created_at.isoformat() if header.created_at else ""
        kept = _stored_handle(cached)
        if kept is not None:
            stored[summary.key] = kept
    used: set[str] = set()
    names: dict[str, str] = {}
    for key in sorted(stored, key=lambda k: (created.get(k, ""), k)):
        if stored[key] not in used:
            names[key] = stored[key]
            used.add(stored[key])
    for summary in summaries:
        if summary.key in names:
            continue
        attempt = 0
        while (name := derived_handle(summary.key, attempt)) in used:
            attempt += 1
        names[summary.key] = name
        used.add(name)
    return [
        Chat(s.key, names[s.key], s.title, s.updated_at, stored.get(s.key) == names[s.key])
        for s in summaries
        if s.key in names
    ]


def find_chat(sessions: SessionManager, name: str) -> Chat | None:
    """The chat called ``name`` (a handle, with or without ``@``, or a session key)."""
    chats = list_chats(sessions)
    handle = normalize_handle(name)
    for chat in chats:
        if chat.key == name.strip() or (handle is not None and chat.handle == handle):
            return chat
    return None


def remember_handle(sessions: SessionManager, chat: Chat) -> None:
    """Store ``chat``'s handle in its metadata (blocking), unless it is there already or the
    chat has a turn in progress (its own save will come; the name stays derivable)."""
    if chat.stored:
        return
    session = sessions.get_or_create(chat.key)
    if session.has_pending_turn or _stored_handle(session.metadata) is not None:
        return
    session.metadata[HANDLE_KEY] = chat.handle
    sessions.save(session)
