"""GUI tests: offscreen unless a display is provided, one qasync loop for the whole session.

DESIGN §4: one session-scoped ``qasync.QEventLoop(qapp, already_running=True)``; never stop or
close it per test. A test drives a coroutine with :func:`run_async` (the Qt event loop keeps
spinning through ``qtbot.waitUntil``), so widgets and asyncio code run exactly as in the app.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
import qasync
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

T = TypeVar("T")


@pytest.fixture(scope="session")
def qloop(qapp: QApplication) -> Iterator[asyncio.AbstractEventLoop]:
    """The asyncio loop running on Qt's event loop, shared by every GUI test."""
    loop = qasync.QEventLoop(qapp, already_running=True)
    asyncio.set_event_loop(loop)
    yield loop
    # qasync keeps its QThreadExecutor in a name-mangled attribute; shut it down so no
    # worker QThread is destroyed while running at exit.
    executor = getattr(loop, "_QEventLoop__default_executor", None)
    if executor is not None:
        executor.shutdown(wait=True)


def run_async(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    coro: Coroutine[Any, Any, T],
    timeout_ms: int = 10_000,
) -> T:
    """Run ``coro`` on the qasync loop while Qt keeps processing events; return its result."""
    future = asyncio.ensure_future(coro, loop=loop)
    try:
        qtbot.waitUntil(future.done, timeout=timeout_ms)
    except Exception:
        future.cancel()
        raise
    return future.result()
