"""Catch-up after downtime: messages sent while the app was not running are fetched from the
channel history after the next start (a fresh session), through the live handler."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from desktop.core.channels.discord import catchup
from desktop.core.channels.discord.channel import DiscordChannel
from tests.channels.discord.conftest import until
from tests.channels.discord.discord_server import ADA, BOT_ID, DM, GENERAL, DiscordServer, user
from tests.channels.discord.test_discord_gateway import Running

BOT = user(BOT_ID, "nanobot", bot=True)


def history_calls(api: DiscordServer, channel_id: int) -> list[dict[str, str]]:
    return [c.query for c in api.calls_of("GET", f"/channels/{channel_id}/messages")]


def stored(tmp_path: Path) -> dict[str, Any]:
    """The channel state on disk."""
    try:
        values = json.loads((tmp_path / "state" / "discord.json").read_text())["values"]
    except (OSError, ValueError):
        return {}
    return dict(values)


async def saved(tmp_path: Path, conversations: int) -> None:
    """Wait until the state file has the acknowledgements (an empty journal) and the positions
    (written by worker threads that may still run when the manager stops)."""

    def done() -> bool:
        values = stored(tmp_path)
        return values.get("pending") == [] and len(values.get("positions") or {}) == conversations

    await until(done, what="the state saved")


LAST = "the last one"


async def last_live(api: DiscordServer, run: Running) -> None:
    """Ada writes :data:`LAST` live, and it is handed over. The channel hands over what it
    caught up on before any live message, and live messages in the gateway's order: whatever
    was still to come (a duplicate, a message over the cap) would have come before it."""
    api.put_message(DM, LAST)
    await until(lambda: LAST in run.texts(), what="the last live message")


async def first_run(api: DiscordServer, tmp_path: Path, **settings: Any) -> list[str]:
    """The app runs once: Ada writes in private and mentions the bot in #general."""
    run = Running(api, tmp_path, **settings)
    await run.start()
    try:
        api.put_message(DM, "hello")
        api.put_message(GENERAL, f"<@{BOT_ID}> hi all", guild=True, mentions=[BOT])
        await until(lambda: len(run.received) == 2, what="the first run's messages")
        # Handed over is not yet acknowledged: stopping before the acknowledgements are
        # written leaves them pending (answered again after the restart, by design), which
        # a loaded machine made this first run do.
        await saved(tmp_path, 2)
    finally:
        await run.stop()
    await saved(tmp_path, 2)
    return run.texts()


async def test_messages_sent_while_stopped_are_handed_over_once_in_order_after_a_restart(
    discord_api: DiscordServer, tmp_path: Path
) -> None:
    assert await first_run(discord_api, tmp_path) == ["hello", "hi all"]
    last_seen = max(discord_api.messages)
    discord_api.post_message(DM, "one")
    discord_api.post_message(GENERAL, "chatter without the bot", guild=True)
    discord_api.post_message(GENERAL, f"<@{BOT_ID}> two", guild=True, mentions=[BOT])
    discord_api.post_message(DM, "three")
    discord_api.post_message(DM, "my own answer", author=BOT)
    discord_api.post_message(DM, "four")
    run = Running(discord_api, tmp_path)
    await run.start()
    try:
        await until(lambda: len(run.received) == 4, what="the missed messages")
        discord_api.put_message(DM, "live")
        # caught-up messages first, then live ones in order: nothing comes after "live" now
        await until(lambda: "live" in run.texts(), what="the live message")
    finally:
        await run.stop()
    in_dm = [m.content for m in run.received if m.chat_id == str(DM)]
    in_general = [m.content for m in run.received if m.chat_id == str(GENERAL)]
    assert in_dm == ["one", "three", "four", "live"] and in_general == ["two"]
    assert run.received[-1].content == "live"  # the missed ones come first
    general = next(m for m in run.received if m.chat_id == str(GENERAL))
    assert general.metadata["is_group"] is True and general.metadata["guild_id"] is not None
    (query,) = history_calls(discord_api, DM)
    assert query["limit"] == "100" and int(query["after"]) < last_seen
    assert len(history_calls(discord_api, GENERAL)) == 1


async def test_a_message_both_live_and_in_the_history_is_handed_over_once(
    discord_api: DiscordServer, tmp_path: Path
) -> None:
    await first_run(discord_api, tmp_path)
    both = discord_api.post_message(DM, "both ways")
    discord_api.after_ready = [both]  # Discord sends it live too as the session starts
    run = Running(discord_api, tmp_path)
    await run.start()
    try:
        await until(lambda: run.received, what="the message")
        discord_api.dispatch("MESSAGE_CREATE", both)  # and once more, later
        discord_api.put_message(DM, "after")
        # "after" follows the duplicate on the gateway: once it is in, a duplicate would be
        await until(lambda: "after" in run.texts(), what="the next message")
    finally:
        await run.stop()
    assert run.texts() == ["both ways", "after"]
    assert history_calls(discord_api, DM)  # catch-up did return it


