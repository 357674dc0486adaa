"""Owning the coroutines a widget starts from its slots."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

log = logging.getLogger(__name__)


class TaskOwner:
    """Keeps a reference to every task a widget starts, logs their failures, cancels them.

    Mix into a ``QWidget`` subclass; call :meth:`cancel_tasks` from ``closeEvent`` or on
    shutdown.
    """

    _owned_tasks: set[asyncio.Task[Any]]

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str = "settings") -> asyncio.Task[Any]:
        """Run ``coro`` on the event loop and keep it until it ends."""
        if not hasattr(self, "_owned_tasks"):
            self._owned_tasks = set()
        task = asyncio.ensure_future(coro)
        task.set_name(name)
        self._owned_tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._owned_tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            log.error("task %s failed", task.get_name(), exc_info=exc)

    @property
    def busy(self) -> bool:
        """Whether any owned task is still running."""
        return bool(getattr(self, "_owned_tasks", None))

    def cancel_tasks(self) -> list[asyncio.Task[Any]]:
        """Cancel every owned task; returns them (await with ``asyncio.gather`` if needed)."""
        tasks = list(getattr(self, "_owned_tasks", ()))
        for task in tasks:
            task.cancel()
        return tasks
