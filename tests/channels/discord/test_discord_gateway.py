"""The Discord channel's gateway side without an agent: discord.py against the local Discord,
run by the real channel manager; what reaches the agent is read from the bus."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from discord.state import ConnectionState

from desktop.core.bus.events import InboundMessage, OutboundMessage
from desktop.core.bus.queue import MessageBus
from desktop.core.channels.discord.channel import DiscordChannel
from desktop.core.channels.manager import ChannelManager
from desktop.core.channels.registry import CHANNELS
from desktop.core.config.channels.discord import DiscordConfig
from desktop.core.utils.tasks import TaskOwner
from tests.channels.discord.conftest import until
from tests.channels.discord.discord_server import (
    ADA,
    BOT_ID,
    DM,
    GENERAL,
    GUILD_ID,
    TOKEN,
    DiscordServer,
    user,
)
from tests.typed import narrow


class Running:
    """A channel manager running only the Discord channel, and its bus."""

    def __init__(self, api: DiscordServer, tmp_path: Path, **settings: Any) -> None:
        self.bus = MessageBus()
        self.owner = TaskOwner("test")
        defaults: dict[str, Any] = {"allow_from": ["*"], "read_receipt_emoji": ""}
        self.section = DiscordConfig(
            enabled=True, token=TOKEN, api_base=api.base_url, **{**defaults, **settings}
        )
        self.manager = ChannelManager(
            self.bus,
            self.owner,
            config=SimpleNamespace(channels=SimpleNamespace(discord=self.section)),  # type: ignore[arg-type]
            state_dir=tmp_path / "state",
            media_dir=tmp_path / "media",
            send_delays=(0.05,),
            backoff=(0.05,),
            registry={"discord": CHANNELS["discord"]},
        )
        self.received: list[InboundMessage] = []
        self._reader: asyncio.Task[None] | None = None

    async def start(self, *, connected: bool = True) -> None:
        await self.manager.start()
        self._reader = asyncio.ensure_future(self._read())
        if connected:
            await until(lambda: self.manager.status("discord").ok, what="connected")

    async def _read(self) -> None:
        while True:
            message = await self.bus.consume_inbound()
            self.received.append(message)
            if message.ack is not None:
                await message.ack.resolve("saved")

    async def stop(self) -> None:
        await self.manager.stop()
        await self.owner.aclose()
        if self._reader is not None:
            self._reader.cancel()
            await asyncio.gather(self._reader, return_exceptions=True)

    def texts(self) -> list[str]:
        return [m.content for m in self.received]


@pytest.fixture
async def running(discord_api: DiscordServer, tmp_path: Path) -> AsyncIterator[Running]:
    run = Running(discord_api, tmp_path)
    await run.start()
    yield run
    await run.stop()


async def test_server_messages_need_a_mention_and_the_sender_must_be_allowed(
    discord_api: DiscordServer, tmp_path: Path
) -> None:
    run = Running(discord_api, tmp_path, allow_from=[str(ADA)])
    await run.start()
    try:
        mallory = user(ADA + 1, "mallory")
        discord_api.put_message(DM, "let me in", author=mallory)
        discord_api.put_message(GENERAL, "talking among ourselves", guild=True)
        bot = user(BOT_ID, "nanobot", bot=True)
        grace = user(ADA + 2, "grace")
        discord_api.put_message(
            GENERAL, f"<@{BOT_ID}> what do <@{ADA + 2}> and I owe?", guild=True,
            mentions=[bot, grace],
        )  # fmt: skip
        discord_api.put_message(DM, "and in private")
        await until(lambda: len(run.received) == 2, what="ada's two messages")
        last = discord_api.put_message(DM, "last")
        await until(lambda: len(run.received) == 3, what="the last message")
    finally:
        await run.stop()
    first, second, third = run.received
    assert first.content == "what do @Grace and I owe?" and first.chat_id == str(GENERAL)
    assert first.sender_id == f"{ADA}|ada" and first.metadata["is_group"] is True
    assert first.metadata["guild_id"] == str(GUILD_ID)
    assert second.content == "and in private" and second.metadata["is_group"] is False
    assert third.id == f"{DM}:{last['id']}"


async def test_an_allow_from_name_lets_nobody_in_an_id_or_a_renamed_pair_does(
    discord_api: DiscordServer, tmp_path: Path
) -> None:
    """allowFrom names Ada by her name only and Grace by an ``id|name`` pair from before she
    was renamed: someone who took the name "ada" is ignored (a name can change hands), and so
    is Ada herself; Grace, renamed since, is let in by her id."""
    grace = user(ADA + 2, "grace_renamed")
    run = Running(discord_api, tmp_path, allow_from=["ada", f"{ADA + 2}|grace"])
    await run.start()
    try:
        discord_api.put_message(DM, "let me in", author=user(ADA + 1, "ada"))
        discord_api.put_message(DM, "me too")  # Ada, named only by name
        discord_api.put_message(DM, "hello from grace", author=grace)
        await until(lambda: run.received, what="grace's message")
    finally:
        await run.stop()
    assert run.texts() == ["hello from grace"]
    assert run.received[0].sender_id == f"{ADA + 2}|grace_renamed"


async def test_open_policy_and_allowed_channels(discord_api: DiscordServer, tmp_path: Path) -> None:
    run = Running(discord_api, tmp_path, group_policy="open", allow_channels=[str(GENERAL)])
    await run.start()
    try:
        discord_api.put_message(GENERAL + 100, "elsewhere", guild=True)
        discord_api.put_message(GENERAL, "no mention needed", guild=True)
        await until(lambda: run.received, what="the open channel's message")
        discord_api.put_message(DM, "direct")
        await until(lambda: len(run.received) == 2, what="the direct message")
    finally:
        await run.stop()
    assert run.texts() == ["no mention needed", "direct"]


async def test_a_dropped_connection_resumes_and_nothing_arrives_twice(
    discord_api: DiscordServer, running: Running
) -> None:
    first = discord_api.put_message(DM, "before")
    await until(lambda: running.texts() == ["before"], what="the first message")
    discord_api.drop()
    discord_api.put_message(DM, "while away")  # kept by Discord for the resume
    await until(lambda: discord_api.resumes, what="discord.py resumed")
    await until(lambda: running.texts() == ["before", "while away"], what="the missed message")
    await until(lambda: running.manager.status("discord").ok, what="connected again")
    # Discord sends an event again (at least once): it is recognised and skipped.
    discord_api.dispatch("MESSAGE_CREATE", first)
    discord_api.put_message(DM, "after")
    await until(lambda: len(running.received) == 3, what="the next message")
    (resume,) = discord_api.resumes
    assert resume["seq"] == discord_api.last_seq - 3 and len(discord_api.identifies) == 1
    assert running.texts() == ["before", "while away", "after"]
    sent = OutboundMessage("discord", str(DM), "still here")
    assert await running.manager.deliver(sent)
    assert discord_api.texts(DM) == ["still here"]


async def test_the_status_follows_a_lost_connection_and_an_answer_waits_for_it(
    discord_api: DiscordServer, running: Running
) -> None:
    statuses: list[str] = []
    channel = running.manager.channel("discord")
    assert channel is not None
    channel.add_status_listener(lambda _, status: statuses.append(status.state))  # type: ignore[attr-defined]
    discord_api.drop()
    await until(lambda: "connecting" in statuses, what="the status says it reconnects")
    await until(lambda: statuses[-1] == "connected", what="connected again")
    assert await running.manager.deliver(OutboundMessage("discord", str(DM), "back"))
    assert discord_api.texts(DM) == ["back"]


async def test_stopping_while_discord_py_awaits_the_servers_leaves_no_task_behind(
    discord_api: DiscordServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After READY, discord.py waits for more GUILD_CREATEs in a task of its own
    (``_delay_ready``, 2 s after the last one); a stop meanwhile must end that task too."""
    made = ConnectionState.__init__

    def patient(self: ConnectionState, *args: Any, **kwargs: Any) -> None:
        made(self, *args, **kwargs)
        self.guild_ready_timeout = 60.0  # still waiting when the test stops, however slow

    monkeypatch.setattr(ConnectionState, "__init__", patient)
    run = Running(discord_api, tmp_path)
    await run.start()
    channel = run.manager.channel("discord")
    client = narrow(channel, DiscordChannel)._client
    assert client is not None
    waiting = client._connection._ready_task
    assert waiting is not None and not waiting.done()
    await run.stop()
    assert waiting.done()
    left = [t for t in asyncio.all_tasks() if "_delay_ready" in repr(t.get_coro())]
    assert not left


