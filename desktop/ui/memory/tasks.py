"""A small owner for the coroutines a widget starts from its slots (DESIGN §3.6).

Qt slots cannot ``await``; they start a task with :meth:`TaskSet.start`. The set keeps a
reference (so the task is not garbage-collected), logs an unexpected exception, and cancels
everything on :meth:`TaskSet.cancel_all` / :meth:`TaskSet.aclose`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

log = logging.getLogger(__name__)


class TaskSet:
    """The running tasks of one widget."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def start(self, coro: Coroutine[Any, Any, Any], *, name: str) -> asyncio.Task[Any]:
        """Run ``coro`` on the event loop; keep it until it ends; log if it raises."""
        task = asyncio.ensure_future(coro)
        task.set_name(name)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("task %s failed", task.get_name(), exc_info=task.exception())

    @property
    def busy(self) -> bool:
        """Whether any task is still running."""
        return bool(self._tasks)

    def cancel_all(self) -> None:
        """Ask every task to stop (does not wait)."""
        for task in list(self._tasks):
            task.cancel()

    async def aclose(self) -> None:
        """Cancel every task and wait until they have ended."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
