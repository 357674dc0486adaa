"""Who wrote a user message (the person, or a reminder, the heartbeat, a background task), and
the title a session shows when it has none of its own.

A chat's title is never internal text: not a reminder's scheduling prompt
(``[Scheduled task "…" — the scheduled time has arrived…]``), nor the heartbeat's, nor a
background task's report. The rules, in order:

1. the title set in the session's metadata (by the person, or the automatic title);
2. the name of a session the app itself keeps: ``Reminders`` (the desktop's reminders chat),
   ``Heartbeat``;
3. the start of the person's first message;
4. what started the session instead: ``Reminders``, ``Heartbeat``, ``Background task``;
5. ``New chat``.

Internal messages are recognised by the marks this app saves on them (``cron_job``,
``heartbeat``, ``subagent``), by nanobot 0.3.5's marks (``_automation_turn``, ``_cron_turn``,
``injected_event``), and, for files written before either existed, by how their text starts.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from desktop.core.utils.i18n import QT_TR_NOOP

Source = Literal["cron", "heartbeat", "subagent"]

#: The desktop's reminders chat (``cron.delivery.DEFAULT_CHANNEL:DEFAULT_CHAT``).
REMINDERS_KEY = "desktop:reminders"
#: The heartbeat's session (ours, and nanobot's).
HEARTBEAT_KEYS = ("heartbeat:main", "heartbeat")
TITLE_CHARS = 60
NEW_CHAT = QT_TR_NOOP("New chat")

_FIXED: dict[str, str] = {
    REMINDERS_KEY: QT_TR_NOOP("Reminders"),
    **dict.fromkeys(HEARTBEAT_KEYS, QT_TR_NOOP("Heartbeat")),
}
_BY_SOURCE: dict[Source, str] = {
    "cron": QT_TR_NOOP("Reminders"),
    "heartbeat": QT_TR_NOOP("Heartbeat"),
    "subagent": QT_TR_NOOP("Background task"),
}
#: The titles the app gives (the window shows them in its language; a person's own are data).
FIXED_TITLES = frozenset({NEW_CHAT, *_FIXED.values(), *_BY_SOURCE.values()})
# How the prompts of internal turns start (ours: templates/agent/*.md; nanobot 0.3.5's).
_PREFIXES: tuple[tuple[str, Source], ...] = (
    ("[Scheduled task ", "cron"),
    ("Scheduled cron job triggered:", "cron"),
    ("The scheduled time has arrived.", "cron"),
    ("[Heartbeat", "heartbeat"),
    ("[Your response will be delivered directly to the user's messaging app.", "heartbeat"),
    ("[Background task ", "subagent"),
    ("[Subagent '", "subagent"),
)
_RUNTIME_OPEN = "[Runtime Context"
_RUNTIME_CLOSE = "[/Runtime Context]"


def text_of(message: dict[str, Any]) -> str:
    """The text of a saved message (the text parts of a list content, joined)."""
    content = message.get("content")
    if isinstance(content, list):
        return " ".join(
            str(p.get("text", ""))
            for p in content
            if isinstance(p, dict) and p.get("type", "text") == "text"
        )
    return str(content or "")


def _without_runtime_block(text: str) -> str:
    """``text`` without a leading runtime-context block (older files saved it)."""
    stripped = text.lstrip()
    if stripped.startswith(_RUNTIME_OPEN) and _RUNTIME_CLOSE in stripped:
        return stripped.split(_RUNTIME_CLOSE, 1)[1]
    return text


def internal_source(message: dict[str, Any]) -> Source | None:
    """What wrote ``message`` when the person did not (``None``: the person did)."""
    if message.get("cron_job") or message.get("_cron_turn") or message.get("_automation_turn"):
        return "cron"
    if message.get("heartbeat"):
        return "heartbeat"
    if message.get("subagent") or message.get("injected_event") == "subagent_result":
        return "subagent"
    text = _without_runtime_block(text_of(message)).lstrip()
    for prefix, source in _PREFIXES:
        if text.startswith(prefix):
            return source
    return None


def fixed_title(key: str) -> str | None:
    """The name of a session the app keeps itself (``Reminders``, ``Heartbeat``), else ``None``."""
    return _FIXED.get(key)


def clip_title(text: str) -> str:
    """``text`` on one line, at most :data:`TITLE_CHARS` characters (``…`` when cut)."""
    text = " ".join(text.split())
    return (text[:TITLE_CHARS] + "…") if len(text) > TITLE_CHARS else text


def derive_title(key: str, messages: Iterable[dict[str, Any]], title: Any = None) -> str:
    """The title a session shows (see the module docstring for the rules).

    Args:
        key: The session key.
        messages: Its messages, oldest first (only user messages are looked at; reading stops
            at the person's first one).
        title: The metadata title, if any.
    """
    if isinstance(title, str) and title.strip():
        return title
    fixed = fixed_title(key)
    if fixed is not None:
        return fixed
    started_by: Source | None = None
    for message in messages:
        if message.get("role") != "user":
            continue
        source = internal_source(message)
        if source is None:
            text = clip_title(_without_runtime_block(text_of(message)))
            if text:
                return text
            continue
        started_by = started_by or source
    return _BY_SOURCE[started_by] if started_by is not None else NEW_CHAT
