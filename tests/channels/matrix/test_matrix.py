"""The Matrix channel against a real Synapse, with the real agent runtime on the scripted
model server: invites, direct chats, rooms and the group policy, typing, restarts, faults,
reminders and approvals answered in the chat."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from desktop.core.agent.approval import ApprovalPolicy
from desktop.core.assembly import channel_state_dir
from desktop.core.bus.events import ChannelStatusChanged, DeliveryFailed, RunEvent
from desktop.core.channels.base import ChannelUnavailable
from desktop.core.channels.matrix import channel as matrix_channel
from desktop.core.config.channels.matrix import MatrixConfig
from tests.channels.matrix.conftest import MatrixWorld, Person, echo_route, until
from tests.channels.matrix.synapse import Account
from tests.core.cron.test_cron import FakeClock
from tests.fakes.openai_server import Reply, Stall


def _pongs(world: MatrixWorld, room: str) -> list[str]:
    return [a for a in world.answers(room) if a.startswith("pong-")]


async def test_invite_dm_markdown_answer_and_typing(world: MatrixWorld) -> None:
    """alice opens a direct chat: the bot joins (alice is in allowFrom), shows as typing
    while the turn runs, and answers with Markdown rendered to HTML plus a plain body."""
    runtime = await world.start()
    world.model.route = None
    world.model.push(Stall(1.0, Reply("**Hi** there")))
    room = await world.dm()
    await world.alice.say(room, "hello")
    await until(lambda: world.answers(room) == ["**Hi** there"], what="the answer")
    answer = world.alice.messages[room][-1]["content"]
    assert answer["format"] == "org.matrix.custom.html"
    assert answer["formatted_body"] == "<p><strong>Hi</strong> there</p>"
    assert answer["msgtype"] == "m.text"
    bot = world.bot.user_id
    await until(lambda: any(bot in users for users in world.alice.typing[room]), what="typing")
    await until(lambda: bot not in world.alice.typing[room][-1], what="typing stopped")
    lines = runtime.sessions.path_for(f"matrix:{room}").read_text().splitlines()
    assert [json.loads(line).get("role") for line in lines[1:]] == ["user", "assistant"]


async def test_room_mentions_and_replies_under_the_mention_policy(world: MatrixWorld) -> None:
    """In a room with three members the bot answers only a mention or a reply to itself."""
    await world.start(groupPolicy="mention")
    bot = world.bot.user_id
    room = await world.alice.create_room(bot, world.mallory.user_id, direct=False)
    await world.mallory.join(room)
    await world.alice.wait_member(room, bot)
    await world.alice.say(room, "not for the bot ping-a")
    await world.alice.say(room, "bot, ping-b", **{"m.mentions": {"user_ids": [bot]}})
    await until(lambda: _pongs(world, room) == ["pong-b"], what="the mention answered")
    answer_id = world.alice.messages[room][-1]["event_id"]
    await world.alice.say(
        room, "and ping-c", **{"m.relates_to": {"m.in_reply_to": {"event_id": answer_id}}}
    )
    await world.alice.say(room, f"legacy pill {bot} ping-d")
    await world.alice.say(room, "everyone ping-e", **{"m.mentions": {"room": True}})
    await world.alice.say(room, "barrier ping-f", **{"m.mentions": {"user_ids": [bot]}})
    await until(lambda: "pong-f" in _pongs(world, room), what="the barrier answered")
    assert _pongs(world, room) == ["pong-b", "pong-c", "pong-d", "pong-f"]


async def test_senders_outside_allow_from_are_ignored(world: MatrixWorld) -> None:
    """mallory is not in allowFrom: her invite stays pending and her messages in a shared room
    (open policy) are not answered; alice's are."""
    await world.start()
    bot = world.bot.user_id
    own = await world.mallory.create_room(bot)
    room = await world.alice.create_room(bot, world.mallory.user_id, direct=False)
    await world.mallory.join(room)
    await world.alice.wait_member(room, bot)
    await world.mallory.say(room, "ping-m1", **{"m.mentions": {"user_ids": [bot]}})
    await world.alice.say(room, "ping-a1")
    await until(lambda: _pongs(world, room) == ["pong-a1"], what="alice answered")
    assert bot not in await world.mallory.members(own), "the stranger's invite was not accepted"
    assert all("m1" not in a for a in world.answers(room))


