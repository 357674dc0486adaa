"""Pictures, files and videos people send: downloaded from WeChat's CDN and decrypted.

A media item (``image_item``, ``file_item``, ``video_item``, ``voice_item``) names its file by
``media.full_url`` or ``media.encrypt_query_param`` (fetched as
``<cdnBaseUrl>/download?encrypted_query_param=…``). The bytes are AES-128-ECB encrypted with
PKCS#7 padding; the key is the image item's ``aeskey`` (32 hex characters) or ``media.aes_key``
(base64 of the 16 key bytes, or of their 32 hex characters). An image may come unencrypted.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

import aiohttp

MAX_BYTES = 100 * 1024 * 1024
TIMEOUT_S = 60.0
_SAFE = re.compile(r"[^\w.\-()\[\]（）【】]+", re.UNICODE)
_HEX = re.compile(r"[0-9a-fA-F]{32}")


def key_of(item: dict[str, Any]) -> bytes | None:
    """The item's AES key (``None``: not encrypted, or no usable key)."""
    hex_key = item.get("aeskey")
    if isinstance(hex_key, str) and _HEX.fullmatch(hex_key):
        return bytes.fromhex(hex_key)
    media = item.get("media") if isinstance(item.get("media"), dict) else {}
    encoded = media.get("aes_key") if isinstance(media, dict) else None
    if not isinstance(encoded, str) or not encoded:
        return None
    try:
        raw = base64.b64decode(encoded)
    except (binascii.Error, ValueError):
        return None
    if len(raw) == 16:
        return raw
    if _HEX.fullmatch(raw.decode("ascii", "replace")):
        return bytes.fromhex(raw.decode("ascii"))
    return None


def sources(item: dict[str, Any], cdn_base_url: str) -> list[str]:
    """Where the item's bytes can be fetched, best first."""
    media = item.get("media") if isinstance(item.get("media"), dict) else {}
    found: list[str] = []
    full = media.get("full_url") if isinstance(media, dict) else None
    if isinstance(full, str) and full.startswith(("http://", "https://")):
        found.append(full)
    param = media.get("encrypt_query_param") if isinstance(media, dict) else None
    if isinstance(param, str) and param:
        found.append(f"{cdn_base_url.rstrip('/')}/download?encrypted_query_param={quote(param)}")
    return found


def decrypt(data: bytes, key: bytes) -> bytes:
    """AES-128-ECB with PKCS#7 padding."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    if len(data) % 16:
        raise ValueError("the encrypted file is not whole")
    decryptor = Cipher(algorithms.AES(key), modes.ECB()).decryptor()  # WeChat CDN format
    plain = decryptor.update(data) + decryptor.finalize()
    pad = plain[-1] if plain else 0
    if not 1 <= pad <= 16 or plain[-pad:] != bytes([pad]) * pad:
        raise ValueError("the file did not decrypt (wrong key?)")
    return plain[:-pad]


def safe_name(name: str, fallback: str) -> str:
    """A file name safe to create in the media folder."""
    cleaned = _SAFE.sub("_", Path(name.strip()).name).strip("._ ")
    return cleaned[-120:] or fallback


async def download(
    item: dict[str, Any], kind: str, name: str, cdn_base_url: str, folder: Path
) -> Path:
    """Fetch, decrypt and save the item into ``folder``; its path.

    Raises:
        ValueError: No address, no key where one is needed, too large, or it did not decrypt.
        aiohttp.ClientError: The CDN did not give it.
    """
    urls = sources(item, cdn_base_url)
    if not urls:
        raise ValueError("no download address")
    key = key_of(item)
    if key is None and kind != "image":
        raise ValueError("no key to decrypt it")
    data = b""
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=TIMEOUT_S)) as session:
        for number, url in enumerate(urls):
            try:
                async with session.get(url) as response:
                    response.raise_for_status()
                    data = await response.content.read(MAX_BYTES + 1)
                break
            except aiohttp.ClientError:
                if number == len(urls) - 1:
                    raise
    if len(data) > MAX_BYTES:
        raise ValueError("too large")
    if key is not None:
        data = await asyncio.to_thread(decrypt, data, key)
    path = folder / name
    await asyncio.to_thread(_write, path, data)
    return path


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
