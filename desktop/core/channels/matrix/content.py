"""Matrix message content: answers as Markdown-rendered HTML, and reading what people send.

Pure functions over event content dicts (no SDK import), so they are easy to test and reuse.
"""

from __future__ import annotations

import html
import json
from typing import Any
from urllib.parse import quote

from desktop.core.channels.render.html import to_html

HTML_FORMAT = "org.matrix.custom.html"
MAX_EVENT_BYTES = 60_000  # the spec's limit is 65,536 bytes for the whole event


def render_html(text: str) -> str | None:
    """``text`` (Markdown) as HTML, or ``None`` when it has no formatting worth sending.

    Raw HTML in ``text`` is escaped (never passed through); unsafe link schemes are dropped
    (:mod:`desktop.core.channels.render.html`).
    """
    rendered = to_html(text)
    if not rendered:
        return None
    plain = f"<p>{html.escape(text.strip(), quote=False)}</p>"
    if rendered == plain:
        return None
    return rendered


def message_content(text: str, *, notice: bool = False) -> dict[str, Any]:
    """An ``m.room.message`` content for ``text``: the Markdown source as ``body`` and, when
    it has formatting, the HTML as ``formatted_body``.

    Args:
        text: The answer (Markdown).
        notice: Send as ``m.notice`` (interim progress text, notices), not ``m.text``.
    """
    content: dict[str, Any] = {
        "msgtype": "m.notice" if notice else "m.text",
        "body": text,
        "m.mentions": {},  # never ping anyone by accident
    }
    formatted = render_html(text)
    if formatted is not None:
        content["format"] = HTML_FORMAT
        content["formatted_body"] = formatted
        if len(json.dumps(content, ensure_ascii=False).encode()) > MAX_EVENT_BYTES:
            del content["format"], content["formatted_body"]
    return content


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def relation(content: dict[str, Any]) -> dict[str, Any]:
    """The ``m.relates_to`` object (empty when missing or malformed)."""
    return _dict(content.get("m.relates_to"))


def is_edit(content: dict[str, Any]) -> bool:
    """Whether the message replaces an earlier one (an edit)."""
    return relation(content).get("rel_type") == "m.replace"


def reply_target(content: dict[str, Any]) -> str | None:
    """The event a message replies to, if any."""
    target = _dict(relation(content).get("m.in_reply_to")).get("event_id")
    return target if isinstance(target, str) and target else None


def strip_reply_fallback(body: str) -> str:
    """The body without the quoted ``> <@user> …`` fallback older clients put in replies."""
    lines = body.split("\n")
    if not lines or not lines[0].startswith("> "):
        return body
    index = 0
    while index < len(lines) and lines[index].startswith(">"):
        index += 1
    if index < len(lines) and not lines[index].strip():
        index += 1
    rest = "\n".join(lines[index:]).strip()
    return rest or body


def mentions(content: dict[str, Any], user_id: str, *, room_mentions: bool) -> bool:
    """Whether the message mentions ``user_id``.

    ``m.mentions`` (intentional mentions) decides when present; older clients are recognised
    by the user ID in the text or a ``matrix.to`` pill in the HTML.
    """
    declared = content.get("m.mentions")
    if isinstance(declared, dict):
        users = declared.get("user_ids")
        if isinstance(users, list) and user_id in users:
            return True
        if room_mentions and declared.get("room") is True:
            return True
    body = content.get("body")
    if isinstance(body, str) and user_id in body:
        return True
    formatted = content.get("formatted_body")
    if isinstance(formatted, str):
        links = (f"matrix.to/#/{user_id}", f"matrix.to/#/{quote(user_id)}")
        return any(link in formatted for link in links)
    return False
