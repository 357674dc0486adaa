"""What the conversation view shows: one :class:`ChatItem` per row, built from session messages.

Qt-free so it can run in a worker thread (turning a 10,000-message session into rows) and be
tested without a display. A saved assistant message becomes up to three rows (its reasoning,
its text, one card per tool call); a tool result fills its call's card: the card of the nearest
earlier assistant message of the same turn that carries the result's call id. Call ids are not
unique across a chat (some servers say ``call_0`` every time), so a result never reaches back
into an earlier turn.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from desktop.core.session.compaction import is_hidden
from desktop.core.session.naming import internal_source
from desktop.core.tools.untrusted import shown
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.validate import parse_json

ItemKind = Literal[
    "user", "assistant", "reasoning", "tool", "notice", "subagent", "outbound", "command"
]
DENIED_PREFIX = "Denied by the user"
_ids = itertools.count(1)


@dataclass(eq=False)
class ChatItem:
    """One row of the conversation.

    Attributes:
        kind: ``user``, ``assistant``, ``reasoning`` (collapsible), ``tool`` (a card),
            ``notice`` (command replies, stop notes), ``subagent`` (a background task's report),
            ``outbound`` (a message the agent sent on its own: message tool, reminder),
            ``command`` (a slash command's reply, shown as preformatted text).
        text: Markdown text (tool cards: unused).
        uid: Stable id for render caches.
        version: Bumped on every change (render caches compare it).
        streaming: The text is still arriving.
        expanded: Tool card or reasoning opened.
        tool: Tool name.
        call_id: The tool call id.
        arguments: Tool arguments.
        result: Tool result preview.
        ok: ``None`` while running, then whether the call succeeded.
        duration_s: How long the call ran.
        awaiting_approval: The call waits for the person's answer.
        media: Attached images (paths or data URLs).
        footer: Small print under a message (tokens, cost, "Stopped").
        timestamp: ISO time, when known.
        turn_id: The live turn this row belongs to (``""`` for rows loaded from disk).
        status: What a streaming row shows while it has no text yet ("waiting for the
            model… (retrying 2/3)"); empty: "Thinking…".
        message_index: The saved message the row shows (``-1``: a live row, or not saved).
        echo: A user row that only echoes a slash command (not a message in the session).
        fork: The conversation has versions from this row on: ``(fork point, version shown
            (1-based), versions)``; the row shows "‹ 2/3 ›" to switch.
        diff: What a file tool changed (a unified diff, live turns only: sessions do not
            keep it), shown by :mod:`desktop.ui.chat.diff_view`.
    """

    kind: ItemKind
    text: str = ""
    uid: int = field(default_factory=lambda: next(_ids))
    version: int = 0
    streaming: bool = False
    expanded: bool = False
    tool: str = ""
    call_id: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)
    result: str = ""
    ok: bool | None = None
    duration_s: float | None = None
    awaiting_approval: bool = False
    media: list[str] = field(default_factory=list)
    footer: str = ""
    timestamp: str = ""
    turn_id: str = ""
    status: str = ""
    message_index: int = -1
    echo: bool = False
    fork: tuple[int, int, int] | None = None
    diff: str = ""

    def touch(self) -> None:
        """Mark the item changed (its rendering is stale)."""
        self.version += 1

    @property
    def running(self) -> bool:
        """A tool call that has not finished."""
        return self.kind == "tool" and self.ok is None

    @property
    def denied(self) -> bool:
        """A tool call the person refused."""
        return self.kind == "tool" and self.ok is False and self.result.startswith(DENIED_PREFIX)

    def plain_text(self) -> str:
        """What "Copy message" puts on the clipboard."""
        if self.kind == "tool":
            arguments = json.dumps(self.arguments, ensure_ascii=False, indent=2)
            return f"{self.tool}\n{arguments}\n\n{self.result}\n\n{self.diff}".strip()
        return self.text


def content_text(content: Any) -> str:
    """Text of a message content (a string, or a list of parts)."""
    if isinstance(content, list):
        return "\n".join(
            str(p.get("text", ""))
            for p in content
            if isinstance(p, dict) and p.get("type") == "text"
        )
    return str(content or "")


def _arguments(call: dict[str, Any]) -> dict[str, Any]:
    raw = (call.get("function") or {}).get("arguments")
    if isinstance(raw, dict):
        return raw
    try:
        value = parse_json(raw or "{}")
    except (TypeError, ValueError):
        return {"(unparsed)": str(raw)}
    return value if isinstance(value, dict) else {"value": value}


def tool_ok(result: str) -> bool:
    """Best guess at a saved result's success (sessions don't store the error flag)."""
    return not result.lstrip()[:40].startswith(("Error", DENIED_PREFIX, "Not executed"))


def usage_text(prompt: int, completion: int, cost: float | None) -> str:
    """``1,234 in · 56 out · $0.0012`` (cost left out when unknown), a :class:`Phrase`."""
    tokens = {"prompt": f"{prompt:,}", "completion": f"{completion:,}"}
    if cost is None:
        return Phrase(QT_TR_NOOP("{prompt} in · {completion} out"), **tokens)
    price = f"${cost:.4f}" if cost < 1 else f"${cost:.2f}"
    return Phrase(QT_TR_NOOP("{prompt} in · {completion} out · {cost}"), **tokens, cost=price)


def generated_images(tool: str, result: str) -> list[str]:
    """The image paths a saved ``generate_image`` result names (``[]`` for anything else)."""
    if tool != "generate_image":
        return []
    try:
        artifacts = json.loads(result).get("artifacts")
    except (ValueError, AttributeError):
        return []
    if not isinstance(artifacts, list):
        return []
    return [
        str(a["path"]) for a in artifacts if isinstance(a, dict) and isinstance(a.get("path"), str)
    ]


STOPPED_FOOTER = Phrase(QT_TR_NOOP("Stopped"))
INTERRUPTED_CARD = Phrase(QT_TR_NOOP("(no result: the turn was interrupted)"))
GENERATED_IMAGE = Phrase(QT_TR_NOOP("Generated image"))
REMINDER = Phrase(QT_TR_NOOP("Reminder"))


def prompt_row(
    source: str, text: str, *, label: str = "", media: list[str] | None = None
) -> ChatItem:
    """The row that opens a turn: what the person wrote, or what started it instead.

    A reminder shows the reminder (not the scheduling prompt the model got), the heartbeat a
    short label, a subagent's report as a report card.
    """
    if source == "cron":
        title = Phrase(QT_TR_NOOP("Reminder · {label}"), label=label) if label else REMINDER
        return ChatItem("outbound", text, tool=title)
    if source == "heartbeat":
        check = text or Phrase(QT_TR_NOOP("Periodic check"))
        return ChatItem("outbound", check, tool=Phrase(QT_TR_NOOP("Heartbeat")))
    if source == "subagent":
        return ChatItem("subagent", text)
    return ChatItem("user", text, media=list(media or []))


def prompt_item(message: dict[str, Any], stamp: str = "") -> ChatItem:
    """The row of a saved user message (see :func:`prompt_row`)."""
    media = [m for m in message.get("media") or [] if isinstance(m, str)]
    text = str(message.get("display") or content_text(message.get("content")))
    source = internal_source(message) or "message"
    item = prompt_row(source, text, label=str(message.get("label") or ""), media=media)
    item.timestamp = stamp
    return item


def _interrupted(cards: Iterable[ChatItem]) -> None:
    """Mark saved calls that never got a result as failed (they will not finish now)."""
    for card in cards:
        if card.ok is None:
            card.ok = False
            card.result = card.result or INTERRUPTED_CARD


def items_from_messages(messages: list[dict[str, Any]], *, live: bool = False) -> list[ChatItem]:  # noqa: C901  # one branch per message role, with tool results matched
    """Rows for a saved conversation, oldest first.

    Tool results are matched to cards within their turn (a user message starts a turn): by the
    nearest earlier assistant message carrying the call id. A result with no such call is
    not shown.

    ``live``: a turn is running, so the last turn's calls without a result are still running
    (not interrupted). Calls of earlier turns never are: a later turn started after them.
    """
    items: list[ChatItem] = []
    cards: dict[str, ChatItem] = {}  # the current turn's cards by call id (the latest wins)
    turn_cards: list[ChatItem] = []  # every card of the current turn
    for index, message in enumerate(messages):
        role = message.get("role")
        stamp = str(message.get("timestamp") or "")
        first = len(items)
        if is_hidden(message):  # for the model only (a compaction's checkpoint)
            continue
        if role == "user":
            _interrupted(turn_cards)  # a new turn: the previous one is over
            cards, turn_cards = {}, []
            items.append(prompt_item(message, stamp))
        elif role == "assistant":
            reasoning = message.get("reasoning_content")
            if isinstance(reasoning, str) and reasoning.strip():
                items.append(ChatItem("reasoning", reasoning, timestamp=stamp))
            text = content_text(message.get("content"))
            if text.strip():
                footer = STOPPED_FOOTER if message.get("stopped") else ""
                items.append(ChatItem("assistant", text, timestamp=stamp, footer=footer))
            for call in message.get("tool_calls") or []:
                if not isinstance(call, dict):
                    continue
                card = ChatItem(
                    "tool",
                    tool=str((call.get("function") or {}).get("name", "")),
                    call_id=str(call.get("id", "")),
                    arguments=_arguments(call),
                    timestamp=stamp,
                )
                cards[card.call_id] = card
                turn_cards.append(card)
                items.append(card)
        elif role == "tool":
            answered = cards.get(str(message.get("tool_call_id", "")))
            result = shown(content_text(message.get("content")))
            if answered is None:
                continue
            answered.result = result[:2000]
            answered.ok = tool_ok(result)
            images = generated_images(answered.tool, result) if answered.ok else []
            if images:  # the images the tool posted to the chat (that message is not saved)
                items.append(
                    ChatItem("outbound", "", tool=GENERATED_IMAGE, media=images, timestamp=stamp)
                )
        for item in items[first:]:
            item.message_index = index
    if not live:
        _interrupted(turn_cards)
    return items
