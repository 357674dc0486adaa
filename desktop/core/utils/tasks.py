"""Structured ownership of asyncio tasks: every task has an owner that cancels and awaits it.

A :class:`TaskOwner` spawns tasks, logs their failures (a failed background task is never
silent), and on :meth:`TaskOwner.aclose` cancels every task it still owns and waits for them.
Owners nest: a child owner made with :meth:`TaskOwner.child` is closed with its parent, so a
tab, a service or the agent loop closes everything below it with one call.

Example:
    owner = TaskOwner("chat")
    owner.spawn(refresh(), name="refresh-list")
    ...
    await owner.aclose()  # cancels and awaits refresh-list and every child owner's tasks
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Coroutine
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")


async def cancel_and_wait(task: asyncio.Future[Any]) -> None:
    """Cancel ``task`` and wait until it has ended, without swallowing a cancel of our own.

    ``with suppress(CancelledError): await task`` also swallows a cancel aimed at the caller
    while it waits; here that cancel goes on (``task`` then ends on its own). A cancel the
    caller is already handling (this runs in the ``finally`` of a cancelled task) is not
    raised here again: the clean-up after this call runs, and that cancel goes on after it.
    Other errors of ``task`` are logged, not raised (the caller wanted it gone).

    Args:
        task: The task (or future) to end.
    """
    task.cancel()
    try:
        await asyncio.wait([task])  # never raises ``task``'s own end, only a cancel of ours
    except asyncio.CancelledError:
        task.add_done_callback(_log_ending_failure)
        raise
    _log_ending_failure(task)


def _log_ending_failure(task: asyncio.Future[Any]) -> None:
    """Log (and so retrieve) the error a cancelled ``task`` ended with, if any."""
    if not task.cancelled() and (exc := task.exception()) is not None:
        log.debug("a cancelled task failed while ending", exc_info=exc)


async def finish(work: Awaitable[T]) -> T:
    """Await ``work`` to its end even when the caller is cancelled meanwhile.

    For work that must not be left halfway: closing a connection, a worker thread holding a
    file open. A cancel aimed at the caller while it waits is raised once ``work`` has ended
    (and an error of ``work`` then is logged, not raised). ``work`` may be a future that
    other callers wait for too.

    Args:
        work: A coroutine or future.

    Returns:
        What ``work`` returned.
    """
    task = asyncio.ensure_future(work)
    cancelled = False
    while not task.done():
        try:
            await asyncio.wait([task])  # never cancels ``task``
        except asyncio.CancelledError:
            cancelled = True
    if cancelled:
        if not task.cancelled() and task.exception() is not None:
            log.debug("work finished after a cancel failed", exc_info=task.exception())
        raise asyncio.CancelledError
    return task.result()


class OwnerClosedError(RuntimeError):
    """A task was spawned on an owner that is closing or closed."""


class TaskOwner:
    """Owns asyncio tasks and child owners.

    Args:
        name: For logs and task names.
        parent: Closing the parent closes this owner too.
    """

    def __init__(self, name: str, parent: TaskOwner | None = None) -> None:
        self.name = name
        self._tasks: set[asyncio.Task[Any]] = set()
        self._children: list[TaskOwner] = []
        self._parent = parent
        self._closed = False
        if parent is not None:
            parent._adopt(self)

    @property
    def closed(self) -> bool:
        """Whether :meth:`aclose` has begun (nothing new may start)."""
        return self._closed

    @property
    def tasks(self) -> frozenset[asyncio.Task[Any]]:
        """Tasks still running under this owner (not its children's)."""
        return frozenset(self._tasks)

    def _adopt(self, child: TaskOwner) -> None:
        if self._closed:
            child._closed = True
            return
        self._children.append(child)

    def child(self, name: str) -> TaskOwner:
        """A nested owner, closed with this one."""
        return TaskOwner(f"{self.name}/{name}", parent=self)

    def adopt(self, owner: TaskOwner) -> None:
        """Make an existing owner a child of this one (it leaves its previous parent).

        For objects built before they know where they hang, e.g. a widget created and then
        placed inside a page: the page's owner adopts the widget's owner, so closing the page
        closes the widget's tasks too. Adopting into a closing owner cancels ``owner``'s tasks
        and marks it closed.

        Raises:
            ValueError: ``owner`` is this owner or one of its ancestors (a cycle).
        """
        node: TaskOwner | None = self
        while node is not None:
            if node is owner:
                raise ValueError(f"{owner.name} cannot adopt itself or an ancestor")
            node = node._parent
        previous = owner._parent
        if previous is self:
            return
        if previous is not None and owner in previous._children:
            previous._children.remove(owner)
        owner._parent = self
        self._adopt(owner)
        if self._closed:
            owner.cancel()

    def cancel(self) -> list[asyncio.Task[Any]]:
        """Ask every task of this owner and its children to stop, without closing anything.

        For synchronous callers (a ``closeEvent``); new tasks may still start afterwards.

        Returns:
            The cancelled tasks (await them with ``asyncio.gather`` to wait for their end).
        """
        tasks = list(self._tasks)
        for child in list(self._children):
            tasks.extend(child.cancel())
        for task in self._tasks:
            task.cancel()
        return tasks

    def spawn(self, coro: Coroutine[Any, Any, T], *, name: str | None = None) -> asyncio.Task[T]:
        """Start ``coro`` as a task owned here; a failure is logged, never lost.

        Raises:
            OwnerClosedError: The owner is closing (the coroutine is closed, not run).
        """
        if self._closed:
            coro.close()
            raise OwnerClosedError(f"{self.name} is closed; not starting {name or coro!r}")
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # a Qt slot outside a coroutine: the (qasync) loop of this thread
            loop = asyncio.get_event_loop()
        task = loop.create_task(coro, name=f"{self.name}:{name or 'task'}")
        self._tasks.add(task)
        task.add_done_callback(self._finished)
        return task

    def try_spawn(
        self, coro: Coroutine[Any, Any, T], *, name: str | None = None
    ) -> asyncio.Task[T] | None:
        """:meth:`spawn`, or ``None`` (the coroutine closed unrun) when the owner is closing."""
        try:
            return self.spawn(coro, name=name)
        except OwnerClosedError:
            return None

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            log.error("task %s failed", task.get_name(), exc_info=error)

    async def aclose(self) -> None:
        """Cancel every owned task and child owner, and wait until all have ended."""
        self._closed = True
        children, self._children = self._children, []
        await asyncio.gather(*(child.aclose() for child in children), return_exceptions=True)
        current = asyncio.current_task()
        tasks = [task for task in self._tasks if task is not current]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        if self._parent is not None and self in self._parent._children:
            self._parent._children.remove(self)

    async def idle(self) -> None:
        """Wait until no task of this owner (or its children) runs; for tests and shutdown."""
        while True:
            current = asyncio.current_task()
            tasks = [t for t in self._tasks if t is not current]
            for child in list(self._children):
                tasks.extend(t for t in child._tasks if t is not current)
            if not tasks:
                return
            await asyncio.gather(*tasks, return_exceptions=True)
