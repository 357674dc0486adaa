"""The session tools: ``list_sessions``, ``read_session``, ``search_sessions``,
``send_session_message`` (nanobot 0.3.5's names and arguments).

One chat can look into and write to another: the person asks in the window "what did I tell
the Telegram chat about the trip?", or mentions a chat by its handle (``@bodami``, see
:mod:`desktop.core.session.handles`). The tools work on the session files through the
agent's :class:`~desktop.core.session.manager.SessionManager`, in worker threads.

Privacy (decided here, not in nanobot, which lets every chat read every other): the chat a
call comes from is never listed or read (the model has it already), nor are subagent sessions;
a call from a chat network (Telegram, email…) reads or writes other chats only after the
person's approval (:func:`~desktop.core.agent.approval.approval_reason`: such a chat may have
other people in it, and what the window's chats hold is the person's), unless the approval mode
is autonomous (nanobot's behaviour). The window and the terminal are the person: no question.

What other chats hold is data, not instructions: every excerpt comes framed as untrusted.
A message sent to another chat starts a turn there (its answer goes to that chat's channel),
with the sender named in the text and 0.3.5's envelope (``_session_message``) saved on it.
At most ``tools.maxSessionMessagesPerMinute`` messages a minute leave one chat.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections import deque
from typing import Any, ClassVar

from desktop.core.bus.events import InboundMessage
from desktop.core.bus.queue import MessageBus
from desktop.core.session.edits import message_text
from desktop.core.session.handles import (
    SESSION_MESSAGE,
    Chat,
    find_chat,
    list_chats,
    remember_handle,
)
from desktop.core.session.manager import SessionManager
from desktop.core.session.naming import internal_source
from desktop.core.session.search import search_sessions
from desktop.core.tools.base import Tool, ToolContext, ToolResult
from desktop.core.tools.untrusted import frame
from desktop.core.utils.tasks import TaskOwner

GROUP = "sessions"
READ_LIMIT = 8
SEARCH_LIMIT = 5
MESSAGE_CHARS = 4_000
LIST_LIMIT = 100
MIN_REPLY_S, MAX_REPLY_S = 5, 60
# Real seconds per second of a reply window (1: as asked; a test may shorten the wait).
REPLY_WINDOW_SCALE = 1.0


def _excerpt(text: str, needle: str, limit: int) -> str:
    """``text`` on one line, cut to ``limit`` characters around the first ``needle``."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    at = flat.casefold().find(needle) if needle else -1
    start = max(0, min(at - limit // 3, len(flat) - limit)) if at >= 0 else 0
    return ("…" if start else "") + flat[start : start + limit] + "…"


def _visible(messages: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any], str]]:
    """``(index, message, text)`` of what a person sees: user and assistant text."""
    shown = []
    for index, message in enumerate(messages):
        if message.get("role") not in ("user", "assistant"):
            continue
        text = str(message.get("display") or message_text(message)).strip()
        if text:
            shown.append((index, message, text))
    return shown


class _SessionTool(Tool):
    """Shared: the session manager, finding a chat, the current one left out."""

    read_only: ClassVar[bool] = True
    group: ClassVar[str] = GROUP

    def __init__(self, sessions: SessionManager) -> None:
        self.sessions = sessions

    def _find(self, name: str, ctx: ToolContext) -> Chat | ToolResult:
        chat = find_chat(self.sessions, name)
        if chat is None:
            return ToolResult.error(f"Error: no chat {name!r}; list_sessions shows them")
        if chat.key == ctx.session_key.split("#", 1)[0]:
            return ToolResult.error("Error: that is this chat; its messages are already here")
        return chat


class ListSessionsTool(_SessionTool):
    """List the other chats by handle."""

    name: ClassVar[str] = "list_sessions"
    description: ClassVar[str] = "List your other chats: @handle, session key, title."

    async def execute(self, ctx: ToolContext, **_: Any) -> ToolResult:
        """The other chats, newest first."""
        chats = await asyncio.to_thread(list_chats, self.sessions)
        current = ctx.session_key.split("#", 1)[0]
        lines = [
            f"@{c.handle}\t{c.key}\t{c.title}\t{c.updated_at[:16]}"
            for c in chats
            if c.key != current
        ]
        if not lines:
            return ToolResult("(no other chats)")
        more = (
            f"\n({len(lines) - LIST_LIMIT} older chats not shown)"
            if len(lines) > LIST_LIMIT
            else ""
        )
        return ToolResult(frame("\n".join(lines[:LIST_LIMIT]), "chat list") + more)


