"""Run blocking calls in daemon threads.

``asyncio.to_thread`` uses the default executor, whose threads the interpreter waits for at
exit: a call that never returns (a locked keyring, ``input()`` at Ctrl-C) would hang shutdown.
These helpers use a fresh daemon thread instead.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def start_daemon(fn: Callable[[], T], name: str = "blocking-call") -> concurrent.futures.Future[T]:
    """Start ``fn`` in a daemon thread; its result or exception lands in the returned future."""
    future: concurrent.futures.Future[T] = concurrent.futures.Future()

    def runner() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(fn())
        except BaseException as exc:  # noqa: BLE001 - handed to whoever waits on the future
            future.set_exception(exc)

    threading.Thread(target=runner, name=name, daemon=True).start()
    return future


async def run_daemon(fn: Callable[[], T], name: str = "blocking-call") -> T:
    """Await ``fn`` running in a daemon thread (cancelling the await abandons the thread)."""
    return await asyncio.wrap_future(start_daemon(fn, name))
