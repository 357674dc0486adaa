"""Files in and out of Slack.

In: a ``file_share`` message lists its files; each is fetched from its ``url_private_download``
with the bot token (``Authorization: Bearer``, which needs the ``files:read`` scope) and saved
under ``<media dir>/slack/``. The agent reads one line per file, nanobot's ``[image: <path>]``
or ``[file: <path>]``; images are also passed as images, so the model sees them. Slack answers
a request it does not authorise with its HTML sign-in page, which is taken as a failure.

Out: ``files_upload_v2`` (``files.getUploadURLExternal``, the upload, then
``files.completeUploadExternal`` into the conversation and thread). The file is read in a
worker thread, never on the event loop.
"""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from desktop.core.utils.mime import guess_type
from desktop.core.utils.redact import redact

log = logging.getLogger(__name__)

MAX_BYTES = 20 * 1024 * 1024
TIMEOUT_S = 30.0
_SAFE = re.compile(r"[^A-Za-z0-9._-]")


@dataclass
class Described:
    """What the agent gets for a message's files."""

    lines: list[str] = field(default_factory=list)
    images: list[str] = field(default_factory=list)


def _target(media_dir: Path, info: dict[str, Any]) -> Path:
    file_id = _SAFE.sub("_", str(info.get("id") or "file"))[:40]
    name = _SAFE.sub("_", Path(str(info.get("name") or info.get("title") or "")).name)[-80:]
    return media_dir / "slack" / (f"{file_id}_{name}" if name.strip("._") else file_id)


async def _download(
    session: aiohttp.ClientSession, url: str, token: str, path: Path, proxy: str | None
) -> None:
    async with session.get(
        url,
        headers={"Authorization": f"Bearer {token}"},
        proxy=proxy,
        timeout=aiohttp.ClientTimeout(total=TIMEOUT_S),
    ) as response:
        response.raise_for_status()
        if "text/html" in response.headers.get("Content-Type", "").lower():
            raise ValueError("Slack answered with a web page (is the files:read scope missing?)")
        data = await response.content.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise ValueError("too large")
    await asyncio.to_thread(_write, path, data)


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


async def describe(
    files: list[dict[str, Any]], media_dir: Path, token: str, proxy: str | None
) -> Described:
    """Download ``files`` and describe them (a failed one says so in its line)."""
    out = Described()
    if not files:
        return out
    async with aiohttp.ClientSession() as session:
        for info in files:
            mime = str(info.get("mimetype") or "")
            is_image = mime.startswith("image/")
            label = "image" if is_image else "file"
            name = str(info.get("name") or info.get("title") or info.get("id") or "file")
            url = info.get("url_private_download") or info.get("url_private")
            size = info.get("size")
            if isinstance(size, int) and size > MAX_BYTES:
                out.lines.append(f"[{label}: {name} — too large to download]")
                continue
            if not isinstance(url, str) or not url.startswith(("http://", "https://")):
                out.lines.append(f"[{label}: {name} — no download address]")
                continue
            path = _target(media_dir, info)
            try:
                await _download(session, url, token, path, proxy)
            except (aiohttp.ClientError, ValueError, OSError, TimeoutError) as exc:
                log.warning("Slack: downloading %s failed: %s", name, redact(exc))
                out.lines.append(f"[{label}: {name} — download failed]")
                continue
            out.lines.append(f"[{label}: {path}]")
            if is_image:
                out.images.append(str(path))
    return out


async def upload(client: Any, channel: str, thread_ts: str | None, path: Path) -> None:
    """Upload ``path`` into ``channel`` (and ``thread_ts``) with ``files_upload_v2``."""
    data = await asyncio.to_thread(path.read_bytes)
    kind = await guess_type(path.name) or ""
    await client.files_upload_v2(
        channel=channel,
        thread_ts=thread_ts,
        content=data,
        filename=path.name,
        title=path.name,
        snippet_type=None,
        alt_txt=path.name if kind.startswith("image/") else None,
    )
