"""Waiting for a condition instead of sleeping a fixed time.

A fixed sleep is either too short (a flaky test on a slow machine) or too long (a slow suite).
These poll the condition and return as soon as it holds. (The GUI tier uses
``qtbot.waitUntil``, which keeps Qt's loop running meanwhile.)
"""

from __future__ import annotations

import asyncio
import socketserver
import threading
import time
from collections.abc import Callable
from typing import Any

POLL = 0.01


async def until(condition: Callable[[], Any], timeout: float = 60.0, what: str = "") -> None:
    """Let the loop run until ``condition()`` is true; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what or condition}")
        await asyncio.sleep(POLL)


def wait_for(condition: Callable[[], Any], timeout: float = 60.0, what: str = "") -> None:
    """Block until ``condition()`` is true (another process or thread makes it so)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what or condition}")
        time.sleep(POLL)


# How often a test server's ``serve_forever`` looks whether ``shutdown()`` was asked for:
# ``shutdown()`` returns within this. (socketserver's default, 0.5 s, made every stop of a
# scripted server half a second of a test's teardown.)
SERVE_POLL = 0.02


def serving(server: socketserver.BaseServer) -> threading.Thread:
    """A daemon thread (not started) that serves ``server`` until ``server.shutdown()``,
    which then returns within :data:`SERVE_POLL` seconds."""
    return threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": SERVE_POLL}, daemon=True
    )
