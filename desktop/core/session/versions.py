"""Versions of a conversation inside its own session file (regenerate, edit and resend).

Regenerating an answer or editing a sent message starts a new *version* of the conversation
from one of the person's messages (the *fork point*, a message index ``at``). The session's
message list is always the version being shown: that is what nanobot reads as the
conversation, what the model is sent and what memory archives. The other versions are kept
in a field nanobot ignores:

* fork point ``at > 0``: on the message just before it (``messages[at - 1]``, which every
  version shares), under :data:`VERSIONS`;
* fork point ``0`` (the first message was edited): in the session's metadata, under the same
  name.

nanobot 0.3.5 copies only ``role``, ``content``, ``tool_calls``, ``tool_call_id``, ``name``,
``reasoning_content`` and ``thinking_blocks`` of a message into a request, keeps unknown keys
of messages and metadata when it saves, and never looks inside them: the versions survive a
turn run by nanobot and never reach a model. A later fork inside a kept version stays inside
that version's messages (versions nest like the conversation's own tree).

The record::

    {"current": 1, "versions": [{"messages": [...], "saved_at": "…", "title": "…"}, null]}

``versions`` are in the order they were made; the ``null`` entry (at ``current``) is the
version in the message list. ``title`` is kept for a fork at the person's first message,
where an automatic title describes the version (it is swapped back in with the version).

A record that would make its line too large for the readers (nanobot reads the metadata line
whole; the chat list reads at most :data:`~desktop.core.session.validate.HEADER_BYTES` of it)
is refused (:func:`keep_version` returns ``None``): the caller keeps that version as a session
of its own instead. A record or an entry that is not in this shape is never dropped: it is
kept as it is, and only showing that entry is refused.

These functions change a :class:`~desktop.core.session.model.Session` in memory; they never
mutate a message object in place (the saver compares messages by identity to find what it
must write), they replace it. Save the session afterwards, under the session lock.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from desktop.core.session.compaction import is_hidden
from desktop.core.session.model import Session
from desktop.core.session.naming import internal_source
from desktop.core.session.repair import repair_messages
from desktop.core.session.validate import check_message
from desktop.core.utils.i18n import QT_TR_NOOP

VERSIONS = "desktop_versions"
AUTO_TITLE = "title_auto"  # metadata flag: the title was made by the model
MAX_MESSAGE_BYTES = 8 * 1024 * 1024  # a message line (the readers stop at 16 MiB)
MAX_METADATA_BYTES = 256 * 1024  # the metadata line (the chat list reads 1 MiB of it)


class VersionError(LookupError):
    """The version asked for cannot be shown. The text says why."""


@dataclass(frozen=True)
class VersionInfo:
    """Where a conversation has versions, as the chat shows it.

    Attributes:
        at: The fork point (index of the first message of each version).
        current: The version shown, 1-based.
        total: How many versions there are.
    """

    at: int
    current: int
    total: int


def _record_value(session: Session, at: int) -> Any:
    if at == 0:
        return session.metadata.get(VERSIONS)
    if 0 < at <= len(session.messages):
        return session.messages[at - 1].get(VERSIONS)
    return None


def _normalized(value: Any) -> dict[str, Any] | None:
    """The record as ``{"current": int, "versions": list}`` with exactly one ``None`` entry
    at ``current`` — or ``None`` when there is none. Whatever does not fit is kept as an
    entry of its own (shown as damaged), never dropped."""
    if value is None:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("versions"), list):
        return {"current": 1, "versions": [value, None]}
    versions = list(value["versions"])
    current = value.get("current")
    slots = [i for i, entry in enumerate(versions) if entry is None]
    if not (isinstance(current, int) and not isinstance(current, bool) and current in slots):
        if slots:
            current = slots[-1]
        else:
            versions.append(None)
            current = len(versions) - 1
    # Extra empty slots carry nothing: they go.
    kept = [e for i, e in enumerate(versions) if e is not None or i == current]
    current = sum(1 for i, e in enumerate(versions[:current]) if e is not None)
    return {**value, "current": current, "versions": kept}


def record_at(session: Session, at: int) -> dict[str, Any] | None:
    """The versions record of fork point ``at`` (normalized), or ``None``."""
    return _normalized(_record_value(session, at))


def _store(session: Session, at: int, record: dict[str, Any]) -> None:
    if at == 0:
        session.metadata[VERSIONS] = record
        return
    anchor = dict(session.messages[at - 1])  # a new object: the saver sees the change
    anchor[VERSIONS] = record
    session.messages[at - 1] = anchor


def _line_bytes(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, default=str).encode("utf-8"))


def _fits(session: Session, at: int, record: dict[str, Any]) -> bool:
    if at == 0:
        return _line_bytes({**session.metadata, VERSIONS: record}) <= MAX_METADATA_BYTES
    return _line_bytes({**session.messages[at - 1], VERSIONS: record}) <= MAX_MESSAGE_BYTES


def is_person_message(message: dict[str, Any]) -> bool:
    """A user message the person wrote (not a reminder's prompt, the heartbeat's or a
    subagent's report: :func:`~desktop.core.session.naming.internal_source`; nor a
    compaction's hidden checkpoint)."""
    return (
        message.get("role") == "user"
        and internal_source(message) is None
        and not is_hidden(message)
    )


def first_person_index(messages: list[dict[str, Any]]) -> int | None:
    """Index of the person's first message (``None`` when they wrote none)."""
    return next((i for i, m in enumerate(messages) if is_person_message(m)), None)


def _settled(tail: list[dict[str, Any]], pending: bool) -> list[dict[str, Any]]:
    """A tail as it is kept: a turn left open in it is closed (as a repair would)."""
    repaired, _ = repair_messages(list(tail), interrupted=pending)
    return copy.deepcopy(repaired)


def keep_version(
    session: Session, at: int, *, pending: bool = False, title: str | None = None
) -> VersionInfo | None:
    """Keep ``messages[at:]`` as a version of fork point ``at`` and start a new, empty one
    there (the caller then cuts the message list at ``at``).

    Args:
        session: The session (changed in memory).
        at: The fork point.
        pending: The tail holds a turn that never finished (it is closed in the copy).
        title: The title to keep with the version (a fork at the person's first message).

    Returns:
        The new version's place, or ``None`` when the record would be too large (nothing was
        changed: keep the tail elsewhere).
    """
    if not 0 <= at <= len(session.messages):
        raise VersionError(QT_TR_NOOP("That message is no longer in this chat."))
    record = record_at(session, at) or {"current": 0, "versions": [None]}
    versions = list(record["versions"])
    entry: dict[str, Any] = {
        "messages": _settled(session.messages[at:], pending),
        "saved_at": datetime.now().isoformat(),
    }
    if title:
        entry["title"] = title
    versions[record["current"]] = entry
    versions.append(None)
    new = {**record, "current": len(versions) - 1, "versions": versions}
    if not _fits(session, at, new):
        return None
    _store(session, at, new)
    return VersionInfo(at, len(versions), len(versions))


def _usable(entry: Any) -> list[dict[str, Any]]:
    """The messages of a kept version, checked like a session file's lines."""
    if not isinstance(entry, dict) or not isinstance(entry.get("messages"), list):
        raise VersionError(
            QT_TR_NOOP("That version is damaged and cannot be shown (it is kept as it is).")
        )
    out: list[dict[str, Any]] = []
    for data in entry["messages"]:
        message, problems = check_message(data)
        if message is None or problems:
            raise VersionError(
                QT_TR_NOOP("That version is damaged and cannot be shown (it is kept as it is).")
            )
        out.append(copy.deepcopy(message))
    return out


def switch_version(session: Session, at: int, target: int) -> VersionInfo:
    """Show version ``target`` (0-based) of fork point ``at``; the shown one is kept.

    A fork at the person's first message of a chat titled automatically takes the title of
    the version it shows (the title the other version had is kept with it).

    Raises:
        VersionError: No such version, a damaged one, or a turn is pending in the session.
    """
    if session.has_pending_turn:
        raise VersionError(QT_TR_NOOP("Wait for the current answer (or stop it) first."))
    record = record_at(session, at)
    if record is None or not 0 <= target < len(record["versions"]):
        raise VersionError(QT_TR_NOOP("That version is no longer in this chat."))
    current = record["current"]
    if target == current:
        return VersionInfo(at, current + 1, len(record["versions"]))
    versions = list(record["versions"])
    incoming = versions[target]
    messages = _usable(incoming)
    outgoing: dict[str, Any] = {
        "messages": copy.deepcopy(session.messages[at:]),
        "saved_at": datetime.now().isoformat(),
    }
    titled = at == first_person_index(session.messages[: at + 1]) and (
        session.metadata.get(AUTO_TITLE) or not session.metadata.get("title")
    )
    if titled:
        if session.metadata.get("title"):
            outgoing["title"] = session.metadata["title"]
        title = incoming.get("title") if isinstance(incoming, dict) else None
        if isinstance(title, str) and title:
            session.metadata["title"] = title
            session.metadata[AUTO_TITLE] = True
        else:
            session.metadata.pop("title", None)
            session.metadata.pop(AUTO_TITLE, None)
    versions[current] = outgoing
    versions[target] = None
    new = {**record, "current": target, "versions": versions}
    session.messages = session.messages[:at] + messages
    _store(session, at, new)
    session.last_consolidated = min(session.last_consolidated, at)
    session.updated_at = datetime.now()
    return VersionInfo(at, target + 1, len(versions))


def fork_points(session: Session) -> dict[int, VersionInfo]:
    """Every fork point of the shown conversation with its versions, by message index."""
    points: dict[int, VersionInfo] = {}
    for at in range(len(session.messages) + 1):
        value = (
            session.metadata.get(VERSIONS) if at == 0 else session.messages[at - 1].get(VERSIONS)
        )
        if value is None:
            continue
        record = _normalized(value)
        if record is not None and len(record["versions"]) > 1:
            points[at] = VersionInfo(at, record["current"] + 1, len(record["versions"]))
    return points
