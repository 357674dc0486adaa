"""Widgets whose slots start coroutines: a thin adapter over the core :class:`TaskOwner`.

Qt slots cannot ``await``; a widget mixing in :class:`OwnsTasks` starts work with
:meth:`OwnsTasks.spawn`. Every task hangs from the widget's core
:class:`~desktop.core.utils.tasks.TaskOwner` (:attr:`OwnsTasks.tasks`), which keeps it, logs
its failure and cancels and awaits it on close. A widget placed inside another one is
:meth:`OwnsTasks.adopt`-ed by it, so closing the outer widget (a Settings page, the Settings tab,
the onboarding wizard) closes the inner widgets' tasks as well.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, Protocol, TypeVar

from desktop.core.utils.tasks import TaskOwner


class HasTasks(Protocol):
    """Anything with a core task owner (an :class:`OwnsTasks` widget, a channel form)."""

    @property
    def tasks(self) -> TaskOwner:
        """The owner of this object's tasks."""
        ...


H = TypeVar("H", bound=HasTasks)


class OwnsTasks:
    """Mix into a ``QWidget`` subclass (before the Qt base) to own the tasks its slots start.

    Call :meth:`cancel_tasks` from ``closeEvent``; ``await`` :meth:`aclose` on shutdown.
    """

    _task_owner: TaskOwner | None = None

    @property
    def tasks(self) -> TaskOwner:
        """The core owner of this widget's tasks (and of its adopted widgets' owners)."""
        if self._task_owner is None:
            self._task_owner = TaskOwner(type(self).__name__)
        return self._task_owner

    def adopt(self, widget: H) -> H:
        """Make ``widget``'s tasks children of this widget's; returns ``widget``."""
        self.tasks.adopt(widget.tasks)
        return widget

    def spawn(
        self, coro: Coroutine[Any, Any, Any], name: str = "settings"
    ) -> asyncio.Task[Any] | None:
        """Run ``coro`` as a task of this widget; ``None`` (not run) once it is closed."""
        return self.tasks.try_spawn(coro, name=name)

    @property
    def busy(self) -> bool:
        """Whether a task of this widget (not of adopted widgets) still runs."""
        return bool(self.tasks.tasks)

    def cancel_tasks(self) -> list[asyncio.Task[Any]]:
        """Cancel every task of this widget and of its adopted widgets; returns them."""
        return self.tasks.cancel()

    async def aclose(self) -> None:
        """Cancel and await every task of this widget and its adopted widgets."""
        await self.tasks.aclose()
