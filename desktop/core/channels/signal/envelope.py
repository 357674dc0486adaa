"""What signal-cli's ``receive`` notifications say, read tolerantly.

A notification carries an ``envelope``: the sender under several names (``sourceNumber``,
``source``, ``sourceUuid``, ``sourceServiceId``…, depending on the signal-cli version), and
one of ``dataMessage`` (a message: ``message``, ``timestamp``, ``attachments``, ``mentions``,
``groupInfo``/``groupV2``, ``reaction``), ``syncMessage``, ``typingMessage`` or
``receiptMessage``. Ids are written the way nanobot 0.3.5 writes them: the sender is every
id of the envelope joined by ``|`` (phone number first), a direct chat is the phone number
(the first id when there is none), a group chat its base64 group id.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

_SENDER_KEYS = (
    "sourceNumber",
    "source",
    "sourceUuid",
    "sourceServiceId",
    "sourceAci",
    "sourceACI",
)
PLACEHOLDER = ("\ufffc", "\ufffd", "\x1b")
"""What a Signal client leaves in the text where a mention was."""


def _object(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _objects(value: object) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def variants(value: str) -> set[str]:
    """The forms of one Signal id that name the same account (``+49…``/``49…``, any case)."""
    raw = value.strip()
    if not raw:
        return set()
    found = {raw, raw.lower()}
    if raw.startswith("+") and len(raw) > 1:
        found.add(raw[1:])
    elif raw.isdigit():
        found.add(f"+{raw}")
    return found


def matches(sender: str, entries: list[str]) -> bool:
    """Whether any id of ``sender`` (``|``-joined) is among ``entries`` (``"*"``: everyone)."""
    if "*" in entries:
        return True
    mine = {v for part in sender.split("|") for v in variants(part)}
    theirs = {v for entry in entries for part in str(entry).split("|") for v in variants(part)}
    return bool(mine & theirs)


def is_group_chat(chat_id: str) -> bool:
    """Whether a chat id is a group's (base64) rather than a person's (phone or UUID)."""
    return "=" in chat_id or (len(chat_id) > 40 and "-" not in chat_id)


@dataclass
class Incoming:
    """One ``dataMessage`` with who sent it and where."""

    sender: str
    """Every id of the sender joined by ``|``."""
    number: str
    """The sender's phone number (or first id): a direct chat's id."""
    name: str
    text: str
    timestamp: int | None
    group_id: str | None
    is_group: bool
    attachments: list[dict[str, Any]] = field(default_factory=list)
    mentions: list[dict[str, Any]] = field(default_factory=list)
    reaction: bool = False

    @property
    def chat_id(self) -> str:
        """The chat: the group id, else the sender's number."""
        return (self.group_id or self.number) if self.is_group else self.number


def parse(event: dict[str, Any]) -> Incoming | None:
    """The data message of a notification (SSE event data or a JSON-RPC ``receive``), or
    ``None`` for anything else (receipts, typing, sync messages, no sender)."""
    params = _object(event.get("params")) if event.get("method") == "receive" else event
    envelope = _object(params.get("envelope"))
    data = _object(envelope.get("dataMessage"))
    if not data or envelope.get("receiptMessage"):
        return None
    ids: list[str] = []
    for key in _SENDER_KEYS:
        value = envelope.get(key)
        if isinstance(value, str) and value.strip() and value.strip() not in ids:
            ids.append(value.strip())
    if not ids:
        return None
    number = next((i for i in ids if i.startswith("+") or i.isdigit()), ids[0])
    group_info, group_v2 = data.get("groupInfo"), data.get("groupV2")
    group_id = None
    for group in (_object(group_info), _object(group_v2)):
        for key in ("groupId", "id", "groupID"):
            if isinstance(group.get(key), str) and group[key]:
                group_id = group_id or group[key]
    text = data.get("message")
    stamp = data.get("timestamp", envelope.get("timestamp"))
    name = envelope.get("sourceName")
    return Incoming(
        sender="|".join(ids),
        number=number,
        name=name if isinstance(name, str) else "",
        text=text if isinstance(text, str) else "",
        timestamp=stamp if isinstance(stamp, int) else None,
        group_id=group_id,
        is_group=group_info is not None or group_v2 is not None,
        attachments=_objects(data.get("attachments")),
        mentions=_objects(data.get("mentions")),
        reaction=bool(data.get("reaction")),
    )


def _mention_ids(mention: dict[str, Any], depth: int = 0) -> list[str]:
    found: list[str] = []
    for key, value in mention.items():
        if (
            isinstance(value, str)
            and value
            and any(word in key.lower() for word in ("number", "uuid", "serviceid", "aci"))
        ):
            found.append(value)
        elif isinstance(value, dict) and depth < 2:
            found.extend(_mention_ids(value, depth + 1))
    return found


def _span(mention: dict[str, Any]) -> tuple[int, int] | None:
    try:
        start, length = int(mention.get("start", 0)), int(mention.get("length", 0))
    except (TypeError, ValueError):
        return None
    return (start, length) if start >= 0 and length > 0 else None


def _leading_placeholder(text: str) -> tuple[int, int] | None:
    stripped = text.lstrip()
    start = len(text) - len(stripped)
    if stripped[:1] in PLACEHOLDER and stripped[:1] and not stripped[1:2].strip():
        return (start, 1)
    return None


def own_mentions(message: Incoming, account: set[str]) -> list[tuple[int, int]]:
    """Where ``message`` mentions the account (ids in ``account``): mentions naming it,
    a leading mention naming nobody, or a leading placeholder without mention data."""
    spans: list[tuple[int, int]] = []
    for mention in message.mentions:
        ids, span = _mention_ids(mention), _span(mention)
        if span is None:
            continue
        if any(variants(i) & account for i in ids) or (
            not ids and not message.text[: span[0]].strip()
        ):
            spans.append(span)
    if not spans and not message.mentions and (lead := _leading_placeholder(message.text)):
        spans.append(lead)
    return spans


def mentioned(message: Incoming, account: set[str]) -> bool:
    """Whether ``message`` mentions the account (a mention, or the number in the text)."""
    if own_mentions(message, account):
        return True
    return any(a.lstrip("+").isdigit() and a in message.text for a in account)


def without_mentions(message: Incoming, account: set[str]) -> str:
    """The text with the account's mentions cut out."""
    text = message.text
    for start, length in sorted(own_mentions(message, account), reverse=True):
        text = text[:start] + text[start + length :]
    return text.strip()
