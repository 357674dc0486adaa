"""The trigger queue sleeps until a delivery lands in its inbox (#26: no polling at idle).

nanobot 0.3.5's command line queues a delivery by writing ``triggers/inbox/*.json`` and tells
nobody; the queue is woken by the file itself (inotify), not by looking every few seconds.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from pathlib import Path

import pytest

from desktop.core.bus.queue import MessageBus
from desktop.core.triggers.queue import TriggerQueue
from desktop.core.triggers.store import TriggerStore
from desktop.core.utils.dir_watch import DirWatch
from desktop.core.utils.tasks import TaskOwner
from tests.waiting import until

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify")

NEVER_S = 3600.0  # a poll that would not come within the test


def trigger(store: TriggerStore) -> str:
    return store.create(name="deploy", channel="nowhere", chat_id="c1", session_key="nowhere:c1").id


def status(store: TriggerStore, delivery_id: str) -> str | None:
    """The status in the delivery's run record (``queued`` when written, then its end)."""
    path = store.runs / f"{delivery_id}.json"
    try:
        return str(json.loads(path.read_text(encoding="utf-8")).get("status"))
    except (OSError, ValueError):  # not there yet, or being replaced
        return None


async def test_a_delivery_written_by_another_process_wakes_the_idle_queue(
    tmp_path: Path,
) -> None:
    """Written while the queue sleeps (its poll an hour away): handled at once (refused
    here, as its channel does not run: its run record says ``error``)."""
    store = TriggerStore(tmp_path)
    tid = await asyncio.to_thread(trigger, store)
    owner = TaskOwner("test-triggers")
    queue = TriggerQueue(store, MessageBus(), owner, channel_ready=lambda _n: False, poll_s=NEVER_S)
    first = await asyncio.to_thread(store.enqueue, tid, "first")
    try:
        queue.start()
        await until(lambda: status(store, first.id) == "error", what="the first, at start")
        # the queue is asleep now, or about to be; nanobot's command line writes the second
        second = await asyncio.to_thread(store.enqueue, tid, "second")
        await until(lambda: status(store, second.id) == "error", what="the second, at once")
    finally:
        await owner.aclose()


async def test_the_watch_ends_with_its_folder_and_comes_back_with_it(tmp_path: Path) -> None:
    """The inbox deleted: the watch ends; the folder back (an enqueue makes it), a new watch
    sees the next delivery."""
    store = TriggerStore(tmp_path)
    tid = await asyncio.to_thread(trigger, store)
    owner = TaskOwner("test-triggers")
    queue = TriggerQueue(store, MessageBus(), owner, channel_ready=lambda _n: False, poll_s=0.05)
    try:
        queue.start()
        await until(lambda: queue._watch is not None, what="the inbox watch")
        first = queue._watch
        assert first is not None
        await asyncio.to_thread(shutil.rmtree, store.inbox)
        await until(lambda: not first.alive, what="the watch to end with its folder")
        delivery = await asyncio.to_thread(store.enqueue, tid, "again")
        await until(lambda: status(store, delivery.id) == "error", what="handled")
        await until(
            lambda: queue._watch is not None and queue._watch is not first and queue._watch.alive,
            what="a new watch on the folder",
        )
    finally:
        await owner.aclose()


async def test_no_watch_on_a_missing_folder(tmp_path: Path) -> None:
    assert DirWatch.open(tmp_path / "missing", lambda: None) is None
    calls: list[int] = []
    watch = DirWatch.open(tmp_path, lambda: calls.append(1))
    assert watch is not None
    await asyncio.to_thread((tmp_path / "a.json").write_text, "{}")
    await until(lambda: calls, what="the callback")
    watch.close()
    watch.close()  # idempotent
    assert not watch.alive