class ReadSessionTool(_SessionTool):
    """Read the latest (or matching) messages of another chat."""

    name: ClassVar[str] = "read_session"
    description: ClassVar[str] = (
        "Read another chat's latest user/assistant messages (or those containing query)."
    )
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "session_key": {"type": "string", "minLength": 1, "description": "Key or @handle"},
            "query": {"type": "string", "description": "Literal text filter"},
        },
        "required": ["session_key"],
    }

    def _read(self, chat: Chat, query: str) -> dict[str, Any]:
        session = self.sessions.get_or_create(chat.key)
        needle = query.casefold()
        picked = [
            (index, message, text)
            for index, message, text in _visible(session.messages)
            if not needle or needle in text.casefold()
        ][-READ_LIMIT:]
        remember_handle(self.sessions, chat)
        return {
            "session_key": chat.key,
            "handle": f"@{chat.handle}",
            "title": chat.title,
            "updated_at": chat.updated_at,
            "query": query or None,
            "messages": [
                {
                    "message_index": index,
                    "role": message.get("role"),
                    "from": internal_source(message) or message.get("role"),
                    "timestamp": message.get("timestamp"),
                    "content": _excerpt(text, needle, MESSAGE_CHARS),
                }
                for index, message, text in picked
            ],
        }

    async def execute(
        self, ctx: ToolContext, *, session_key: str, query: str = "", **_: Any
    ) -> ToolResult:
        """Up to 8 messages of the chat, as JSON framed as untrusted."""
        query = query.strip()
        if query in ("*", ".*"):
            return ToolResult.error("Error: query is literal text; leave it out for the latest")
        chat = await asyncio.to_thread(self._find, session_key, ctx)
        if isinstance(chat, ToolResult):
            return chat
        found = await asyncio.to_thread(self._read, chat, query)
        if not found["messages"]:
            what = f" containing {query!r}" if query else ""
            return ToolResult(f"(no messages{what} in @{chat.handle})")
        body = json.dumps(found, ensure_ascii=False)
        return ToolResult(frame(body, f"chat @{chat.handle}"))


class SearchSessionsTool(_SessionTool):
    """Find other chats by title or message text."""

    name: ClassVar[str] = "search_sessions"
    description: ClassVar[str] = "Search your other chats' titles and messages for text."
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {"query": {"type": "string", "minLength": 1}},
        "required": ["query"],
    }

    def _search(self, query: str, current: str) -> list[dict[str, Any]]:
        chats = {c.key: c for c in list_chats(self.sessions)}
        results = []
        for hit in search_sessions(self.sessions, query):
            chat = chats.get(hit.key)
            if chat is None or hit.key == current:
                continue
            results.append(
                {
                    "session_key": hit.key,
                    "handle": f"@{chat.handle}",
                    "title": chat.title,
                    "updated_at": chat.updated_at,
                    "match": "title" if hit.message_index < 0 else "message",
                    "message_index": hit.message_index,
                    "excerpt": hit.snippet,
                }
            )
            if len(results) >= SEARCH_LIMIT:
                break
        return results

    async def execute(self, ctx: ToolContext, *, query: str, **_: Any) -> ToolResult:
        """Up to 5 chats with where the text was found."""
        if not query.strip():
            return ToolResult.error("Error: query must not be empty")
        current = ctx.session_key.split("#", 1)[0]
        results = await asyncio.to_thread(self._search, query.strip(), current)
        if not results:
            return ToolResult(f"No other chat mentions {query.strip()!r}.")
        body = json.dumps({"query": query.strip(), "results": results}, ensure_ascii=False)
        return ToolResult(frame(body, "chat search") + "\nread_session shows more of a chat.")


