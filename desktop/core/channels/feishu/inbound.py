"""What a person wrote, from an ``im.message.receive_v1`` event.

The event's ``message.content`` is a JSON string whose shape depends on ``message_type``:
``text`` (``{"text": "@_user_1 hi"}``, mentions as ``@_user_N`` placeholders listed in
``message.mentions``), ``post`` (rich text: a title and rows of ``text``/``a``/``at``/``img``/
``code_block``… elements, sometimes wrapped per language), ``image`` (``{"image_key"}``),
``file``/``audio``/``media`` (``{"file_key", "file_name"}``) and others (shown as
``[sticker]`` and the like). A mention of the bot is dropped from the text; other mentions
become ``@name``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


class Malformed(ValueError):
    """The event is not a message event this channel can read."""


@dataclass
class Received:
    """One message, read from its event.

    Attributes:
        message_id: The platform's message id (``om_…``).
        chat_id: The chat (``oc_…``).
        chat_type: ``p2p`` or ``group``.
        sender_open_id: Who wrote it.
        sender_user_id: Their tenant user id, when the app may see it.
        sender_type: ``user`` or ``app`` (another bot).
        text: The text (mentions resolved).
        images: Image keys to download (``img_…``).
        files: ``(file_key, file_name, kind)`` of attached files.
        mentions: Open ids of everyone mentioned.
        mentions_all: ``@all`` was used.
        thread_id: The topic the message is in, if any.
        root_id: The first message of its thread, if any.
        parent_id: The message it replies to, if any.
    """

    message_id: str
    chat_id: str
    chat_type: str
    sender_open_id: str
    sender_user_id: str = ""
    sender_type: str = "user"
    text: str = ""
    images: list[str] = field(default_factory=list)
    files: list[tuple[str, str, str]] = field(default_factory=list)
    mentions: list[str] = field(default_factory=list)
    mentions_all: bool = False
    thread_id: str = ""
    root_id: str = ""
    parent_id: str = ""

    @property
    def sender(self) -> str:
        """nanobot's sender id: the open id (``open_id|user_id`` when both are known)."""
        if self.sender_user_id:
            return f"{self.sender_open_id}|{self.sender_user_id}"
        return self.sender_open_id


def _dict(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Malformed(f"{what} is missing")
    return value


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _post_block(root: Any) -> dict[str, Any] | None:
    """The post's ``{"title", "content"}`` (unwrapped from ``post`` and a language key)."""
    if isinstance(root, dict) and isinstance(root.get("post"), dict):
        root = root["post"]
    if not isinstance(root, dict):
        return None
    if isinstance(root.get("content"), list):
        return root
    for key in ("zh_cn", "en_us", "ja_jp", *root):
        block = root.get(key)
        if isinstance(block, dict) and isinstance(block.get("content"), list):
            return block
    return None


def read_post(data: Any, names: dict[str, str]) -> tuple[str, list[str]]:  # noqa: C901  # one branch per post element kind
    """The text and image keys of a post (``names``: mention key → display name)."""
    block = _post_block(data)
    if block is None:
        return "", []
    lines: list[str] = []
    images: list[str] = []
    if title := _text(block.get("title")).strip():
        lines.append(title)
    for row in block["content"]:
        if not isinstance(row, list):
            continue
        parts: list[str] = []
        for element in row:
            if not isinstance(element, dict):
                continue
            tag = element.get("tag")
            if tag in ("text", "md"):
                parts.append(_text(element.get("text")))
            elif tag == "a":
                label, href = _text(element.get("text")), _text(element.get("href"))
                parts.append(f"[{label}]({href})" if href and label != href else label or href)
            elif tag == "at":
                key = _text(element.get("user_id"))
                name = names[key] if key in names else _text(element.get("user_name")) or key
                parts.append(f"@{name}" if name else "")
            elif tag == "code_block":
                language = _text(element.get("language")).lower()
                parts.append(f"\n```{language}\n{_text(element.get('text')).rstrip()}\n```\n")
            elif tag == "img" and (key := _text(element.get("image_key"))):
                images.append(key)
            elif tag == "emotion":
                parts.append(f":{_text(element.get('emoji_type'))}:")
        line = "".join(parts).strip(" ").strip("\n")
        if line:
            lines.append(line)
    return "\n".join(lines).strip(), images


def read_event(event: Any, bot_open_id: str) -> Received:  # noqa: C901  # one branch per message type of the event
    """The message in an ``im.message.receive_v1`` event body.

    Args:
        event: The event's ``event`` object.
        bot_open_id: The bot's own open id (its mention is dropped from the text).

    Raises:
        Malformed: When a required part is missing or not what the platform sends.
    """
    body = _dict(event, "the event")
    message = _dict(body.get("message"), "the message")
    sender = _dict(body.get("sender"), "the sender")
    sender_ids = _dict(sender.get("sender_id"), "the sender id")
    message_id, chat_id = _text(message.get("message_id")), _text(message.get("chat_id"))
    open_id = _text(sender_ids.get("open_id"))
    if not message_id or not chat_id or not open_id:
        raise Malformed("the message, chat or sender id is missing")
    kind = _text(message.get("message_type")) or "text"
    try:
        data = json.loads(_text(message.get("content")) or "{}")
    except json.JSONDecodeError as exc:
        raise Malformed(f"the content is not JSON ({exc})") from None
    received = Received(
        message_id,
        chat_id,
        _text(message.get("chat_type")) or "p2p",
        open_id,
        _text(sender_ids.get("user_id")),
        _text(sender.get("sender_type")) or "user",
        thread_id=_text(message.get("thread_id")),
        root_id=_text(message.get("root_id")),
        parent_id=_text(message.get("parent_id")),
    )
    names: dict[str, str] = {}
    for mention in message.get("mentions") or []:
        if not isinstance(mention, dict):
            continue
        key, ids = _text(mention.get("key")), mention.get("id")
        mentioned = _text(ids.get("open_id")) if isinstance(ids, dict) else ""
        if mentioned:
            received.mentions.append(mentioned)
        # the bot's own mention is dropped; anyone else is shown by name
        names[key] = "" if mentioned and mentioned == bot_open_id else _text(mention.get("name"))
    if not isinstance(data, dict):
        raise Malformed("the content is not an object")
    if kind == "text":
        text = _text(data.get("text"))
        received.mentions_all = "@_all" in text
        for key, name in names.items():
            if key:
                text = text.replace(key, f"@{name}" if name else "")
        received.text = " ".join(text.split(" ")).strip()
    elif kind == "post":
        received.text, received.images = read_post(data, names)
    elif kind == "image":
        if key := _text(data.get("image_key")):
            received.images.append(key)
    elif kind in ("file", "audio", "media"):
        if key := _text(data.get("file_key")):
            name = _text(data.get("file_name")) or f"{kind}-{key[-8:]}"
            received.files.append((key, name, kind))
    else:
        received.text = f"[{kind}]"
    return received
