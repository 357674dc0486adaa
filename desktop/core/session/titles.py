"""Automatic chat titles: one small model call after the first exchange.

The call goes through the runtime's provider tagged ``source="title"``
(:func:`desktop.core.providers.switchable.usage_source`), so the usage listeners of
:class:`~desktop.core.providers.switchable.SwitchableProvider` — where a spend ledger hooks in —
see it as a title call. It asks for a handful of tokens only.

A title the person set is never overwritten: the title is written only when the session has
none at that moment (checked again after the model answered, under the session lock).
"""

from __future__ import annotations

import re
from typing import Any

from desktop.core.providers.base import LLMProvider
from desktop.core.providers.sanitize import split_think
from desktop.core.providers.switchable import usage_source
from desktop.core.session.edits import is_person_message, message_text
from desktop.core.session.manager import Session
from desktop.core.session.naming import fixed_title
from desktop.core.session.versions import AUTO_TITLE

__all__ = ["AUTO_TITLE", "TITLE_SOURCE", "clean_title", "first_exchange", "suggest_title"]
TITLE_SOURCE = "title"
TITLE_MAX_TOKENS = 24
TITLE_CHARS = 60
EXCERPT_CHARS = 1500
PROMPT = (
    "Write a short title (at most six words) for the conversation below. "
    "Answer with the title only: no quotes, no punctuation at the end, no explanation."
)
_PREFIX = re.compile(r"^(title|chat title)\s*[:\-–]\s*", re.IGNORECASE)
_WRAPPERS = "\"'“”‘’`*#_ "
# Inline markdown inside the title: **bold**, __bold__, *em*, _em_, `code`, [text](link).
_INLINE = (
    (re.compile(r"\[([^\]]*)\]\([^)]*\)"), r"\1"),
    (re.compile(r"(\*\*|__|`)(.+?)\1"), r"\2"),
    (re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])"), r"\1"),
    (re.compile(r"(?<![\w_])_(?!\s)(.+?)(?<!\s)_(?![\w_])"), r"\1"),
)


def first_exchange(session: Session) -> tuple[str, str] | None:
    """The person's first message and the answer to it, when the session is due a title.

    Due: no title yet, not a session the app names itself (the Reminders chat), exactly one
    message of the person's, and an answer with text after it.
    """
    if session.metadata.get("title") or fixed_title(session.key) is not None:
        return None
    people = [i for i, m in enumerate(session.messages) if is_person_message(m)]
    if len(people) != 1:
        return None
    first = people[0]
    question = message_text(session.messages[first]).strip()
    answers = [
        message_text(m).strip()
        for m in session.messages[first + 1 :]
        if m.get("role") == "assistant" and message_text(m).strip() and not m.get("stopped")
    ]
    if not question or not answers:
        return None
    return question, answers[-1]


def clean_title(text: str | None) -> str | None:
    """The model's answer made into a title (``None`` when nothing usable is left)."""
    content, _reasoning = split_think(text)
    lines = [line.strip() for line in (content or "").splitlines() if line.strip()]
    if not lines:
        return None
    title = lines[0]
    for pattern, keep in _INLINE:
        title = pattern.sub(keep, title)
    title = _PREFIX.sub("", title.strip(_WRAPPERS)).strip(_WRAPPERS)
    title = title.rstrip(".!?:;,").strip(_WRAPPERS)
    title = " ".join(title.split())
    if len(title) > TITLE_CHARS:
        cut = title[:TITLE_CHARS].rsplit(" ", 1)[0] or title[:TITLE_CHARS]
        title = cut.rstrip(",;:-–") + "…"
    return title if len(title) >= 2 else None


async def suggest_title(provider: LLMProvider, question: str, answer: str) -> str | None:
    """Ask the model for a title of the exchange (one cheap call, tagged ``title``)."""
    excerpt = f"Person: {question[:EXCERPT_CHARS]}\n\nAssistant: {answer[:EXCERPT_CHARS]}".strip()
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": PROMPT},
        {"role": "user", "content": excerpt},
    ]
    with usage_source(TITLE_SOURCE):
        response = await provider.chat(messages, max_tokens=TITLE_MAX_TOKENS, temperature=0.2)
    return clean_title(response.content)
