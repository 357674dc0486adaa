"""Links to the files the agent sends, for browsers (nanobot 0.3.5's signed
``/api/media/<signature>/<payload>`` URLs).

A message event names its files as local paths (``media``) and, for clients on another
device, as ``media_urls`` (``[{"url", "name"}]``). A link is the file's path signed with a
key that lives only as long as the listener: it opens that one file and nothing else, without
a token (an ``<img src>`` cannot send one), and stops working when the channel restarts.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import mimetypes
import secrets
from pathlib import Path


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class MediaSigner:
    """Signs file paths into links and opens the files of valid links."""

    def __init__(self) -> None:
        self._key = secrets.token_bytes(32)

    def _signature(self, payload: str) -> str:
        return _b64(hmac.new(self._key, payload.encode(), hashlib.sha256).digest())

    def link(self, path: str | Path) -> dict[str, str]:
        """``{"url", "name"}`` for ``path`` (made absolute)."""
        resolved = Path(path).expanduser().absolute()
        payload = _b64(str(resolved).encode())
        return {"url": f"/api/media/{self._signature(payload)}/{payload}", "name": resolved.name}

    def read(self, signature: str, payload: str) -> tuple[bytes, str] | None:
        """The file of a link and its content type; ``None`` for a bad link or a missing file
        (blocking: call it in a thread)."""
        if not hmac.compare_digest(signature, self._signature(payload)):
            return None
        try:
            path = Path(_unb64(payload).decode())
        except (binascii.Error, UnicodeDecodeError, ValueError):
            return None
        if not path.is_file():
            return None
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        return path.read_bytes(), kind
