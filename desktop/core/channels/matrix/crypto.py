"""End-to-end encryption for the Matrix channel (matrix-nio's Olm/Megolm, on vodozemac).

Encryption is on when ``e2eeEnabled`` is set, the crypto part of matrix-nio is installed
(``matrix-nio[e2e]``, part of the ``matrix`` extra) and the channel logs in with an access
token: the token's device is then a stable identity whose keys live in a local store. A
password login makes a new device at every start, so it runs without encryption.

The store (``<channel state>/matrix-store/``, SQLite) holds the device's keys and the room
keys others shared with it — what every Matrix client keeps. It is encrypted with a key
derived from the access token, which itself lives in the keyring; a new token means a new
device and a new store.

Threads. Opening the store (connecting, creating or upgrading its tables, reading the account,
the Olm sessions and the encrypted rooms) happens in a worker thread, before anything else
uses the client. From then on nio uses it from the event loop's thread only, as it handles a
sync or a send: a few small writes per encrypted event, inside nio's synchronous response
handling, which cannot be moved (nio's client is not thread-safe). peewee keeps one SQLite
connection per thread by default, so :class:`.store.Store` keeps a single connection that may be
used from another thread than the one that opened it (never by two at once).
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path
from typing import Any

from nio import AsyncClient
from nio.crypto import ENCRYPTION_ENABLED
from nio.crypto.attachments import decrypt_attachment

log = logging.getLogger(__name__)

AVAILABLE: bool = bool(ENCRYPTION_ENABLED)
"""Whether matrix-nio's crypto dependencies are installed."""


def wanted(config: Any) -> bool:
    """Whether the channel should run with encryption (see the module docstring)."""
    return bool(config.e2ee_enabled and AVAILABLE and config.access_token)


def store_dir(state_path: Path) -> Path:
    """Where the crypto store lives: beside the channel's state file."""
    return state_path.parent / "matrix-store"


def store_class() -> type[Any]:
    """The crypto store class (:class:`.store.Store`; needs the crypto part of matrix-nio)."""
    from desktop.core.channels.matrix.store import Store

    return Store


def open_store(client: AsyncClient) -> None:
    """Open ``client``'s crypto store and load its keys (blocking: call in a worker thread,
    before anything else uses the client)."""
    client.load_store()


def close_store(client: AsyncClient) -> None:
    """Close ``client``'s crypto store connection, if it opened one (nothing is left to write:
    nio commits each change as it makes it)."""
    store = client.store
    if store is not None:
        store.database.close()


def pickle_key(access_token: str) -> str:
    """The store's encryption passphrase, derived from the access token."""
    return hashlib.sha256(b"nanobot-desktop matrix store\0" + access_token.encode()).hexdigest()


async def upkeep(client: AsyncClient) -> None:
    """What an encrypting client does after each sync: publish its keys, learn the devices
    of the people it shares rooms with, claim one-time keys, send queued key shares."""
    if client.olm is None:
        return
    if client.should_upload_keys:
        await client.keys_upload()
    if client.should_query_keys:
        await client.keys_query()
    if client.should_claim_keys:
        await client.keys_claim(client.get_users_for_key_claiming())
    await client.send_to_device_messages()


def decrypt_file(event: Any, data: bytes) -> bytes | None:
    """The plain bytes of an encrypted attachment, or ``None`` when they do not check out."""
    key = event.key.get("k") if isinstance(event.key, dict) else None
    digest = event.hashes.get("sha256") if isinstance(event.hashes, dict) else None
    if not isinstance(key, str) or not isinstance(digest, str) or not isinstance(event.iv, str):
        return None
    try:
        return bytes(decrypt_attachment(data, key, digest, event.iv))
    except Exception as exc:  # noqa: BLE001 - any failure: the file is not usable
        log.warning("matrix: an encrypted attachment could not be decrypted (%s)", exc)
        return None
