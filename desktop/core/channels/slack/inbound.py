"""Which Slack events are messages for the agent, and in which conversation.

A Socket Mode ``events_api`` envelope carries an Events API callback whose ``event`` is a
``message`` (DMs, and channels the bot is in) or an ``app_mention``. Slack sends both for a
message that mentions the bot in a channel; they are the same message (same channel and
``ts``), handled once (see the channel's key). Edits, deletions, joins and bot messages
(subtypes other than ``file_share``, or a ``bot_id``) are not for the agent.

Conversations (``chat_id``): a DM is its ``D…`` id; a channel message is answered in a thread
under it when ``replyInThread`` is set, and a message written inside a thread is answered in
that thread; a thread is the chat ``"<channel>:<thread ts>"``, so its session key is
nanobot's ``slack:<channel>:<thread ts>`` and reminders set there come back there.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Any

from desktop.core.config.channels.slack import SlackConfig

_TS = re.compile(r"^\d+\.\d+$")
_ID = re.compile(r"^[A-Z0-9]+$")
_LINK = re.compile(r"<(https?://[^|>]+|mailto:[^|>]+)(?:\|([^>]*))?>")


class MalformedEvent(ValueError):
    """An event that does not have the shape Slack documents (skipped, logged)."""


@dataclass(frozen=True)
class Incoming:
    """A person's message for the agent.

    Attributes:
        sender: The Slack user id (``U…``).
        channel: The conversation id (``C…``, ``G…``, ``D…``).
        ts: The message's timestamp (its id within the conversation).
        thread_ts: The thread the answer goes to, if any.
        text: The text, bot mention removed, Slack's markup made readable.
        is_dm: A direct message.
        files: The ``files`` objects of a ``file_share`` message.
    """

    sender: str
    channel: str
    ts: str
    thread_ts: str | None
    text: str
    is_dm: bool
    files: list[dict[str, Any]] = field(default_factory=list)

    @property
    def chat_id(self) -> str:
        """The conversation as the bus sees it (``C…`` or ``C…:<thread ts>``)."""
        return join_chat(self.channel, self.thread_ts)

    @property
    def key(self) -> str:
        """The message's id across restarts (``<channel>:<ts>``)."""
        return f"{self.channel}:{self.ts}"


def join_chat(channel: str, thread_ts: str | None) -> str:
    """``channel`` or ``channel:thread_ts``."""
    return f"{channel}:{thread_ts}" if thread_ts else channel


def split_chat(chat_id: str) -> tuple[str, str | None]:
    """The conversation id and thread of a ``chat_id`` (see :func:`join_chat`).

    Raises:
        ValueError: ``chat_id`` is not a Slack conversation.
    """
    channel, _, thread = chat_id.strip().partition(":")
    if not _ID.match(channel) or (thread and not _TS.match(thread)):
        raise ValueError(f"{chat_id!r} is not a Slack conversation id")
    return channel, thread or None


def message_of(request_id: str) -> tuple[str, str] | None:
    """The conversation and ``ts`` of a message key (``<channel>:<ts>``), else ``None``."""
    channel, _, ts = request_id.partition(":")
    if _ID.match(channel) and _TS.match(ts):
        return channel, ts
    return None


def readable(text: str, bot_user_id: str | None) -> str:
    """Slack's message markup as plain text: the bot's mention removed, links as
    ``label (url)``, entities decoded."""
    if bot_user_id:
        text = re.sub(rf"<@{re.escape(bot_user_id)}(?:\|[^>]*)?>\s*", "", text)

    def link(match: re.Match[str]) -> str:
        url, label = match.group(1), match.group(2)
        return f"{label} ({url})" if label and label != url else url

    return html.unescape(_LINK.sub(link, text)).strip()


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value:
        raise MalformedEvent(f"the event has no {name}")
    return value


def _addressed(config: SlackConfig, channel: str, *, mentioned: bool) -> bool:
    """Whether a channel message is for the bot under ``groupPolicy``."""
    if config.group_policy == "open":
        return True
    if config.group_policy == "allowlist":
        return channel in config.group_allow_from and (
            mentioned or not config.group_require_mention
        )
    return mentioned


def parse(event: Any, *, bot_user_id: str | None, config: SlackConfig) -> Incoming | None:  # noqa: C901  # one branch per event subtype the agent skips or reads
    """The message ``event`` stands for, or ``None`` when it is not one for the agent.

    Raises:
        MalformedEvent: ``event`` lacks what every message has.
    """
    if not isinstance(event, dict):
        raise MalformedEvent("the event is not an object")
    kind = event.get("type")
    if kind not in ("message", "app_mention"):
        return None
    subtype = event.get("subtype")
    if (subtype and subtype != "file_share") or event.get("bot_id"):
        return None
    sender = _text(event.get("user"), "user")
    if bot_user_id and sender == bot_user_id:
        return None
    channel = _text(event.get("channel"), "channel")
    ts = _text(event.get("ts"), "ts")
    text = event.get("text") or ""
    if not isinstance(text, str):
        raise MalformedEvent("the event's text is not text")
    files = event.get("files") or []
    if not isinstance(files, list):
        raise MalformedEvent("the event's files are not a list")
    channel_type = event.get("channel_type")
    is_dm = channel_type == "im" if isinstance(channel_type, str) else channel.startswith("D")
    mentioned = kind == "app_mention" or bool(bot_user_id and f"<@{bot_user_id}" in text)
    if is_dm:
        dm = config.dm_policy
        if not dm.enabled or (dm.policy == "allowlist" and sender not in dm.allow_from):
            return None
    elif not _addressed(config, channel, mentioned=mentioned):
        return None
    thread = event.get("thread_ts")
    if not isinstance(thread, str) or not thread:
        thread = ts if config.reply_in_thread and not is_dm else None
    return Incoming(
        sender=sender,
        channel=channel,
        ts=ts,
        thread_ts=thread,
        text=readable(text, bot_user_id),
        is_dm=is_dm,
        files=[f for f in files if isinstance(f, dict)],
    )
