"""Search chats and say where the match is: a snippet around it and the message it is in.

Blocking (it reads session files): call it from a worker thread. Files are scanned line by line
with a cheap pre-filter on the raw line, as :meth:`SessionManager.search` does, so a large chat
history is not parsed whole; sessions in the manager's cache (unsaved changes) are searched in
memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from desktop.core.session.edits import message_text
from desktop.core.session.manager import SessionManager, SessionSummary
from desktop.core.utils.validate import Unusable, open_regular_file, parse_json

SNIPPET_CONTEXT = 40


@dataclass(frozen=True)
class SearchHit:
    """Where ``query`` was found in one chat.

    Attributes:
        key: The session.
        snippet: The text around the first match (one line; ``…`` where it was cut).
        start: Where the match starts in :attr:`snippet`.
        length: The match's length in :attr:`snippet`.
        message_index: The message it is in (``-1``: the title matched).
    """

    key: str
    snippet: str
    start: int
    length: int
    message_index: int


def snippet(text: str, at: int, length: int, context: int = SNIPPET_CONTEXT) -> tuple[str, int]:
    """``text`` (one line) cut to ``context`` characters around ``text[at:at+length]``, at word
    boundaries; returns it and where the match starts in it."""
    begin = max(0, at - context)
    end = min(len(text), at + length + context)
    if begin > 0:
        space = text.find(" ", begin, at)
        begin = space + 1 if space >= 0 else begin
    if end < len(text):
        space = text.rfind(" ", at + length, end)
        end = space if space > 0 else end
    prefix = "…" if begin > 0 else ""
    suffix = "…" if end < len(text) else ""
    return prefix + text[begin:end] + suffix, at - begin + len(prefix)


def _hit_in(key: str, messages: Any, needle: str) -> SearchHit | None:
    for index, message in messages:
        if not isinstance(message, dict) or message.get("_type"):
            continue
        if message.get("role") not in ("user", "assistant"):
            continue
        text = " ".join(str(message.get("display") or message_text(message)).split())
        at = text.casefold().find(needle)
        if at >= 0:
            line, start = snippet(text, at, len(needle))
            return SearchHit(key, line, start, len(needle), index)
    return None


def _scan_file(summary: SessionSummary, needle: str) -> SearchHit | None:
    def lines() -> Any:
        try:
            opened = open_regular_file(summary.path, root=summary.path.parent)
        except Unusable:
            return
        if opened is None:
            return
        with opened as handle:
            handle.readline()  # the metadata line
            index = -1
            for raw in handle:
                if not raw.strip():
                    continue
                index += 1  # the message's index, as the session manager numbers them
                if needle not in raw.decode("utf-8", "replace").casefold():
                    continue  # cheap pre-filter (escapes may hide a few matches; fine)
                try:
                    yield index, parse_json(raw)
                except ValueError:
                    continue

    try:
        return _hit_in(summary.key, lines(), needle)
    except OSError:
        return None


def search_sessions(sessions: SessionManager, query: str, limit: int = 200) -> list[SearchHit]:
    """Chats whose title or messages contain ``query`` (case-insensitive), newest first.

    A message match wins over a title match (it says where to jump).
    """
    needle = query.casefold().strip()
    if not needle:
        return []
    hits: list[SearchHit] = []
    for summary in sessions.summaries():
        cached = sessions.cached(summary.key)
        if cached is not None:
            hit = _hit_in(summary.key, enumerate(cached), needle)
        elif summary.path.exists():
            hit = _scan_file(summary, needle)
        else:
            hit = None
        if hit is None:
            at = summary.title.casefold().find(needle)
            if at >= 0:
                title = " ".join(summary.title.split())
                line, start = snippet(title, title.casefold().find(needle), len(needle))
                hit = SearchHit(summary.key, line, start, len(needle), -1)
        if hit is not None:
            hits.append(hit)
            if len(hits) >= limit:
                break
    return hits
