"""Downloading a file a person sent in Teams (aiohttp; written in a worker thread)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp

MAX_BYTES = 50 * 1024 * 1024
TIMEOUT_S = 60.0


async def download(url: str, token: str | None, path: Path) -> None:
    """Fetch ``url`` (with the bot's ``token`` when given) into ``path``.

    Raises:
        ValueError: Not an http(s) address, or larger than :data:`MAX_BYTES`.
        aiohttp.ClientError: The download failed.
    """
    if not url.startswith(("https://", "http://")):
        raise ValueError("no download address")
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    timeout = aiohttp.ClientTimeout(total=TIMEOUT_S)
    async with (
        aiohttp.ClientSession(timeout=timeout) as session,
        session.get(url, headers=headers) as response,
    ):
        response.raise_for_status()
        data = await response.content.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise ValueError("too large")
    await asyncio.to_thread(_write, path, data)


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
