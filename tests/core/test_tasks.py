"""TaskOwner: spawned tasks are owned, failures logged, children closed with their parent."""

from __future__ import annotations

import asyncio
import logging

import pytest

from desktop.core.utils.tasks import OwnerClosedError, TaskOwner, finish


async def test_close_cancels_and_awaits_tasks_and_child_owners() -> None:
    owner = TaskOwner("root")
    child = owner.child("tab")
    grandchild = child.child("panel")
    cancelled: list[str] = []

    async def forever(name: str) -> None:
        try:
            await asyncio.Future()
        finally:
            cancelled.append(name)

    owner.spawn(forever("a"))
    child.spawn(forever("b"))
    grandchild.spawn(forever("c"))
    await asyncio.sleep(0)
    await owner.aclose()
    assert sorted(cancelled) == ["a", "b", "c"]
    assert owner.closed and child.closed and grandchild.closed
    assert not owner.tasks and not child.tasks and not grandchild.tasks


async def test_a_closed_owner_starts_nothing(caplog: pytest.LogCaptureFixture) -> None:
    owner = TaskOwner("root")
    await owner.aclose()

    async def work() -> None:
        raise AssertionError("must not run")

    with pytest.raises(OwnerClosedError):
        owner.spawn(work())
    assert owner.try_spawn(work()) is None
    late_child = owner.child("late")
    assert late_child.closed and late_child.try_spawn(work()) is None


async def test_a_failed_task_is_logged_not_lost(caplog: pytest.LogCaptureFixture) -> None:
    owner = TaskOwner("root")

    async def boom() -> None:
        raise ValueError("exploded")

    with caplog.at_level(logging.ERROR, logger="desktop.core.utils.tasks"):
        task = owner.spawn(boom(), name="boom")
        await asyncio.gather(task, return_exceptions=True)
        await asyncio.sleep(0)
    assert "root:boom failed" in caplog.text and "exploded" in caplog.text
    assert not owner.tasks
    await owner.aclose()


def test_spawn_from_a_callback_outside_a_coroutine() -> None:
    """Qt slots run outside any coroutine: spawning must use the thread's loop."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        owner = TaskOwner("root")
        done: list[int] = []

        async def work() -> None:
            done.append(1)

        owner.spawn(work())
        loop.run_until_complete(owner.idle())
        assert done == [1]
        loop.run_until_complete(owner.aclose())
    finally:
        asyncio.set_event_loop(None)
        loop.close()


async def _forever() -> None:
    await asyncio.Future()


async def test_adopted_owner_is_closed_with_its_new_parent() -> None:
    """An owner built on its own (a widget) and adopted later (placed in a page) closes with it."""
    page = TaskOwner("page")
    other = TaskOwner("other")
    widget = TaskOwner("widget", parent=other)
    task = widget.spawn(_forever())
    page.adopt(widget)
    page.adopt(widget)  # adopting twice changes nothing
    await other.aclose()  # the previous parent no longer closes it
    assert not widget.closed and not task.done()
    await page.aclose()
    assert widget.closed and task.cancelled()
    with pytest.raises(ValueError):
        widget.adopt(widget)
    root = TaskOwner("root")
    with pytest.raises(ValueError):
        root.child("tab").adopt(root)


async def test_adopting_into_a_closed_owner_cancels_and_closes() -> None:
    page = TaskOwner("page")
    await page.aclose()
    widget = TaskOwner("widget")
    task = widget.spawn(_forever())
    page.adopt(widget)
    await asyncio.gather(task, return_exceptions=True)
    assert task.cancelled() and widget.closed


async def test_cancel_stops_tasks_of_children_without_closing() -> None:
    """``cancel()`` (a closeEvent) stops everything below; the owners stay usable."""
    owner = TaskOwner("root")
    child = owner.child("panel")
    tasks = [owner.spawn(_forever()), child.spawn(_forever())]
    await asyncio.sleep(0)
    cancelled = owner.cancel()
    assert set(cancelled) == set(tasks)
    await asyncio.gather(*cancelled, return_exceptions=True)
    assert all(task.cancelled() for task in tasks)
    assert not owner.closed and not child.closed and not owner.tasks and not child.tasks
    again = child.spawn(_forever())
    await owner.aclose()
    assert again.cancelled()


async def test_finish_completes_the_work_when_the_caller_is_cancelled() -> None:
    gate = asyncio.Event()
    steps: list[str] = []

    async def closing() -> str:
        await gate.wait()
        await asyncio.sleep(0)  # more than one step after the cancel
        steps.append("closed")
        return "done"

    caller = asyncio.ensure_future(finish(closing()))
    await asyncio.sleep(0.01)
    caller.cancel()
    await asyncio.sleep(0.01)
    assert not caller.done(), "the caller waits for the work despite the cancel"
    caller.cancel()  # a second cancel is waited out the same way
    await asyncio.sleep(0.01)
    gate.set()
    with pytest.raises(asyncio.CancelledError):
        await caller
    assert steps == ["closed"]
    assert await finish(asyncio.sleep(0, "x")) == "x"


async def test_finish_logs_a_failure_that_ends_work_it_was_cancelled_in(
    caplog: pytest.LogCaptureFixture,
) -> None:
    gate = asyncio.Event()

    async def failing() -> None:
        await gate.wait()
        raise OSError("disk gone")

    caller = asyncio.ensure_future(finish(failing()))
    await asyncio.sleep(0.01)
    caller.cancel()
    gate.set()
    with (
        caplog.at_level(logging.DEBUG, logger="desktop.core.utils.tasks"),
        pytest.raises(asyncio.CancelledError),
    ):
        await caller
    assert "disk gone" in caplog.text
    with pytest.raises(OSError, match="disk gone"):
        await finish(failing())  # not cancelled: the error is raised