async def test_a_malformed_event_is_skipped_and_the_channel_goes_on(
    discord_api: DiscordServer, running: Running
) -> None:
    broken = discord_api.message(DM, "broken")
    del broken["author"]
    discord_api.dispatch("MESSAGE_CREATE", broken)
    discord_api.dispatch("MESSAGE_CREATE", {"id": "not a number", "channel_id": str(DM)})
    discord_api.dispatch("INTERACTION_CREATE", {"type": 3})
    discord_api.put_message(DM, "fine")
    await until(lambda: running.received, what="the good message")
    assert running.texts() == ["fine"]
    assert running.manager.status("discord").ok
    assert len(discord_api.identifies) == 1 and discord_api.connections == 1


async def test_a_bad_token_makes_the_channel_unavailable(
    discord_api: DiscordServer, tmp_path: Path
) -> None:
    run = Running(discord_api, tmp_path)
    run.section.token = "wrong-token-value"
    await run.start(connected=False)
    try:
        await until(lambda: run.manager.status("discord").state == "unavailable")
        status = run.manager.status("discord")
    finally:
        await run.stop()
    assert status.reason == "Discord did not accept the bot token."
    assert "Settings → Channels → Discord" in status.hint
    assert "wrong-token-value" not in status.reason + status.hint


async def test_no_token_is_a_clear_error(discord_api: DiscordServer, tmp_path: Path) -> None:
    run = Running(discord_api, tmp_path)
    run.section.token = ""
    await run.start(connected=False)
    try:
        await until(lambda: run.manager.status("discord").state == "unavailable")
        status = run.manager.status("discord")
    finally:
        await run.stop()
    assert status.reason == "No bot token is set." and "Developer Portal" in status.hint
    assert not discord_api.calls


async def test_the_settings_test_logs_in(discord_api: DiscordServer, tmp_path: Path) -> None:
    run = Running(discord_api, tmp_path)
    assert await run.manager.check("discord", run.section) == "Connected as @nanobot"
    run.section.token = "wrong"
    with pytest.raises(ValueError, match="did not accept the bot token"):
        await run.manager.check("discord", run.section)
