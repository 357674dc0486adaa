"""Mochat's wire formats, as nanobot speaks them: targets, events and message text.

Sessions are direct (or small private group) chats with ids ``session_…``; panels are the
channels of a group (any other id; ``panel:``, ``group:`` or ``channel:`` in front forces a
panel). Messages arrive over Socket.IO as

* ``claw.session.events`` / ``claw.panel.events``: ``{"sessionId", "cursor", "events": [{"seq",
  "type": "message.add", "timestamp", "payload": {"messageId", "author", "authorInfo",
  "content", "meta", "groupId", "converseId"}}]}`` (a panel's id is in ``sessionId`` too);
* ``notify:chat.message.add``: one panel message ``{"_id", "groupId", "converseId", "author",
  "authorInfo", "content", "meta", "createdAt"}``;
* ``notify:chat.inbox.append``: ``{"type": "message", "payload": {"converseId", "messageId",
  "messageAuthor", "messagePlainContent"}}`` for a session, found by its ``converseId``.

This module turns those into :class:`Incoming` messages and never raises on odd input (a
malformed event becomes ``None``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

Kind = Literal["session", "panel"]
SESSION_PREFIX = "session_"
_PANEL_PREFIXES = ("panel:", "group:", "channel:")


@dataclass(frozen=True)
class Target:
    """Where an answer goes."""

    id: str
    kind: Kind


@dataclass(frozen=True)
class Incoming:
    """One message someone wrote.

    Attributes:
        kind: A session or a panel.
        target: The session or panel id (the chat id on the bus).
        message_id: Mochat's id of the message.
        author: The author's user id.
        text: What it says.
        group_id: The group of a panel message (``""`` in sessions).
        mentioned: Whether it mentions the agent.
        sender_name: The author's nickname (or e-mail), when known.
        agent_id: The author's agent id, when the author is an agent.
        timestamp: As sent (ISO 8601), when known.
        converse_id: The conversation id behind a session, when known.
    """

    kind: Kind
    target: str
    message_id: str
    author: str
    text: str
    group_id: str = ""
    mentioned: bool = False
    sender_name: str = ""
    agent_id: str = ""
    timestamp: str = ""
    converse_id: str = ""

    @property
    def key(self) -> str:
        """What identifies the message across restarts."""
        return f"{self.kind}:{self.target}:{self.message_id}"


def text_field(data: Any, *names: str) -> str:
    """The first non-empty text among ``names`` of ``data`` (stripped; ``""`` if none)."""
    if not isinstance(data, dict):
        return ""
    for name in names:
        value = data.get(name)
        if isinstance(value, str) and value.strip():
            return value.strip()
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
    return ""


def resolve_target(chat_id: str) -> Target:
    """The session or panel a chat id names (``mochat:``/``panel:``… prefixes allowed)."""
    raw = (chat_id or "").strip()
    forced_panel = False
    lowered = raw.lower()
    if lowered.startswith("mochat:"):
        raw = raw[len("mochat:") :].strip()
        lowered = raw.lower()
    for prefix in _PANEL_PREFIXES:
        if lowered.startswith(prefix):
            raw, forced_panel = raw[len(prefix) :].strip(), True
            break
    if raw.startswith(SESSION_PREFIX):
        return Target(raw, "session")
    return Target(raw, "panel" if raw or forced_panel else "session")


def content_text(content: Any) -> str:
    """Message content as text (structured content as JSON, as nanobot passes it)."""
    if isinstance(content, str):
        return content.strip()
    if content is None:
        return ""
    try:
        return json.dumps(content, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(content)


def _mention_ids(value: Any) -> list[str]:
    found: list[str] = []
    if not isinstance(value, list):
        return found
    for item in value:
        if isinstance(item, str) and item.strip():
            found.append(item.strip())
        elif isinstance(item, dict):
            ident = text_field(item, "id", "userId", "_id")
            if ident:
                found.append(ident)
    return found


def mentions(payload: dict[str, Any], agent_user_id: str) -> bool:
    """Whether a message payload mentions the agent (its ``meta`` flags or ids, or
    ``@<id>`` / ``<@id>`` in the text)."""
    meta = payload.get("meta")
    if isinstance(meta, dict):
        if meta.get("mentioned") is True or meta.get("wasMentioned") is True:
            return True
        if agent_user_id:
            for name in ("mentions", "mentionIds", "mentionedUserIds", "mentionedUsers"):
                if agent_user_id in _mention_ids(meta.get(name)):
                    return True
    content = payload.get("content")
    if not agent_user_id or not isinstance(content, str):
        return False
    return f"@{agent_user_id}" in content


def from_payload(
    kind: Kind, target: str, payload: Any, agent_user_id: str, *, timestamp: str = ""
) -> Incoming | None:
    """A message from a ``message.add`` payload (``None`` when it is not usable)."""
    if not isinstance(payload, dict) or not target:
        return None
    author = text_field(payload, "author")
    message_id = text_field(payload, "messageId", "_id")
    if not author or not message_id:
        return None
    info = payload.get("authorInfo")
    return Incoming(
        kind=kind,
        target=target,
        message_id=message_id,
        author=author,
        text=content_text(payload.get("content")),
        group_id=text_field(payload, "groupId"),
        mentioned=mentions(payload, agent_user_id),
        sender_name=text_field(info, "nickname", "email"),
        agent_id=text_field(info, "agentId"),
        timestamp=timestamp or text_field(payload, "createdAt"),
        converse_id=text_field(payload, "converseId"),
    )


@dataclass(frozen=True)
class WatchBatch:
    """A ``claw.*.events`` payload: the target, its new cursor and its messages."""

    kind: Kind
    target: str
    cursor: int | None
    messages: list[Incoming]
    skipped: int
    """Events that were not usable messages of a known type (logged by the caller)."""


def watch_batch(kind: Kind, data: Any, agent_user_id: str) -> WatchBatch | None:
    """Parse a ``claw.session.events`` / ``claw.panel.events`` payload (``None``: unusable)."""
    if not isinstance(data, dict):
        return None
    target = text_field(data, "sessionId", "panelId")
    if not target:
        return None
    cursor = data.get("cursor")
    top = (
        cursor if isinstance(cursor, int) and not isinstance(cursor, bool) and cursor >= 0 else None
    )
    events = data.get("events")
    messages: list[Incoming] = []
    skipped = 0
    for event in events if isinstance(events, list) else ():
        if not isinstance(event, dict):
            skipped += 1
            continue
        seq = event.get("seq")
        if isinstance(seq, int) and not isinstance(seq, bool) and (top is None or seq > top):
            top = seq
        if event.get("type") != "message.add":
            continue  # edits, recalls…: nothing to answer
        stamp = event.get("timestamp")
        found = from_payload(
            kind,
            target,
            event.get("payload"),
            agent_user_id,
            timestamp=stamp if isinstance(stamp, str) else "",
        )
        if found is None:
            skipped += 1
        else:
            messages.append(found)
    return WatchBatch(kind, target, top, messages, skipped)


def panel_notice(data: Any, agent_user_id: str) -> Incoming | None:
    """A panel message from ``notify:chat.message.add`` (``None``: not a panel message)."""
    if not isinstance(data, dict) or not text_field(data, "groupId"):
        return None
    panel = text_field(data, "converseId", "panelId")
    return from_payload("panel", panel, data, agent_user_id)


def inbox_notice(data: Any, agent_user_id: str, session: str) -> Incoming | None:
    """A session message from ``notify:chat.inbox.append`` (its session id already looked
    up from the ``converseId``)."""
    if not isinstance(data, dict) or data.get("type") != "message":
        return None
    detail = data.get("payload")
    if not isinstance(detail, dict) or text_field(detail, "groupId"):
        return None
    payload = {
        "messageId": text_field(detail, "messageId") or text_field(data, "_id"),
        "author": text_field(detail, "messageAuthor"),
        "content": text_field(detail, "messagePlainContent", "messageSnippet"),
        "converseId": text_field(detail, "converseId"),
        "createdAt": text_field(data, "createdAt"),
    }
    return from_payload("session", session, payload, agent_user_id)


def inbox_converse(data: Any) -> str:
    """The ``converseId`` of a ``notify:chat.inbox.append`` message (``""`` if none)."""
    if not isinstance(data, dict):
        return ""
    return text_field(data.get("payload"), "converseId")


def combined_text(messages: list[Incoming]) -> str:
    """Several panel messages handed over as one: each line labelled with its author."""
    if len(messages) == 1:
        return messages[0].text
    lines = []
    for message in messages:
        if message.text:
            label = message.sender_name or message.agent_id or message.author
            lines.append(f"{label}: {message.text}")
    return "\n".join(lines)
