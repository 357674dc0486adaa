"""Fixtures for the Matrix channel: a real Synapse (session-wide), people who talk to the bot
through matrix-nio, and the real agent runtime with the Matrix channel enabled."""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import re
import shutil
import sys
import tempfile
import uuid
from collections import defaultdict
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from nio import (
    AsyncClient,
    AsyncClientConfig,
    RoomCreateResponse,
    RoomSendResponse,
    SyncResponse,
    TypingNoticeEvent,
)

from desktop.core.assembly import build_runtime
from desktop.core.config.schema import Config
from desktop.core.runtime import Runtime
from tests.channels.matrix.synapse import Account, Synapse, synapse_python
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.waiting import until as until

Condition = Callable[[], bool]


@pytest.fixture(scope="session")
def synapse(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Synapse]:
    """A real Synapse on a loopback port for the whole session (stopped afterwards)."""
    python = synapse_python()
    if not python.exists():
        message = f"Synapse is not installed ({python}); run scripts/setup.sh --test"
        if os.environ.get("NANOBOT_TEST_REQUIRE_SYNAPSE") == "1":
            pytest.fail(message)
        pytest.skip(message)
    # Its SQLite database on tmpfs when there is one: Synapse fsyncs every event.
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        directory = Path(tempfile.mkdtemp(prefix="nanobot-synapse-", dir=shm))
    else:
        directory = tmp_path_factory.mktemp("synapse")
    server = Synapse(directory, python)
    try:
        took = server.start()
        print(f"\n[matrix] Synapse answered {took:.2f} s after start", file=sys.stderr)
        yield server
    finally:
        server.stop()
        if directory.is_relative_to(shm):
            shutil.rmtree(directory, ignore_errors=True)


