"""Consolidator: keep a session's request inside the context window by archiving old turns.

The prompt budget is ``context_window - max_tokens - safety_buffer`` (the same rule as the
runner). When the request the agent would send next is over budget, the oldest whole turns
after ``session.last_consolidated`` are summarised by the model (a few dated bullet points),
the summary is appended to ``memory/history.jsonl`` and ``last_consolidated`` moves past them.
Rounds repeat (at most ``max_rounds``) until the request is under half the budget. The session
file itself keeps every message; only the replayed window shrinks, and the summaries come back
through the system prompt's ``# Recent History``.

Archives always end right before a user message, so an assistant/tool exchange is never cut
in half. A failed summary call archives the messages verbatim (compact, with a ``[RAW]``
marker), so nothing is lost. One consolidation per session runs at a time.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import Callable
from typing import Any

from desktop.core.engine.runner import budget_for
from desktop.core.memory.store import MemoryStore
from desktop.core.providers.base import LLMError, LLMProvider
from desktop.core.providers.switchable import usage_scope
from desktop.core.providers.tokens import (
    count_messages,
    count_text,
    count_tools,
    message_tokens,
    surely_within,
)
from desktop.core.session.compaction import (
    archivable,
    commit_checkpoint,
    is_checkpoint,
    last_summary,
)
from desktop.core.session.manager import Session, SessionManager
from desktop.core.utils.resources import read_template

log = logging.getLogger(__name__)

RequestBuilder = Callable[[Session], tuple[list[dict[str, Any]], list[dict[str, Any]] | None]]

RAW_MARKER = "[RAW]"
RAW_MAX_CHARS = 16_000
SUMMARY_MAX_TOKENS = 1024
TOOL_RESULT_CHARS = 500
MESSAGE_CHARS = 4000
ARGUMENT_CHARS = 200


# -- transcript ---------------------------------------------------------------------------
def _clip(text: str, limit: int) -> str:
    text = text.strip()
    return (
        text
        if len(text) <= limit
        else text[:limit].rstrip() + f" … [{len(text) - limit} more chars]"
    )


def _text_of(content: Any) -> str:
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict) and part.get("type") == "text":
                parts.append(str(part.get("text", "")))
            elif isinstance(part, dict):
                parts.append(f"[{part.get('type', 'attachment')}]")
        return " ".join(parts)
    return "" if content is None else str(content)


def _calls_of(message: dict[str, Any]) -> str:
    calls = []
    for call in message.get("tool_calls") or []:
        function = (call.get("function") or {}) if isinstance(call, dict) else {}
        arguments = function.get("arguments", "")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False)
        calls.append(f"{function.get('name', '?')}({_clip(arguments, ARGUMENT_CHARS)})")
    return f" [called {', '.join(calls)}]" if calls else ""


def render_transcript(messages: list[dict[str, Any]]) -> str:
    """A compact one-line-per-message text of ``messages``.

    ``[YYYY-MM-DD HH:MM] ROLE: text``; assistant tool calls are listed with clipped
    arguments, tool results are clipped to a few hundred characters, images become
    ``[image_url]``.
    """
    lines = []
    for message in messages:
        if is_checkpoint(message):  # a compaction's marker, not conversation
            continue
        role = str(message.get("role") or "unknown")
        stamp = str(message.get("timestamp") or "")[:16].replace("T", " ")
        text = _text_of(message.get("content"))
        if role == "tool":
            label = f"TOOL {message.get('name') or ''}".rstrip()
            body = _clip(text, TOOL_RESULT_CHARS)
        else:
            label = role.upper()
            body = _clip(text, MESSAGE_CHARS) + (_calls_of(message) if role == "assistant" else "")
        if not body.strip():
            continue
        lines.append(f"[{stamp or '?'}] {label}: {' '.join(body.split())}")
    return "\n".join(lines)


def raw_archive(messages: list[dict[str, Any]], max_chars: int = RAW_MAX_CHARS) -> str:
    """The fallback archive: ``[RAW] N messages`` and the transcript (bounded)."""
    return f"{RAW_MARKER} {len(messages)} messages\n" + _clip(
        render_transcript(messages), max_chars
    )


def _fit(text: str, max_tokens: int) -> str:
    """Shorten ``text`` from the middle until it is at most ``max_tokens`` tokens."""
    for _ in range(4):
        tokens = count_text(text)
        if tokens <= max_tokens:
            return text
        keep = max(200, int(len(text) * max_tokens / tokens * 0.9))
        half = keep // 2
        text = f"{text[:half]}\n… [{len(text) - keep} characters left out] …\n{text[-half:]}"
    return text


# -- boundaries ---------------------------------------------------------------------------
def turn_starts(messages: list[dict[str, Any]], start: int) -> list[int]:
    """Indices after ``start`` where a user turn begins (possible archive ends)."""
    return [i for i in range(start + 1, len(messages)) if messages[i].get("role") == "user"]


def choose_boundary(
    messages: list[dict[str, Any]],
    start: int,
    *,
    needed: int,
    max_messages: int,
    cost: Callable[[dict[str, Any]], int],
) -> int | None:
    """Where the next archive should end (exclusive), or ``None`` if nothing can go.

    The end is always the start of a user turn, so the newest turn is never archived. The
    earliest turn start that frees ``needed`` tokens wins; otherwise the furthest one within
    ``max_messages``. A single turn longer than ``max_messages`` is taken whole, since an
    archive never ends inside a turn.
    """
    best: int | None = None
    freed = 0
    previous = start
    for end in turn_starts(messages, start):
        if best is not None and end - start > max_messages:
            break
        freed += sum(cost(m) for m in messages[previous:end])
        previous = best = end
        if freed >= needed:
            break
    return best


def _archive_all_boundary(messages: list[dict[str, Any]], start: int, max_messages: int) -> int:
    """End of the next piece when everything after ``start`` is archived."""
    if len(messages) - start <= max_messages:
        return len(messages)
    starts = turn_starts(messages, start)
    within = [i for i in starts if i - start <= max_messages]
    if within:
        return within[-1]
    return starts[0] if starts else len(messages)


def _message_cost(message: dict[str, Any]) -> int:
    return message_tokens(message)  # remembered per message: rounds do not recount


class Consolidator:
    """Archives old turns of sessions to ``history.jsonl`` when requests grow too large.

    Args:
        provider: Model used for the summaries.
        store: The workspace's memory store.
        sessions: Session storage (sessions are saved after each round).
        context_window: The model's context size in tokens.
        max_tokens: Completion tokens reserved per call.
        safety_buffer: Extra headroom for estimation drift.
        max_rounds: Archive rounds per consolidation.
        max_messages_per_round: Messages summarised per round (whole turns only).
        build_request: Builds the request the agent would send next for a session:
            ``session -> (messages, tool definitions)``. Called in a worker thread.
    """

    def __init__(
        self,
        provider: LLMProvider,
        store: MemoryStore,
        sessions: SessionManager,
        *,
        context_window: int,
        max_tokens: int,
        safety_buffer: int = 1024,
        max_rounds: int = 5,
        max_messages_per_round: int = 60,
        build_request: RequestBuilder,
    ) -> None:
        self.provider = provider
        self.store = store
        self.sessions = sessions
        self.max_tokens = max_tokens
        self.safety_buffer = safety_buffer
        self.budget = budget_for(context_window, max_tokens, safety_buffer)
        self.target = self.budget // 2
        self.max_rounds = max_rounds
        self.max_messages_per_round = max_messages_per_round
        self.build_request = build_request
        self._locks: dict[str, asyncio.Lock] = {}

    def set_limits(self, *, context_window: int, max_tokens: int) -> None:
        """Use a new context window (the server reported its real one, the model changed)."""
        self.max_tokens = max_tokens
        self.budget = budget_for(context_window, max_tokens, self.safety_buffer)
        self.target = self.budget // 2

    def lock_for(self, key: str) -> asyncio.Lock:
        """The lock that serialises consolidation of one session."""
        return self._locks.setdefault(key, asyncio.Lock())

    def estimate(self, session: Session) -> int:
        """Prompt tokens of the request the agent would send next (blocking; use a thread).

        Message counts are remembered (the history copies are the same objects from turn to
        turn), so this costs a lookup per message after the first time.
        """
        messages, tools = self.build_request(session)
        return count_messages(messages) + count_tools(tools)

    def surely_fits(self, session: Session) -> bool:
        """Whether the next request is surely within budget, known without counting tokens
        (:func:`~desktop.core.providers.tokens.surely_within`; blocking; use a thread)."""
        messages, tools = self.build_request(session)
        return surely_within(messages, tools, self.budget)

    async def maybe_consolidate(self, session: Session) -> bool:
        """Archive old turns while the next request is over budget.

        Returns:
            Whether anything was archived.
        """
        async with self.lock_for(session.key):
            if await asyncio.to_thread(self.surely_fits, session):
                return False
            tokens = await asyncio.to_thread(self.estimate, session)
            if tokens <= self.budget:
                return False
            log.info(
                "session %s: request ~%d tokens, budget %d; consolidating",
                session.key,
                tokens,
                self.budget,
            )
            archived = False
            for _ in range(self.max_rounds):
                end = await asyncio.to_thread(
                    choose_boundary,
                    session.messages,
                    session.last_consolidated,
                    needed=tokens - self.target,
                    max_messages=self.max_messages_per_round,
                    cost=_message_cost,
                )
                if end is None or not await self._archive(session, end):
                    break
                archived = True
                tokens = await asyncio.to_thread(self.estimate, session)
                if tokens <= self.target:
                    break
            if tokens > self.budget:
                log.warning(
                    "session %s: still ~%d tokens after consolidation (budget %d)",
                    session.key,
                    tokens,
                    self.budget,
                )
            return archived

    async def archive_all(self, session: Session, end: int | None = None) -> None:
        """Archive every message after ``last_consolidated`` (``/new``; the window's "Archive
        into memory now"), or those before ``end`` (a pending turn's user message stays out)."""
        stop = len(session.messages) if end is None else min(end, len(session.messages))
        async with self.lock_for(session.key):
            while session.last_consolidated < stop:
                start = session.last_consolidated
                piece = _archive_all_boundary(
                    session.messages[:stop], start, self.max_messages_per_round
                )
                if not await self._archive(session, piece):
                    break

    async def compact(self, session: Session, end: int | None = None) -> bool:
        """Summarise what is not yet archived (before ``end``) into one checkpoint (``/compact``,
        idle compaction; nanobot 0.3.5's format, see :mod:`desktop.core.session.compaction`).

        The summary (which takes in the previous one) is appended to ``history.jsonl`` like
        every archive; the session keeps every message, gets the checkpoint after the
        summarised ones and replays from there. A failed summary call keeps the messages
        verbatim (``[RAW]``), as archives do.

        Returns:
            Whether anything was compacted (``False``: nothing new since the last archive).
        """
        async with self.lock_for(session.key):
            stop = len(session.messages) if end is None else min(end, len(session.messages))
            chunk = [m for m in session.messages[session.last_consolidated : stop] if archivable(m)]
            if not chunk:
                return False
            previous = last_summary(session.metadata)
            if previous is not None:
                earlier = {"role": "summary", "content": previous[0], "timestamp": previous[1]}
                chunk = [earlier, *chunk]
            with usage_scope(
                source="consolidation", session=session.key, run=uuid.uuid4().hex[:12]
            ):
                summary = await self.summarize(chunk)

            def commit() -> None:
                self.store.append_history(summary)
                commit_checkpoint(session, summary, stop)
                self.sessions.save(session)

            # One thread call: once the entry is written the session gets its checkpoint too.
            await asyncio.to_thread(commit)
            log.info("session %s: compacted %d messages", session.key, len(chunk))
            return True

    async def summarize(self, messages: list[dict[str, Any]]) -> str:
        """Dated bullet points for ``messages``; the ``[RAW]`` archive if the model fails."""

        def build() -> list[dict[str, Any]]:
            prompt = read_template("agent", "consolidation.md").strip()
            room = self.budget - count_text(prompt) - 64
            transcript = _fit(render_transcript(messages), room)
            return [{"role": "system", "content": prompt}, {"role": "user", "content": transcript}]

        request = await asyncio.to_thread(build)
        try:
            limit = min(self.max_tokens, SUMMARY_MAX_TOKENS)
            response = await self.provider.chat(request, None, max_tokens=limit)
        except LLMError as exc:
            log.warning(
                "summary call failed (%s); archiving %d messages raw", exc.message, len(messages)
            )
            return raw_archive(messages)
        summary = (response.content or "").strip()
        if not summary:
            log.warning("summary call returned nothing; archiving %d messages raw", len(messages))
            return raw_archive(messages)
        return summary

    async def _archive(self, session: Session, end: int) -> bool:
        """Summarise ``messages[last_consolidated:end]``, append it, advance and save."""
        chunk = session.messages[session.last_consolidated : end]
        if not chunk:
            return False
        with usage_scope(source="consolidation", session=session.key, run=uuid.uuid4().hex[:12]):
            content = await self.summarize(chunk)

        def commit() -> None:
            self.store.append_history(content)
            session.last_consolidated = end
            self.sessions.save(session)

        try:
            # One thread call: once the entry is written, the session moves past it too,
            # even if our caller is cancelled meanwhile.
            await asyncio.to_thread(commit)
        except OSError:
            log.exception("could not archive %d messages of %s", len(chunk), session.key)
            return False
        return True
