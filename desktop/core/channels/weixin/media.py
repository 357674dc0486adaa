"""Files through WeChat's CDN: what people send, downloaded and decrypted; what the agent
sends, encrypted and uploaded.

A media item (``image_item``, ``file_item``, ``video_item``, ``voice_item``) names its file by
``media.full_url`` or ``media.encrypt_query_param`` (fetched as
``<cdnBaseUrl>/download?encrypted_query_param=…``). The bytes are AES-128-ECB encrypted with
PKCS#7 padding; the key is the image item's ``aeskey`` (32 hex characters) or ``media.aes_key``
(base64 of the 16 key bytes, or of their 32 hex characters). An image may come unencrypted.

Sending a file: ``ilink/bot/getuploadurl`` (size, MD5, a fresh key in hex) gives an upload
address; the encrypted bytes are POSTed there and the CDN answers with the file's
``x-encrypted-param``, which the message item names (with the key, base64 of its hex).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import os
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


UPLOAD_TYPES = {"image": 1, "video": 2, "file": 3, "voice": 4}
ITEM_TYPES = {"image": (2, "image_item"), "voice": (3, "voice_item"), "file": (4, "file_item"),
              "video": (5, "video_item")}  # fmt: skip
_KINDS = {
    "image": {".jpg", ".jpeg", ".png", ".gif", ".bmp", ".webp"},
    "video": {".mp4", ".mov", ".mkv", ".webm", ".avi"},
    "voice": {".mp3", ".wav", ".amr", ".silk", ".ogg", ".m4a", ".aac"},
}


def kind_of(path: Path) -> str:
    """How WeChat sends ``path``: image, video, voice or file (by its extension)."""
    suffix = path.suffix.lower()
    return next((kind for kind, found in _KINDS.items() if suffix in found), "file")


def encrypt(data: bytes, key: bytes) -> bytes:
    """AES-128-ECB with PKCS#7 padding (what the CDN takes)."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    pad = 16 - len(data) % 16
    encryptor = Cipher(algorithms.AES(key), modes.ECB()).encryptor()  # WeChat CDN format
    return encryptor.update(data + bytes([pad]) * pad) + encryptor.finalize()


async def upload(
    api: Any, path: Path, person: str, file_key: str, cdn_base_url: str
) -> dict[str, Any]:
    """Upload ``path`` for ``person`` (``getuploadurl``, then the encrypted bytes to the CDN);
    the message item that shows it.

    Raises:
        ValueError: The API or the CDN did not say where the file went.
        OSError: The file cannot be read.
    """
    data = await asyncio.to_thread(path.read_bytes)
    if len(data) > MAX_BYTES:
        raise ValueError("too large")
    kind = kind_of(path)
    key = os.urandom(16)
    sealed = await asyncio.to_thread(encrypt, data, key)
    answer = await api.call(
        "ilink/bot/getuploadurl",
        {"filekey": file_key, "media_type": UPLOAD_TYPES[kind], "to_user_id": person,
         "rawsize": len(data), "rawfilemd5": hashlib.md5(data).hexdigest(),
         "filesize": len(sealed), "no_need_thumb": True, "aeskey": key.hex()},
    )  # fmt: skip
    url = str(answer.get("upload_full_url") or "").strip()
    param = str(answer.get("upload_param") or "")
    if not url and not param:
        raise ValueError("getuploadurl gave no upload address")
    if not url:
        url = (f"{cdn_base_url.rstrip('/')}/upload?encrypted_query_param={quote(param)}"
               f"&filekey={quote(file_key)}")  # fmt: skip
    async with (
        aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=TIMEOUT_S)) as session,
        session.post(
            url, data=sealed, headers={"Content-Type": "application/octet-stream"}
        ) as response,
    ):
        response.raise_for_status()
        stored = response.headers.get("x-encrypted-param", "")
    if not stored:
        raise ValueError("the CDN did not say where the file went")
    item: dict[str, Any] = {
        "media": {"encrypt_query_param": stored,
                  "aes_key": base64.b64encode(key.hex().encode()).decode(), "encrypt_type": 1},
    }  # fmt: skip
    if kind == "image":
        item["mid_size"] = len(sealed)
    elif kind == "video":
        item["video_size"] = len(sealed)
    elif kind == "file":
        item["file_name"] = path.name
        item["len"] = str(len(data))
    number, field = ITEM_TYPES[kind]
    return {"type": number, field: item}
