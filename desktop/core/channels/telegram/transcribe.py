"""Voice messages as text: Groq's Whisper endpoint (OpenAI-compatible), when a Groq key exists.

The key is the Groq provider's (keyring, then ``providers.groq.apiKey``, then
``GROQ_API_KEY``, see :meth:`~desktop.core.config.secrets.SecretStore.resolve`); the endpoint
is ``<providers.groq.apiBase or https://api.groq.com/openai/v1>/audio/transcriptions``.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from desktop.core.utils.redact import redact, register_secret

log = logging.getLogger(__name__)

GROQ_API_BASE = "https://api.groq.com/openai/v1"
WHISPER_MODEL = "whisper-large-v3"
TIMEOUT_S = 60.0
NO_KEY_NOTE = "(voice message: no transcription available — set a Groq key)"


@dataclass(frozen=True)
class GroqAccess:
    """Where and with which key to transcribe."""

    api_key: str
    api_base: str = GROQ_API_BASE


async def groq_access(app_config: Any) -> GroqAccess | None:
    """The Groq key and endpoint from the app's config and keyring, or ``None``."""
    if app_config is None:
        return None
    from desktop.core.config.secrets import SecretStore

    try:
        resolved = await SecretStore().aresolve("groq", app_config)
    except Exception as exc:  # noqa: BLE001 - a broken keyring must not lose the message
        log.warning("looking up the Groq key failed: %s", redact(exc))
        return None
    if not resolved.found or resolved.value is None:
        return None
    register_secret(resolved.value)
    section = app_config.provider_config("groq")
    base = (getattr(section, "api_base", None) or GROQ_API_BASE).rstrip("/")
    return GroqAccess(resolved.value, base)


async def transcribe(path: Path, access: GroqAccess, *, timeout: float = TIMEOUT_S) -> str:
    """The spoken text of the audio file at ``path``.

    Raises:
        httpx.HTTPError: The request failed.
        TypeError: The answer had no text.
    """
    data = await asyncio.to_thread(path.read_bytes)
    async with httpx.AsyncClient(timeout=timeout) as client:
        response = await client.post(
            f"{access.api_base}/audio/transcriptions",
            headers={"Authorization": f"Bearer {access.api_key}"},
            data={"model": WHISPER_MODEL, "response_format": "json"},
            files={"file": (path.name, data, "application/octet-stream")},
        )
        response.raise_for_status()
        text = response.json().get("text")
    if not isinstance(text, str):
        raise TypeError("the transcription answer had no text")
    return text.strip()
