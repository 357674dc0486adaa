"""Waiting for a condition instead of sleeping a fixed time.

A fixed sleep is either too short (a flaky test on a slow machine) or too long (a slow suite).
These poll the condition and return as soon as it holds. (The GUI tier uses
``qtbot.waitUntil``, which keeps Qt's loop running meanwhile.)
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

POLL = 0.01


async def until(condition: Callable[[], Any], timeout: float = 30.0, what: str = "") -> None:
    """Let the loop run until ``condition()`` is true; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what or condition}")
        await asyncio.sleep(POLL)


def wait_for(condition: Callable[[], Any], timeout: float = 30.0, what: str = "") -> None:
    """Block until ``condition()`` is true (another process or thread makes it so)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what or condition}")
        time.sleep(POLL)
