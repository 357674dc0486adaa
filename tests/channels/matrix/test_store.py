"""The crypto store is opened in a worker thread, then used by the event loop's thread on the
same SQLite connection (peewee's default, one connection per thread, would leave the worker's
behind and connect again on the loop)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

from nio import AsyncClient, AsyncClientConfig

from desktop.core.channels.matrix import crypto


def _client(store_path: Path) -> AsyncClient:
    config = AsyncClientConfig(
        encryption_enabled=True,
        store=crypto.store_class(),
        pickle_key=crypto.pickle_key("syt_local_token"),
        store_sync_tokens=False,
    )
    client = AsyncClient(
        "http://127.0.0.1:9", "@bot:local", device_id="BOTDEVICE",
        store_path=str(store_path), config=config,
    )  # fmt: skip
    client.user_id = "@bot:local"  # as after the channel's whoami
    return client


def _open(client: AsyncClient) -> tuple[Any, int]:
    crypto.open_store(client)
    return client.store.database.connection(), threading.get_ident()


async def test_the_store_opened_in_a_thread_is_used_by_the_loop_on_the_same_connection(
    tmp_path: Path,
) -> None:
    client = _client(tmp_path)
    try:
        opened, worker = await asyncio.to_thread(_open, client)
        assert worker != threading.get_ident()
        assert client.olm is not None, "the keys were loaded (a new account made and saved)"
        assert client.store.database.connection() is opened, "no second connection"
        client.store.save_account(client.olm.account)  # the loop's use: no thread check
        identity = client.olm.account.identity_keys
        crypto.close_store(client)
        assert client.store.database.is_closed()
    finally:
        await client.close()

    again = _client(tmp_path)  # the next start finds the same device keys
    try:
        await asyncio.to_thread(crypto.open_store, again)
        assert again.olm is not None and again.olm.account.identity_keys == identity
    finally:
        crypto.close_store(again)
        await again.close()


def test_closing_a_client_without_a_store_does_nothing(tmp_path: Path) -> None:
    client = _client(tmp_path)
    crypto.close_store(client)
    assert client.store is None
    assert not list(tmp_path.iterdir()), "nothing was opened"
