"""What a ``POST /v1/chat/completions`` body asks for, checked (nanobot 0.3.5's rules).

As in nanobot 0.3.5 the conversation lives in the session, not in the request: a request
carries exactly one ``user`` message (text, or content parts of ``text`` and base64
``image_url`` data URLs), an optional ``session_id`` (the session key is ``api:<id>``, else
``api:default``), ``stream`` and ``model`` (which must be the served model when given).
Anything else is a :class:`RequestError` with a sentence for the caller; nothing is saved.
"""

from __future__ import annotations

import base64
import binascii
import re
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop.core.utils.atomic import atomic_write_bytes

API_CHANNEL = "api"
API_CHAT_ID = "default"  # nanobot 0.3.5 answers every API session as chat "default"
DEFAULT_SESSION = "api:default"
MAX_IMAGE_BYTES = 10 * 1024 * 1024
_DATA_URL = re.compile(r"data:(image/[\w.+-]+);base64,(.*)", re.DOTALL)
_EXTENSIONS = {
    "image/jpeg": ".jpg",
    "image/png": ".png",
    "image/gif": ".gif",
    "image/webp": ".webp",
}
MAX_SESSION_ID = 200


class RequestError(ValueError):
    """A request the API refuses (HTTP 400 unless ``status`` says otherwise)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


@dataclass(frozen=True)
class Image:
    """A decoded image part: its MIME type and bytes (saved only once the request is valid)."""

    mime: str
    data: bytes = field(repr=False)


@dataclass(frozen=True)
class ChatRequest:
    """One checked request.

    Attributes:
        text: The user message.
        images: Images sent with it, not saved yet (:func:`save_images`).
        session_key: ``api:<session_id>`` or ``api:default``.
        stream: Answer as server-sent events.
    """

    text: str
    images: tuple[Image, ...]
    session_key: str
    stream: bool


def _image(part: dict[str, Any]) -> Image:
    image_url = part.get("image_url")
    url = image_url.get("url") if isinstance(image_url, dict) else image_url
    if not isinstance(url, str) or not url:
        raise RequestError("an image_url part needs a url")
    match = _DATA_URL.fullmatch(url.strip())
    if match is None:
        raise RequestError(
            "only base64 data URLs are accepted for images (data:image/png;base64,...); "
            "remote image URLs are not fetched"
        )
    try:
        data = base64.b64decode(match.group(2), validate=True)
    except (binascii.Error, ValueError):
        raise RequestError("an image's base64 data is not valid") from None
    if len(data) > MAX_IMAGE_BYTES:
        raise RequestError(f"an image is larger than {MAX_IMAGE_BYTES // (1024 * 1024)} MB", 413)
    return Image(match.group(1).lower(), data)


def _content(content: object) -> tuple[str, tuple[Image, ...]]:
    if isinstance(content, str):
        return content, ()
    if not isinstance(content, list):
        raise RequestError("messages[0].content must be a string or a list of content parts")
    texts: list[str] = []
    images: list[Image] = []
    for part in content:
        if not isinstance(part, dict):
            raise RequestError("each content part must be an object")
        kind = part.get("type")
        if kind == "text":
            text = part.get("text", "")
            if not isinstance(text, str):
                raise RequestError("a text part's text must be a string")
            texts.append(text)
        elif kind == "image_url":
            images.append(_image(part))
        else:
            raise RequestError(f"content parts of type {kind!r} are not supported")
    return " ".join(texts), tuple(images)


def parse_chat_request(body: object, model: str) -> ChatRequest:
    """Check a decoded JSON body against what the API serves.

    Args:
        body: The decoded JSON.
        model: The model the API serves (a request naming another one is refused).

    Raises:
        RequestError: The body is not a request the API can answer.
    """
    if not isinstance(body, dict):
        raise RequestError("the body must be a JSON object")
    messages = body.get("messages")
    if (
        not isinstance(messages, list)
        or len(messages) != 1
        or not isinstance(messages[0], dict)
        or messages[0].get("role") != "user"
    ):
        raise RequestError(
            "send exactly one user message per request: the conversation is kept by the "
            "server, in the session named by session_id"
        )
    text, images = _content(messages[0].get("content", ""))
    if not text.strip() and not images:
        raise RequestError("the user message is empty")
    requested = body.get("model")
    if requested not in (None, "", model):
        raise RequestError(f"only the configured model '{model}' is available")
    stream = body.get("stream", False)
    if not isinstance(stream, bool):
        raise RequestError("stream must be true or false")
    session_id = body.get("session_id")
    if session_id in (None, ""):
        key = DEFAULT_SESSION
    elif (
        isinstance(session_id, str)
        and len(session_id) <= MAX_SESSION_ID
        and session_id.isprintable()
        and "#" not in session_id  # '#' marks a subagent's session
    ):
        key = f"{API_CHANNEL}:{session_id}"
    else:
        raise RequestError(
            f"session_id must be text of at most {MAX_SESSION_ID} printable characters, without '#'"
        )
    return ChatRequest(text, images, key, stream)


def save_images(images: tuple[Image, ...], workspace: Path) -> list[str]:
    """Write ``images`` into ``<workspace>/media/api/`` under new names (atomically, no link
    followed below the workspace); their paths. Blocking.

    Raises:
        desktop.core.security.ownfiles.Refused: A folder on the way is a link.
    """
    folder = workspace / "media" / API_CHANNEL
    paths: list[str] = []
    for image in images:
        path = folder / f"{uuid.uuid4().hex[:12]}{_EXTENSIONS.get(image.mime, '.img')}"
        atomic_write_bytes(path, image.data, root=workspace)
        paths.append(str(path))
    return paths
