"""What a ``POST /v1/chat/completions`` body asks for, checked (nanobot 0.3.5's rules).

As in nanobot 0.3.5 the conversation lives in the session, not in the request: a request
carries exactly one ``user`` message (text, or content parts of ``text`` and base64
``image_url`` data URLs), an optional ``session_id`` (the session key is ``api:<id>``, else
``api:default``), ``stream`` and ``model`` (which must be the served model when given).
A ``multipart/form-data`` request (nanobot's upload form: ``message``, ``session_id``,
``model`` and any number of ``files``) carries files the agent reads as attachments.
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
MAX_FILE_BYTES = 10 * 1024 * 1024  # per image or file, as nanobot 0.3.5
MAX_SESSION_ID = 200
DEFAULT_UPLOAD_TEXT = "Please look at the attached file(s)."
_DATA_URL = re.compile(r"data:(image/[\w.+-]+);base64,(.*)", re.DOTALL)
_EXTENSIONS = {
    "image/jpeg": ".jpg",
    "image/png": ".png",
    "image/gif": ".gif",
    "image/webp": ".webp",
}


class RequestError(ValueError):
    """A request the API refuses (HTTP 400 unless ``status`` says otherwise)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


@dataclass(frozen=True)
class Upload:
    """A file or image sent with a request (saved only once the request is valid).

    Attributes:
        name: The name it came with (made safe when saved).
        data: Its bytes.
    """

    name: str
    data: bytes = field(repr=False)


@dataclass(frozen=True)
class ChatRequest:
    """One checked request.

    Attributes:
        text: The user message.
        uploads: Files and images sent with it, not saved yet (:func:`save_uploads`).
        session_key: ``api:<session_id>`` or ``api:default``.
        stream: Answer as server-sent events.
    """

    text: str
    uploads: tuple[Upload, ...]
    session_key: str
    stream: bool


def too_large(name: str) -> RequestError:
    """The 413 for a file or image over :data:`MAX_FILE_BYTES`."""
    return RequestError(f"{name} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB", 413)


def _image(part: dict[str, Any]) -> Upload:
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
    if len(data) > MAX_FILE_BYTES:
        raise too_large("an image")
    return Upload("image" + _EXTENSIONS.get(match.group(1).lower(), ".img"), data)


def _content(content: object) -> tuple[str, tuple[Upload, ...]]:
    if isinstance(content, str):
        return content, ()
    if not isinstance(content, list):
        raise RequestError("messages[0].content must be a string or a list of content parts")
    texts: list[str] = []
    images: list[Upload] = []
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


def _check_model(requested: object, model: str) -> None:
    if requested not in (None, "", model):
        raise RequestError(f"only the configured model '{model}' is available")


def session_key(session_id: object) -> str:
    """``api:<session_id>``, or ``api:default`` without one.

    Raises:
        RequestError: The id is not text, too long, or has ``#`` or control characters.
    """
    if session_id in (None, ""):
        return DEFAULT_SESSION
    if (
        isinstance(session_id, str)
        and len(session_id) <= MAX_SESSION_ID
        and session_id.isprintable()
        and "#" not in session_id  # '#' marks a subagent's session
    ):
        return f"{API_CHANNEL}:{session_id}"
    raise RequestError(
        f"session_id must be text of at most {MAX_SESSION_ID} printable characters, without '#'"
    )


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
    _check_model(body.get("model"), model)
    stream = body.get("stream", False)
    if not isinstance(stream, bool):
        raise RequestError("stream must be true or false")
    return ChatRequest(text, images, session_key(body.get("session_id")), stream)


def upload_request(fields: dict[str, str], files: list[Upload], model: str) -> ChatRequest:
    """The fields and files of a ``multipart/form-data`` request (never streamed).

    Raises:
        RequestError: Another model was asked for, or the session id is not usable.
    """
    _check_model(fields.get("model"), model)
    text = fields.get("message", "").strip() or DEFAULT_UPLOAD_TEXT
    return ChatRequest(text, tuple(files), session_key(fields.get("session_id")), False)


def safe_name(name: str | None) -> str:
    """Only a file name: the last path part, characters other than letters, digits, ``.``,
    ``-`` and ``_`` replaced, no leading dot, at most 100 characters."""
    base = re.split(r"[\\/]", name or "")[-1]
    cleaned = re.sub(r"[^\w.-]", "_", base).lstrip(".")[-100:]
    return cleaned or "upload.bin"


def save_uploads(uploads: tuple[Upload, ...], workspace: Path) -> list[str]:
    """Write ``uploads`` into ``<workspace>/media/api/`` under new names (atomically, no link
    followed below the workspace); their paths. Blocking.

    Raises:
        desktop.core.utils.ownfiles.Refused: A folder on the way is a link.
    """
    folder = workspace / "media" / API_CHANNEL
    paths: list[str] = []
    for upload in uploads:
        path = folder / f"{uuid.uuid4().hex[:12]}_{safe_name(upload.name)}"
        atomic_write_bytes(path, upload.data, root=workspace)
        paths.append(str(path))
    return paths