class SendSessionMessageTool(_SessionTool):
    """Send a message into another chat: it starts a turn there."""

    name: ClassVar[str] = "send_session_message"
    description: ClassVar[str] = (
        "Message another chat by @handle; its agent answers there. expect_reply: be told "
        "if no reply comes back in reply_timeout_seconds."
    )
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "to": {"type": "string", "minLength": 1},
            "content": {"type": "string", "minLength": 1},
            "expect_reply": {"type": "boolean"},
            "reply_timeout_seconds": {
                "type": "integer",
                "minimum": MIN_REPLY_S,
                "maximum": MAX_REPLY_S,
            },
        },
        "required": ["to", "content", "expect_reply"],
    }
    read_only: ClassVar[bool] = False

    def __init__(
        self,
        sessions: SessionManager,
        bus: MessageBus,
        owner: TaskOwner,
        *,
        per_minute: int = 6,
    ) -> None:
        super().__init__(sessions)
        self.bus = bus
        self.owner = owner
        self.per_minute = per_minute
        self._sent: dict[str, deque[float]] = {}
        self._waiting: dict[tuple[str, str], asyncio.Task[None]] = {}

    def _allowed(self, source: str) -> bool:
        now = time.monotonic()
        sent = self._sent.setdefault(source, deque())
        while sent and sent[0] <= now - 60:
            sent.popleft()
        if len(sent) >= self.per_minute:
            return False
        sent.append(now)
        return True

    def _resolve(self, to: str, ctx: ToolContext) -> tuple[Chat, Chat] | ToolResult:
        target = self._find(to, ctx)
        if isinstance(target, ToolResult):
            return target
        source = find_chat(self.sessions, ctx.session_key.split("#", 1)[0])
        if source is None:
            return ToolResult.error("Error: this chat has no saved messages yet to sign with")
        remember_handle(self.sessions, target)
        remember_handle(self.sessions, source)
        return source, target

    async def execute(
        self,
        ctx: ToolContext,
        *,
        to: str,
        content: str,
        expect_reply: bool = False,
        reply_timeout_seconds: int | None = None,
        **_: Any,
    ) -> ToolResult:
        """Publish ``content`` to the chat ``to``; maybe wait for its reply."""
        if expect_reply and reply_timeout_seconds is None:
            return ToolResult.error(
                f"Error: expect_reply needs reply_timeout_seconds ({MIN_REPLY_S}-{MAX_REPLY_S})"
            )
        pair = await asyncio.to_thread(self._resolve, to, ctx)
        if isinstance(pair, ToolResult):
            return pair
        source, target = pair
        channel, _sep, chat_id = target.key.partition(":")
        if not chat_id:
            return ToolResult.error(f"Error: @{target.handle} ({target.key}) cannot take messages")
        if not self._allowed(source.key):
            return ToolResult.error(
                f"Error: at most {self.per_minute} session messages a minute; wait and retry"
            )
        envelope = {
            "message_id": uuid.uuid4().hex,
            "created_at_ms": int(time.time() * 1000),
            "expect_reply": expect_reply,
            "source_handle": source.handle,
            "source_session_key": source.key,
            "target_session_key": target.key,
        }
        ask = f" (reply with send_session_message to @{source.handle})" if expect_reply else ""
        text = f"[Message from chat @{source.handle} ({source.title}){ask}]\n{content}"
        self._answered(source.key, target.key)
        if expect_reply:  # before the message goes out: its answer may come at once
            assert reply_timeout_seconds is not None
            self._wait_for_reply(source, target, reply_timeout_seconds)
        await self.bus.publish_inbound(
            InboundMessage(
                channel,
                f"session:@{source.handle}",
                chat_id,
                text,
                metadata={SESSION_MESSAGE: envelope},
                session_key_override=target.key,
            )
        )
        if not expect_reply:
            return ToolResult(f"Sent to @{target.handle}.")
        return ToolResult(
            f"Sent to @{target.handle}. If it does not reply within {reply_timeout_seconds}s, "
            "a notice arrives in this chat."
        )

    def _answered(self, sender: str, receiver: str) -> None:
        """``sender`` wrote to ``receiver``: a reply ``receiver`` was waiting for came."""
        waiting = self._waiting.pop((receiver, sender), None)
        if waiting is not None:
            waiting.cancel()

    def _wait_for_reply(self, source: Chat, target: Chat, seconds: int) -> None:
        pair = (source.key, target.key)
        earlier = self._waiting.pop(pair, None)
        if earlier is not None:
            earlier.cancel()

        async def notice() -> None:
            await asyncio.sleep(seconds * REPLY_WINDOW_SCALE)  # the window the model asked for
            self._waiting.pop(pair, None)
            channel, _, chat_id = source.key.partition(":")
            await self.bus.publish_inbound(
                InboundMessage(
                    channel,
                    "session:timeout",
                    chat_id,
                    f"[No reply from chat @{target.handle} after {seconds} seconds.]",
                    session_key_override=source.key,
                )
            )

        task = self.owner.try_spawn(notice(), name=f"session-reply:{source.key}")
        if task is not None:
            self._waiting[pair] = task


def session_tools(
    sessions: SessionManager, bus: MessageBus, owner: TaskOwner, *, per_minute: int = 6
) -> list[Tool]:
    """One instance of each session tool."""
    return [
        ListSessionsTool(sessions),
        ReadSessionTool(sessions),
        SearchSessionsTool(sessions),
        SendSessionMessageTool(sessions, bus, owner, per_minute=per_minute),
    ]
