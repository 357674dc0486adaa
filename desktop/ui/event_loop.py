"""The window's asyncio loop: qasync's, closed to other threads before Qt is torn down.

A blocking call that runs in a daemon thread (:mod:`desktop.core.utils.threads`) hands its
result back with ``loop.call_soon_threadsafe``, which qasync turns into a Qt signal emitted
from that thread. asyncio skips the hand-back once the loop is closed, but checks that before
the call, not under a lock: a thread that passed the check while the loop closed could emit
into Qt objects that the interpreter's exit is destroying, which crashed a process after a
clean shutdown (seen once as a segfault at exit). Here closing and handing back exclude each
other, and a hand-back to a closed loop is dropped: nobody awaits its result any more.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from contextvars import Context
from typing import Any, TypeVar

import qasync

T = TypeVar("T")


class GuardedEventLoop(qasync.QEventLoop):  # type: ignore[misc]  # qasync has no type hints
    """qasync's event loop whose :meth:`close` and :meth:`call_soon_threadsafe` exclude each other."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._handover = threading.RLock()  # re-entrant: a same-thread emit runs its slot inline
        self._closing = False  # set under the lock: hand-backs from then on are dropped
        super().__init__(*args, **kwargs)

    def call_soon_threadsafe(
        self, callback: Callable[..., object], *args: object, context: Context | None = None
    ) -> None:
        """Schedule ``callback`` from any thread; dropped once the loop is closed.

        Returns nothing, as qasync's own (no ``asyncio.Handle``: the call is a queued signal).
        """
        with self._handover:
            if not self._closing and not self.is_closed():
                super().call_soon_threadsafe(callback, *args, context=context)

    def close(self) -> None:
        """Close the loop once no other thread is in the middle of handing a call to it.

        The lock is held only to mark the loop closing, not while qasync closes it: that waits
        for qasync's executor threads, whose own hand-backs would otherwise wait for the lock.
        """
        with self._handover:
            self._closing = True
        super().close()


def run(main: Coroutine[Any, Any, T]) -> T:
    """Run ``main`` to completion on a new :class:`GuardedEventLoop`, then close the loop.

    Like ``qasync.run`` on Python 3.11 (``asyncio.run``): the loop is also this thread's event
    loop while it exists, so a Qt slot called outside a coroutine finds it.
    """
    loop = GuardedEventLoop()
    asyncio.set_event_loop(loop)
    try:
        with asyncio.Runner(loop_factory=lambda: loop) as runner:
            return runner.run(main)
    finally:
        asyncio.set_event_loop(None)
