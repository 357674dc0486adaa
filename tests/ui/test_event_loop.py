"""The window's loop: a blocking call's hand-back and the loop's close exclude each other.

A daemon thread (``desktop.core.utils.threads``) hands its result back through
``call_soon_threadsafe``; asyncio checks the loop is open only before that call. These tests
hold a hand-back inside qasync (where it emits a Qt signal) and close the loop meanwhile.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
import qasync
from PySide6.QtWidgets import QApplication

from desktop.ui.event_loop import GuardedEventLoop


def test_closing_waits_for_a_hand_back_from_another_thread_in_flight(
    qapp: QApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    loop = GuardedEventLoop(qapp)
    entered, release = threading.Event(), threading.Event()
    seen_closed: list[bool] = []
    original = qasync.QEventLoop.call_soon_threadsafe

    def held(
        self: qasync.QEventLoop, callback: Callable[..., object], *args: object, **kw: object
    ) -> object:
        if self is not loop:
            return original(self, callback, *args, **kw)
        entered.set()
        release.wait(5)
        seen_closed.append(self.is_closed())  # where qasync would now emit into Qt
        return None

    monkeypatch.setattr(qasync.QEventLoop, "call_soon_threadsafe", held)
    thread = threading.Thread(target=loop.call_soon_threadsafe, args=(print,), daemon=True)
    thread.start()
    assert entered.wait(5)
    timer = threading.Timer(0.3, release.set)
    timer.start()
    started = time.monotonic()
    loop.close()
    waited = time.monotonic() - started
    thread.join(5)
    timer.join()
    assert seen_closed == [False], "the loop closed while a hand-back was emitting into Qt"
    assert release.is_set() and waited >= 0.25
    assert loop.is_closed()


def test_a_hand_back_after_close_is_dropped_without_touching_qt(
    qapp: QApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    loop = GuardedEventLoop(qapp)
    loop.close()
    reached: list[object] = []
    monkeypatch.setattr(
        qasync.QEventLoop, "call_soon_threadsafe", lambda *args, **kw: reached.append(args)
    )
    outcome: list[str] = []

    def hand_back() -> None:
        loop.call_soon_threadsafe(print, "late")
        outcome.append("returned")  # no exception in the thread

    thread = threading.Thread(target=hand_back, daemon=True)
    thread.start()
    thread.join(5)
    assert outcome == ["returned"]
    assert reached == []  # qasync (and so Qt) was never asked to emit
