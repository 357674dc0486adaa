"""@-mentions as structured references: another chat, a skill, an MCP server.

The window's composer offers chats, skills and MCP servers after ``@``; a picked one travels
with the message as data (``InboundMessage.metadata["mentions"]``: ``[{"kind", "ref"}]``), not
as text the model must guess at. The turn's runtime block then says what each one is and how
to use it (:func:`mention_notes`): a chat by its session key (and the session tools are
loaded), a skill by its ``SKILL.md`` to read first, an MCP server by name. A chat's ``@handle``
typed by hand (any channel) is still recognised as before.

The mentions reach the notes with the session's metadata under :data:`NOTES_KEY`, in a copy
made for that one request: they are never saved into the session's metadata.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast, get_args

from desktop.core.agent.context import RuntimeNotes
from desktop.core.engine.skills import Skill
from desktop.core.session.handles import list_chats
from desktop.core.session.manager import SessionManager
from desktop.core.tools.groups import MENTION

MENTIONS = "mentions"
"""The :attr:`InboundMessage.metadata` key of a message's structured mentions."""
NOTES_KEY = "_mentions"
"""Where the runtime notes find them (a request-only copy of the session's metadata)."""
MAX_MENTIONS = 20

Kind = Literal["chat", "skill", "mcp"]


@dataclass(frozen=True)
class Mention:
    """One structured mention.

    Attributes:
        kind: ``chat`` (``ref``: a session key), ``skill`` (a skill's name) or ``mcp`` (an
            MCP server's name).
        ref: What it points at.
    """

    kind: Kind
    ref: str

    def as_data(self) -> dict[str, str]:
        """The mention as message metadata."""
        return {"kind": self.kind, "ref": self.ref}


def parse(raw: object) -> list[Mention]:
    """The well-formed mentions in ``raw`` (message metadata; anything else is dropped),
    without repeats, at most :data:`MAX_MENTIONS`."""
    found: list[Mention] = []
    if not isinstance(raw, list):
        return found
    for item in raw[:MAX_MENTIONS]:
        if not isinstance(item, dict):
            continue
        kind, ref = item.get("kind"), item.get("ref")
        if kind in get_args(Kind) and isinstance(ref, str) and 0 < len(ref.strip()) <= 200:
            mention = Mention(cast(Kind, kind), ref.strip())
            if mention not in found:
                found.append(mention)
    return found


def with_mentions(metadata: dict[str, Any], raw: object) -> dict[str, Any]:
    """``metadata`` (the session's) plus a message's mentions, for one request's notes."""
    mentions = parse(raw)
    if not mentions:
        return metadata
    return {**metadata, NOTES_KEY: [m.as_data() for m in mentions]}


def mentions_chat(raw: object) -> bool:
    """Whether the mentions name another chat (its turn gets the session tools)."""
    return any(m.kind == "chat" for m in parse(raw))


def mention_notes(
    sessions: SessionManager,
    *,
    skills: Callable[[], Sequence[Skill]] = list,
    servers: Callable[[], Sequence[str]] = list,
) -> RuntimeNotes:
    """A runtime-notes provider: one line per mentioned chat, skill or MCP server.

    Args:
        sessions: Where chats are found (and their handles).
        skills: The skills installed now.
        servers: The MCP servers configured now.
    """

    def notes(text: str, metadata: dict[str, Any]) -> list[str]:
        mentions = parse(metadata.get(NOTES_KEY))
        typed = list(dict.fromkeys(n.casefold() for n in MENTION.findall(text)))
        if not mentions and not typed:
            return []
        lines: list[str] = []
        wants_chats = bool(typed) or any(m.kind == "chat" for m in mentions)
        chats = {c.key: c for c in list_chats(sessions)} if wants_chats else {}  # reads heads
        named = set()
        for mention in mentions:
            if mention.kind == "chat":
                chat = chats.get(mention.ref)
                if chat is None:
                    lines.append(f"Mentioned chat {mention.ref}: it no longer exists")
                    continue
                named.add(chat.handle)
                lines.append(_chat_line(chat.handle, chat.key, chat.title))
            elif mention.kind == "skill":
                skill = next((s for s in skills() if s.name == mention.ref), None)
                lines.append(
                    f"Mentioned skill {mention.ref}: read {skill.path} first and follow it for "
                    "this request"
                    if skill is not None
                    else f"Mentioned skill {mention.ref}: it is not installed"
                )
            else:
                lines.append(
                    f"Mentioned MCP server {mention.ref}: use the tools it provides for this "
                    "request"
                    if mention.ref in servers()
                    else f"Mentioned MCP server {mention.ref}: it is not configured"
                )
        by_handle = {c.handle: c for c in chats.values()}
        for handle in typed:  # typed by hand: as before
            chat = by_handle.get(handle)
            if chat is not None and handle not in named:
                lines.append(_chat_line(chat.handle, chat.key, chat.title))
        return lines

    return notes


def _chat_line(handle: str, key: str, title: str) -> str:
    return (
        f'Mentioned chat @{handle}: session {key}, "{title}" '
        "(read_session or send_session_message with its handle)"
    )