async def test_restart_answers_nothing_twice_and_nothing_old(
    world: MatrixWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first start answers no history; messages sent while the app is off are answered
    after a restart (also past a sync gap), none twice (the sync token is persisted)."""
    bot = world.bot.user_id
    room = await world.alice.create_room(bot)
    from nio import AsyncClient

    joiner = AsyncClient(world.synapse.url, bot)
    joiner.access_token, joiner.user_id = world.bot.access_token, bot
    await joiner.join(room)
    await joiner.close()
    await world.alice.say(room, "old history ping-old")

    runtime = await world.start()
    await world.alice.say(room, "ping-1")
    await until(lambda: _pongs(world, room) == ["pong-1"], what="the first answer")
    await world.stop(runtime)
    saved = json.loads((channel_state_dir(runtime.config) / "matrix.json").read_text())
    assert saved["values"]["next_batch"] and saved["seen"], "the cursor is on disk"
    assert saved["values"]["account"] == f"{bot} on {world.synapse.url}"
    for n in range(2, 6):  # four messages while off, more than one sync carries (limit 2)
        await world.alice.say(room, f"ping-{n}")
    monkeypatch.setattr(matrix_channel, "SYNC_FILTER", matrix_channel._filter(2))
    await world.start()
    await until(lambda: len(_pongs(world, room)) >= 5, what="the missed messages answered")
    await world.alice.say(room, "ping-7")
    await until(lambda: "pong-7" in _pongs(world, room), what="the barrier answered")
    assert _pongs(world, room) == ["pong-1", "pong-2", "pong-3", "pong-4", "pong-5", "pong-7"]


async def test_a_crash_before_the_cursor_was_saved_answers_nothing_twice(
    world: MatrixWorld,
) -> None:
    """Messages are marked handled as soon as they were passed on: when the app dies after
    that but before the sync token was saved, the restart reads the batch again and skips
    what it already passed on."""
    runtime = await world.start()
    room = await world.dm()
    path = channel_state_dir(runtime.config) / "matrix.json"
    before = json.loads(path.read_text())["values"]["next_batch"]
    await world.alice.say(room, "ping-1")
    await until(lambda: _pongs(world, room) == ["pong-1"], what="the first answer")
    await world.stop(runtime)
    saved = json.loads(path.read_text())
    saved["values"]["next_batch"] = before  # as if the cursor had not been written yet
    path.write_text(json.dumps(saved))
    await world.start()
    await world.alice.say(room, "ping-2")
    await until(lambda: "pong-2" in _pongs(world, room), what="the barrier answered")
    assert _pongs(world, room) == ["pong-1", "pong-2"]


async def test_history_from_before_the_bot_joined_is_not_answered(world: MatrixWorld) -> None:
    """A room with earlier conversation: after the invite the bot answers only what is said
    once it is there."""
    await world.start()
    room = await world.alice.create_room(direct=False)
    await world.alice.say(room, "said before the bot came ping-early")
    await world.alice.invite(room, world.bot.user_id)
    await world.alice.wait_member(room, world.bot.user_id)
    await world.alice.say(room, "ping-late")
    await until(lambda: "pong-late" in _pongs(world, room), what="the answer")
    assert _pongs(world, room) == ["pong-late"]


async def test_the_homeserver_vanishes_and_returns(
    world: MatrixWorld, caplog: pytest.LogCaptureFixture
) -> None:
    """Synapse is killed while a turn runs and comes back only after the answer failed to
    go out: the channel reconnects, the pending answer is delivered once (the channel waits
    for the reconnect itself: the manager gets no retries here), later messages are answered
    once."""
    runtime = await world.start()
    runtime.channels.send_delays = ()
    caplog.set_level(logging.INFO, logger="desktop.core.channels.matrix")
    events: list[RunEvent] = []
    runtime.bus.subscribe(events.append)

    def route(body: dict[str, Any]) -> Any:
        step = echo_route(body)
        return Stall(1.0, step) if step is not None and step.text == "pong-2" else step

    world.model.route = route
    room = await world.dm()
    await world.alice.say(room, "ping-1")
    await until(lambda: _pongs(world, room) == ["pong-1"], what="the first answer")
    await world.alice.say(room, "ping-2")
    await until(lambda: "ping-2" in json.dumps(world.model.chat_requests()[-1].body), what="turn")
    world.synapse.kill()

    def send_failed() -> bool:
        waiting = any("waiting for the homeserver" in r.getMessage() for r in caplog.records)
        return waiting or any(isinstance(e, DeliveryFailed) for e in events)

    await until(send_failed, what="the answer could not go out")
    world.synapse.start()
    await until(lambda: _pongs(world, room) == ["pong-1", "pong-2"], 40, "the pending answer")
    await world.alice.say(room, "ping-3")
    await until(lambda: "pong-3" in _pongs(world, room), what="the answer after the return")
    assert _pongs(world, room) == ["pong-1", "pong-2", "pong-3"]
    states = [e.state for e in events if isinstance(e, ChannelStatusChanged)]
    assert "error" in states and states[-1] == "connected"
    assert not any(isinstance(e, DeliveryFailed) for e in events)


async def test_a_malformed_event_is_logged_and_skipped(
    world: MatrixWorld, caplog: pytest.LogCaptureFixture
) -> None:
    """Events the SDK cannot read are logged and skipped; odd but readable ones are handled;
    the channel stays connected throughout."""
    runtime = await world.start()
    room = await world.dm()
    caplog.set_level(logging.WARNING, logger="desktop.core.channels.matrix")
    await world.alice.raw(room, "m.room.message", {"msgtype": "m.text", "body": "ping-bad1",
                          "format": "org.matrix.custom.html", "formatted_body": 7})  # fmt: skip
    await world.alice.raw(room, "m.room.message", {"msgtype": "m.image", "body": "ping-bad2"})
    await world.alice.raw(room, "m.room.message", {"msgtype": "m.text", "body": "ping-odd",
                          "m.relates_to": 5, "m.new_content": 3})  # fmt: skip
    await world.alice.say(room, "ping-ok")
    await until(lambda: "pong-ok" in _pongs(world, room), what="the good message answered")
    assert _pongs(world, room) == ["pong-odd", "pong-ok"]
    skipped = [r for r in caplog.records if "malformed event" in r.getMessage()]
    assert len(skipped) == 2
    assert runtime.channels.status("matrix").ok


async def test_a_flood_of_100_messages_across_10_chats(world: MatrixWorld) -> None:
    """Ten direct chats, ten messages each sent interleaved: every message is answered once,
    in order within its chat."""
    await world.start()
    rooms = [await world.alice.create_room(world.bot.user_id) for _ in range(10)]
    for room in rooms:
        await world.alice.wait_member(room, world.bot.user_id)

    async def talk(r: int, room: str) -> None:  # the ten chats at once, each in order
        for n in range(10):
            await world.alice.say(room, f"ping-{r}-{n}")

    await asyncio.gather(*(talk(r, room) for r, room in enumerate(rooms)))

    def done() -> bool:
        return sum(len(_pongs(world, room)) for room in rooms) >= 100

    await until(done, 60, "100 answers")
    # A last message per chat: any duplicate would have been answered before it.
    await asyncio.gather(*(world.alice.say(room, f"ping-{r}-end") for r, room in enumerate(rooms)))
    await until(lambda: all(_pongs(world, room)[-1:] == [f"pong-{r}-end"]
                            for r, room in enumerate(rooms)), 30, "the last messages")  # fmt: skip
    for r, room in enumerate(rooms):
        assert _pongs(world, room) == [*(f"pong-{r}-{n}" for n in range(10)), f"pong-{r}-end"]


async def test_a_reminder_made_in_a_chat_is_delivered_there(world: MatrixWorld) -> None:
    """The model schedules a reminder in a Matrix chat; when it is due, its answer is posted
    into that room."""
    clock = FakeClock("2026-05-01T10:00:00+00:00")
    runtime = await world.start(clock=clock)
    room = await world.dm()
    world.model.route = None
    call = {"action": "add", "message": "Stretch your legs", "at": "2026-05-01T10:30:00"}
    world.model.push(Reply(tool_calls=[("cron", json.dumps(call))]), Reply("Scheduled."))
    await world.alice.say(room, "remind me at 10:30 to stretch")
    await until(lambda: world.answers(room) == ["Scheduled."], what="the confirmation")
    world.model.push(Reply("Time to stretch your legs!"))
    clock.set("2026-05-01T10:30:00+00:00")
    await runtime.cron.tick()
    await until(lambda: world.answers(room)[-1:] == ["Time to stretch your legs!"], what="reminder")


async def test_an_approval_is_answered_in_the_chat(world: MatrixWorld) -> None:
    """In "ask" mode the bot asks in the room before running a shell command; alice's "allow"
    answers it (and is not a message for the agent); the command runs."""
    await world.start(approval=ApprovalPolicy())
    room = await world.dm()
    world.model.route = None
    command = {"command": "echo approved-by-alice"}
    world.model.push(Reply(tool_calls=[("exec", json.dumps(command))]), Reply("Done."))
    await world.alice.say(room, "run the echo")
    await until(lambda: any("exec" in a for a in world.answers(room)), what="the question")
    assert "allow" in world.answers(room)[-1]
    await world.alice.say(room, "allow")
    await until(lambda: world.answers(room)[-1:] == ["Done."], what="the final answer")
    requests = world.model.chat_requests()
    assert len(requests) == 2, "the keyword reply did not start another turn"
    tools = [m for m in requests[1].body["messages"] if m["role"] == "tool"]
    assert "approved-by-alice" in json.dumps(tools)


async def test_encrypted_rooms_get_one_notice(world: MatrixWorld) -> None:
    """With encryption off, encrypted messages cannot be read: the room gets a single notice
    saying so."""
    await world.start(e2eeEnabled=False)
    room = await world.alice.create_room(world.bot.user_id, encrypted=True)
    await world.alice.wait_member(room, world.bot.user_id)
    garbage = {"algorithm": "m.megolm.v1.aes-sha2", "ciphertext": "AAAA", "sender_key": "k",
               "session_id": "s", "device_id": "D"}  # fmt: skip
    await world.alice.raw(room, "m.room.encrypted", garbage)
    await world.alice.raw(room, "m.room.encrypted", garbage)
    await world.alice.say(room, "plain ping-p")
    await until(lambda: "pong-p" in world.answers(room), what="the barrier answered")
    notices = [m for m in world.alice.messages[room] if m["content"].get("msgtype") == "m.notice"]
    assert len(notices) == 1 and "encrypted" in notices[0]["content"]["body"]


async def test_an_encrypted_direct_chat_end_to_end(world: MatrixWorld) -> None:
    """carol's client encrypts (as Element does for new direct chats): the bot decrypts her
    messages and answers encrypted, also after a restart (its keys are in its store, which
    holds no access token)."""
    runtime = await world.start()
    carol, bot = world.carol, world.bot.user_id
    room = await carol.create_room(bot, encrypted=True)
    await carol.wait_member(room, bot)
    await carol.say_encrypted(room, "secret ping-e1")

    def answers() -> list[str]:
        return carol.bodies(room, bot)

    await until(lambda: answers() == ["pong-e1"], 60, "the encrypted answer")
    assert {m["event_id"] for m in carol.messages[room]} <= carol.decrypted, "sent encrypted"
    assert "ping-e1" in json.dumps(world.model.chat_requests()[-1].body), "the model read it"
    await world.stop(runtime)
    await world.start()
    await carol.say_encrypted(room, "secret ping-e2")
    await until(lambda: answers() == ["pong-e1", "pong-e2"], 60, "the answer after a restart")
    state = channel_state_dir(runtime.config)
    files = [p for p in state.rglob("*") if p.is_file()]
    assert any(p.parent.name == "matrix-store" for p in files), files
    token = world.bot.access_token.encode()

    def holds_token(path: Path) -> bool:
        try:
            return token in path.read_bytes()
        except FileNotFoundError:  # an atomic write's temporary file, renamed meanwhile
            return False

    assert not any(holds_token(p) for p in files)


async def test_a_new_device_of_a_person_gets_the_keys(world: MatrixWorld) -> None:
    """carol signs in on a second device: the bot learns of it (key upkeep after each sync),
    reads what it sends and encrypts its answers for it too."""
    await world.start()
    carol, bot = world.carol, world.bot.user_id
    room = await carol.create_room(bot, encrypted=True)
    await carol.wait_member(room, bot)
    await carol.say_encrypted(room, "ping-d1")
    await until(lambda: carol.bodies(room, bot) == ["pong-d1"], what="the first answer")
    login = await carol.client.login_raw(
        {"type": "m.login.password", "identifier": {"type": "m.id.user", "user": carol.user_id},
         "password": carol.account.password}
    )  # fmt: skip
    second = Account(carol.user_id, carol.account.password, login.access_token, login.device_id)
    phone = Person(world.synapse, second, world.tmp_path / "carol-phone")
    await phone.start()
    try:
        await phone.say_encrypted(room, "ping-d2")
        await until(lambda: phone.bodies(room, bot) == ["pong-d2"], what="the phone's answer")
        assert {m["event_id"] for m in phone.messages[room]} <= phone.decrypted
    finally:
        await phone.close()


async def test_a_crypto_store_it_cannot_open_is_kept_and_the_channel_runs(
    world: MatrixWorld, caplog: pytest.LogCaptureFixture
) -> None:
    """The same device with another access token cannot open the store (its key comes from
    the token): the store is left untouched, the channel runs without encryption."""
    runtime = await world.start()
    await world.stop(runtime)
    store = channel_state_dir(runtime.config) / "matrix-store"
    before = {p: p.read_bytes() for p in store.rglob("*") if p.is_file()}
    assert before, "the first run made a store"
    from nio import AsyncClient

    other = AsyncClient(world.synapse.url, world.bot.user_id)
    login = await other.login_raw(
        {"type": "m.login.password", "identifier": {"type": "m.id.user", "user": world.bot.user_id},
         "password": world.bot.password, "device_id": world.bot.device_id}
    )  # fmt: skip
    await other.close()
    assert login.device_id == world.bot.device_id and login.access_token != world.bot.access_token
    caplog.set_level(logging.WARNING, logger="desktop.core.channels.matrix")
    await world.start(accessToken=login.access_token)
    room = await world.dm()
    await world.alice.say(room, "ping-s")
    await until(lambda: _pongs(world, room) == ["pong-s"], what="the answer")
    assert any("could not be opened" in r.getMessage() for r in caplog.records)
    assert {p: p.read_bytes() for p in store.rglob("*") if p.is_file()} == before


async def test_password_login_and_the_settings_test(world: MatrixWorld) -> None:
    """Settings → Test proves the credentials; a bad token is refused with a hint; a password
    login works and its session is logged out when the channel stops."""
    runtime = await world.start(accessToken="", deviceId="", password=world.bot.password)
    room = await world.dm()
    await world.alice.say(room, "ping-pw")
    await until(lambda: _pongs(world, room) == ["pong-pw"], what="the answer")
    good = world.config().channels.matrix
    assert await runtime.channels.check("matrix", good) == f"Connected as {world.bot.user_id}"
    bad = MatrixConfig.model_validate({**good.model_dump(by_alias=True), "accessToken": "nope"})
    with pytest.raises(ChannelUnavailable, match="rejected the access token"):
        await runtime.channels.check("matrix", bad)
    empty = MatrixConfig.model_validate({"homeserver": world.synapse.url})
    with pytest.raises(ChannelUnavailable, match="access token"):
        await runtime.channels.check("matrix", empty)
    sessions_before = await _devices(world)
    await world.stop(runtime)
    assert len(await _devices(world)) == len(sessions_before) - 1, "the session was logged out"


async def _devices(world: MatrixWorld) -> list[dict[str, Any]]:
    import aiohttp

    headers = {"Authorization": f"Bearer {world.bot.access_token}"}
    async with (
        aiohttp.ClientSession() as http,
        http.get(f"{world.synapse.url}/_matrix/client/v3/devices", headers=headers) as response,
    ):
        return list((await response.json())["devices"])


def _png() -> bytes:
    """A valid 1×1 PNG."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


async def test_received_files_are_saved_and_images_reach_the_model(world: MatrixWorld) -> None:
    """An image is downloaded (authenticated media API) into the media folder and given to
    the model; another file is saved and named in the text; a file over maxMediaBytes is
    not downloaded."""
    import io

    from nio import UploadResponse

    runtime = await world.start(maxMediaBytes=1000)
    room = await world.dm()
    uploads: list[str] = []
    for name, data, kind in (("dot.png", _png(), "image/png"), ("notes.txt", b"ping-file", "text/plain"),
                             ("big.bin", b"x" * 5000, "application/octet-stream")):  # fmt: skip
        response, _ = await world.alice.client.upload(
            io.BytesIO(data), content_type=kind, filename=name, filesize=len(data)
        )
        assert isinstance(response, UploadResponse), response
        uploads.append(response.content_uri)
    world.model.route = None
    world.model.push(Reply("nice image"), Reply("got the file"), Reply("too big"))
    image = {"msgtype": "m.image", "body": "dot.png", "url": uploads[0],
             "info": {"mimetype": "image/png", "size": len(_png())}}  # fmt: skip
    await world.alice.raw(room, "m.room.message", image)
    await until(lambda: world.answers(room) == ["nice image"], what="the image answered")
    document = {"msgtype": "m.file", "body": "notes.txt", "url": uploads[1],
                "info": {"mimetype": "text/plain", "size": 9}}  # fmt: skip
    await world.alice.raw(room, "m.room.message", document)
    await until(lambda: world.answers(room)[-1:] == ["got the file"], what="the file answered")
    big = {"msgtype": "m.file", "body": "big.bin", "url": uploads[2], "info": {"size": 5000}}
    await world.alice.raw(room, "m.room.message", big)
    await until(lambda: world.answers(room)[-1:] == ["too big"], what="the big file answered")
    requests = world.model.chat_requests()
    first = json.dumps(requests[0].body["messages"][-1])
    assert "image_url" in first and "data:image/png;base64," in first
    media = runtime.config.workspace_path / "media"
    saved = {p.name.rsplit("-", 1)[-1]: p for p in media.iterdir()}
    assert sorted(saved) == ["dot.png", "notes.txt"], "the big file was not downloaded"
    assert saved["dot.png"].read_bytes() == _png()
    assert saved["notes.txt"].read_bytes() == b"ping-file"
    assert str(saved["notes.txt"]) in json.dumps(requests[1].body["messages"][-1])
    assert "big.bin - too large" in json.dumps(requests[2].body["messages"][-1])