class Person:
    """Someone on the homeserver, using matrix-nio like any client would.

    A background sync records every message from others and the typing notices per room.
    """

    def __init__(self, server: Synapse, account: Account, store: Path | None = None) -> None:
        self.server = server
        self.account = account
        self.user_id = account.user_id
        config = AsyncClientConfig(max_timeouts=None, max_timeout_retry_wait_time=0.3,
                                   encryption_enabled=store is not None)  # fmt: skip
        self.client = AsyncClient(server.url, account.user_id, account.device_id,
                                  store_path=str(store or ""), config=config)  # fmt: skip
        self.client.access_token = account.access_token
        self.client.user_id = account.user_id
        if store is not None:  # an encrypting client, like Element
            store.mkdir(parents=True, exist_ok=True)
            self.client.load_store()
        self.decrypted: set[str] = set()  # ids of messages that arrived encrypted
        self.messages: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.typing: dict[str, list[tuple[str, ...]]] = defaultdict(list)
        self._since: str | None = None
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        if self.client.olm is not None and self.client.should_upload_keys:
            await self.client.keys_upload()
        first = await self.client.sync(timeout=0)
        assert isinstance(first, SyncResponse), first
        self._since = first.next_batch
        self._task = asyncio.create_task(self._sync())

    async def _keys(self) -> None:
        client = self.client
        if client.olm is None:
            return
        if client.should_upload_keys:
            await client.keys_upload()
        if client.should_query_keys:
            await client.keys_query()
        if client.should_claim_keys:
            await client.keys_claim(client.get_users_for_key_claiming())
        await client.send_to_device_messages()

    async def _sync(self) -> None:
        while True:
            try:
                response = await self.client.sync(timeout=500, since=self._since)
            except Exception:  # noqa: BLE001 - the server may be away (fault tests)
                await asyncio.sleep(0.1)
                continue
            if not isinstance(response, SyncResponse):
                await asyncio.sleep(0.1)
                continue
            for room_id, info in response.rooms.join.items():
                for event in info.timeline.events:
                    source = event.source
                    if (
                        source.get("type") == "m.room.message"
                        and source.get("sender") != self.user_id
                    ):
                        self.messages[room_id].append(source)
                        if getattr(event, "decrypted", False):
                            self.decrypted.add(str(source.get("event_id")))
                for event in info.ephemeral:
                    if isinstance(event, TypingNoticeEvent):
                        self.typing[room_id].append(tuple(event.users))
            self._since = response.next_batch
            try:
                await self._keys()
            except Exception:  # noqa: BLE001 - the server may be away (fault tests)
                await asyncio.sleep(0.1)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        await self.client.close()

    def bodies(self, room_id: str, sender: str) -> list[str]:
        """Bodies of ``sender``'s messages in ``room_id`` as seen so far, in order."""
        return [
            m["content"].get("body", "") for m in self.messages[room_id] if m["sender"] == sender
        ]

    async def create_room(self, *invite: str, direct: bool = True, encrypted: bool = False) -> str:
        state = [{"type": "m.room.encryption", "state_key": "",
                  "content": {"algorithm": "m.megolm.v1.aes-sha2"}}] if encrypted else []  # fmt: skip
        response = await self.client.room_create(
            invite=list(invite), is_direct=direct, initial_state=state
        )
        assert isinstance(response, RoomCreateResponse), response
        return str(response.room_id)

    async def join(self, room_id: str) -> None:
        response = await self.client.join(room_id)
        assert getattr(response, "room_id", None) == room_id, response

    async def invite(self, room_id: str, user_id: str) -> None:
        await self.client.room_invite(room_id, user_id)

    async def members(self, room_id: str) -> set[str]:
        response = await self.client.joined_members(room_id)
        return {m.user_id for m in getattr(response, "members", [])}

    async def wait_member(self, room_id: str, user_id: str, timeout: float = 20.0) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while user_id not in await self.members(room_id):
            assert loop.time() < deadline, f"{user_id} did not join {room_id}"
            await asyncio.sleep(0.05)

    async def say(self, room_id: str, text: str, **extra: Any) -> str:
        """Send a text message (``extra`` goes into the content); returns its event id."""
        return await self.raw(
            room_id, "m.room.message", {"msgtype": "m.text", "body": text, **extra}
        )

    async def say_encrypted(self, room_id: str, text: str) -> None:
        """Send a message the way an encrypting client does (Megolm, to unverified devices)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 60
        while not self.client.rooms.get(room_id) or not self.client.rooms[room_id].encrypted:
            assert loop.time() < deadline, "the room never showed up as encrypted"
            await asyncio.sleep(0.05)
        # Know the others' devices before the room key is shared: a key query made before the
        # bot's device had uploaded its keys shared the key with none of the bot's devices, and
        # the bot could never read the message (as an Element that had not fetched them).
        others = [u for u in self.client.rooms[room_id].users if u != self.client.user_id]

        def known() -> bool:
            return all(list(self.client.device_store.active_user_devices(u)) for u in others)

        while not known():
            assert loop.time() < deadline, f"the devices of {others} never became known"
            assert self.client.olm is not None
            self.client.olm.users_for_key_query.update(others)
            await self.client.keys_query()
            if not known():
                await asyncio.sleep(0.2)
        response = await self.client.room_send(
            room_id, "m.room.message", {"msgtype": "m.text", "body": text},
            ignore_unverified_devices=True,
        )  # fmt: skip
        assert isinstance(response, RoomSendResponse), response

    async def raw(self, room_id: str, event_type: str, content: dict[str, Any]) -> str:
        """Send any event content straight through the HTTP API (no client-side checks)."""
        url = (f"{self.server.url}/_matrix/client/v3/rooms/{room_id}/send/{event_type}/"
               f"{uuid.uuid4().hex}")  # fmt: skip
        headers = {"Authorization": f"Bearer {self.account.access_token}"}
        async with (
            aiohttp.ClientSession() as http,
            http.put(url, json=content, headers=headers) as r,
        ):
            body = await r.json()
            assert r.status == 200, body
            return str(body["event_id"])


PING = re.compile(r"ping-[\w-]+")


def echo_route(body: dict[str, Any]) -> Reply | None:
    """The scripted model answers ``ping-X`` with ``pong-X`` (the last user message's token)."""
    users = [m for m in body.get("messages", []) if m.get("role") == "user"]
    if not users:
        return None
    found = PING.findall(json.dumps(users[-1].get("content")))
    return Reply(f"pong-{found[-1][5:]}") if found else None


class MatrixWorld:
    """One test's accounts (bot, alice, mallory), alice's client, and runtime factory."""

    def __init__(self, synapse: Synapse, server: ScriptedOpenAIServer, tmp_path: Path) -> None:
        self.synapse = synapse
        self.model = server
        self.tmp_path = tmp_path
        tag = uuid.uuid4().hex[:8]
        self.bot = synapse.register(f"bot{tag}")
        self.alice = Person(synapse, synapse.register(f"alice{tag}"))
        self.mallory = Person(synapse, synapse.register(f"mallory{tag}"))
        self.carol = Person(synapse, synapse.register(f"carol{tag}"), tmp_path / "carol-store")
        self.runtimes: list[Runtime] = []
        server.route = echo_route

    def config(self, **matrix: Any) -> Config:
        section = {
            "enabled": True,
            "homeserver": self.synapse.url,
            "userId": self.bot.user_id,
            "accessToken": self.bot.access_token,
            "deviceId": self.bot.device_id,
            "allowFrom": [self.alice.user_id, self.carol.user_id],
            **matrix,
        }
        workspace = self.tmp_path / "ws"
        workspace.mkdir(exist_ok=True)
        return Config.model_validate(
            {"agents": {"defaults": {"workspace": str(workspace), "timezone": "UTC"}},
             "channels": {"matrix": section}}
        )  # fmt: skip

    async def start(self, *, approval: Any = None, clock: Any = None, **matrix: Any) -> Runtime:
        """Build and start the real runtime with the Matrix channel; waits until connected."""
        options: dict[str, Any] = {"approval": approval}
        if clock is not None:
            options["clock"] = clock
        runtime = await asyncio.to_thread(
            build_runtime, self.config(**matrix), make_provider(self.model.url), **options
        )
        runtime.channels.backoff = (0.2, 0.4, 0.8)
        runtime.channels.send_delays = (0.3, 1.0)
        self.runtimes.append(runtime)
        await runtime.start()
        await until(lambda: runtime.channels.status("matrix").ok, 60, "the channel connected")
        return runtime

    async def stop(self, runtime: Runtime) -> None:
        if runtime in self.runtimes:
            self.runtimes.remove(runtime)
            await runtime.stop()

    async def dm(self, runtime: Runtime | None = None) -> str:
        """A direct chat alice opened with the bot (joined by the bot)."""
        room = await self.alice.create_room(self.bot.user_id)
        await self.alice.wait_member(room, self.bot.user_id)
        return room

    def answers(self, room_id: str) -> list[str]:
        return self.alice.bodies(room_id, self.bot.user_id)


@pytest.fixture
async def world(
    synapse: Synapse, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> AsyncIterator[MatrixWorld]:
    """Accounts on the shared Synapse, alice's running client, runtimes stopped afterwards."""
    # LiteLLM's first import takes seconds (more on a busy machine): pay it here, not inside
    # the first test's answer deadline.
    await asyncio.to_thread(importlib.import_module, "litellm")
    world = await asyncio.to_thread(MatrixWorld, synapse, scripted_server, tmp_path)
    for person in (world.alice, world.mallory, world.carol):
        await person.start()
    yield world
    for runtime in list(world.runtimes):
        await world.stop(runtime)
    for person in (world.alice, world.mallory, world.carol):
        await person.close()