async def test_the_first_start_does_not_replay_old_history(
    discord_api: DiscordServer, tmp_path: Path
) -> None:
    discord_api.post_message(DM, "old, before the bot ever ran")
    discord_api.post_message(GENERAL, f"<@{BOT_ID}> old too", guild=True, mentions=[BOT])
    run = Running(discord_api, tmp_path)
    await run.start()
    try:
        discord_api.put_message(DM, "new")
        # a replayed old message would be handed over before the first live one
        await until(lambda: "new" in run.texts(), what="the live message")
    finally:
        await run.stop()
    assert run.texts() == ["new"]
    assert not discord_api.calls_of("GET", "/messages")
    await saved(tmp_path, 1)
    # From then on the position is kept: the next start fetches only what came later.
    discord_api.post_message(DM, "missed")
    again = Running(discord_api, tmp_path)
    await again.start()
    try:
        await last_live(discord_api, again)  # the test: nothing else is handed over
    finally:
        await again.stop()
    assert again.texts() == ["missed", LAST]
    assert not history_calls(discord_api, GENERAL)  # never seen: not fetched


async def test_a_new_conversation_is_on_disk_before_its_first_message_is_handed_over(
    discord_api: DiscordServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stop (or crash) in the middle of the hand-over cannot leave the conversation unknown
    to the next catch-up: its position, just before the message, is saved first."""
    at_hand_over: list[dict[str, Any]] = []
    publish = DiscordChannel.publish

    async def watched(self: DiscordChannel, *args: Any, **kwargs: Any) -> bool:
        at_hand_over.append(dict(stored(tmp_path).get("positions") or {}))
        return await publish(self, *args, **kwargs)

    monkeypatch.setattr(DiscordChannel, "publish", watched)
    run = Running(discord_api, tmp_path)
    await run.start()
    try:
        first = discord_api.put_message(DM, "first words")
        await until(lambda: run.received, what="the message")
    finally:
        await run.stop()
    assert at_hand_over[0][str(DM)]["last"] == str(int(first["id"]) - 1)
    await saved(tmp_path, 1)
    assert stored(tmp_path)["positions"][str(DM)]["last"] == str(first["id"])  # then advanced


async def test_a_caught_up_sender_outside_allow_from_is_ignored(
    discord_api: DiscordServer, tmp_path: Path
) -> None:
    await first_run(discord_api, tmp_path, allow_from=[str(ADA)])
    mallory = user(ADA + 1, "mallory")
    discord_api.post_message(
        GENERAL, f"<@{BOT_ID}> let me in", guild=True, mentions=[BOT], author=mallory
    )
    discord_api.post_message(GENERAL, f"<@{BOT_ID}> me again", guild=True, mentions=[BOT])
    run = Running(discord_api, tmp_path, allow_from=[str(ADA)])
    await run.start()
    try:
        await last_live(discord_api, run)  # the test: mallory's message is not handed over
    finally:
        await run.stop()
    assert run.texts() == ["me again", LAST]
    assert run.received[0].sender_id == f"{ADA}|ada"


@pytest.mark.parametrize("status", [500, 429])
async def test_a_failing_history_call_leaves_the_channel_running(
    discord_api: DiscordServer,
    tmp_path: Path,
    status: int,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr(DiscordChannel, "fetch_timeout", 0.5)  # discord.py retries inside
    await first_run(discord_api, tmp_path)
    discord_api.post_message(DM, "missed")
    discord_api.history_error = status
    run = Running(discord_api, tmp_path)
    with caplog.at_level(logging.WARNING, logger="desktop.core.channels.discord"):
        await run.start()
        try:
            await until(lambda: "could not fetch the messages missed" in caplog.text, what="logged")
            discord_api.put_message(DM, "live")
            await until(lambda: run.received, what="the live message")
            status_after = run.manager.status("discord")
            # "live" was journaled before it was handed over; its ack takes it out again. Wait
            # for that while the channel runs (a stop first would rightly keep it for replay).
            await until(lambda: stored(tmp_path).get("pending") == [], what="the state saved")
        finally:
            await run.stop()
    assert history_calls(discord_api, DM) or history_calls(discord_api, GENERAL)
    assert run.texts() == ["live"] and status_after.ok
    assert len(discord_api.identifies) == 2  # the connection was not restarted
    # The position stayed before the gap: the next start fetches it (and not "live" again).
    discord_api.history_error = None
    again = Running(discord_api, tmp_path)
    await again.start()
    try:
        await last_live(discord_api, again)  # the test: "live" is not handed over again
    finally:
        await again.stop()
    assert again.texts() == ["missed", LAST]


async def test_catch_up_pages_oldest_first_and_stops_at_the_cap(
    discord_api: DiscordServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(catchup, "PAGE", 2)
    monkeypatch.setattr(catchup, "MAX_MESSAGES", 3)
    await first_run(discord_api, tmp_path)
    for text in ("m1", "m2", "m3", "m4"):
        discord_api.post_message(DM, text)
    run = Running(discord_api, tmp_path)
    await run.start()
    try:
        await last_live(discord_api, run)  # the test: m4 (over the cap) is not handed over
    finally:
        await run.stop()
    assert run.texts() == ["m1", "m2", "m3", LAST]  # the oldest, in order; m4 is over the cap
    first, second = history_calls(discord_api, DM)
    assert first["limit"] == "2" and second["limit"] == "1"
    assert int(second["after"]) > int(first["after"])
