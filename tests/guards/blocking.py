"""The blocking-call guard: product code must not block a running event loop (blockbuster).

`blockbuster <https://pypi.org/project/blockbuster/>`_ swaps blocking functions (file reads
and writes, ``os.stat``/``listdir``/..., ``time.sleep``, blocking sockets, sqlite, a held
``Lock.acquire``, ``input``) for checks that raise ``BlockingError`` when they are called
while an asyncio loop runs. It is active around every test, with two refinements:

- only calls the product makes *while it runs on a loop* count: inside a loop callback (an
  ``asyncio.Handle._run`` frame on the stack; task steps and every qasync callback run
  through it) whose callback is ``desktop`` code, or with a ``desktop`` coroutine or async
  generator on the way to the call. The GUI tier's qasync loop is the main thread's running
  loop for the whole session (``already_running=True``), so plain blockbuster would also
  flag the test body, which is not running on the loop at all; and a test coroutine calling
  a synchronous ``desktop`` helper directly (the app calls it from a worker thread) is the
  test's choice, not a product bug.

Blocking in a plain Qt slot (outside any asyncio callback) is not seen. ``pygit2``, being
C, is invisible anyway (its work goes through ``asyncio.to_thread`` by review).

Each exemption below names where blocking is allowed and why.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import sys
import traceback
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

import blockbuster.blockbuster
import pytest
from blockbuster import BlockBuster, BlockBusterFunction, BlockingError

import desktop


@dataclass(frozen=True)
class Exemption:
    """Blocking is allowed while ``functions`` of a file ending in ``file`` are on the stack."""

    file: str
    functions: frozenset[str]
    reason: str
    blocking: tuple[str, ...] = ()  # which blockbuster functions; empty = all of them


EXEMPTIONS: tuple[Exemption, ...] = (
    Exemption(
        "<frozen importlib._bootstrap>",
        frozenset({"_find_and_load"}),
        "an import on the loop reads its files once per process; the slow ones (litellm, "
        "the pydantic models) are moved to threads by design, which this guard cannot see",
    ),
    Exemption(
        "shibokensupport/feature.py",
        frozenset({"_mod_uses_pyside"}),
        "PySide's import hook reads an importing module's source once, at import",
    ),
    Exemption(
        "logging/__init__.py",
        frozenset({"emit", "flush", "close"}),
        "the log file (desktop/core/utils/logs.py): one short appended line per record, "
        "like any desktop app's log; a QueueHandler would move it off the loop if it matters",
    ),
    Exemption(
        "logging/handlers.py",
        frozenset({"emit", "shouldRollover", "doRollover"}),
        "the rotating log file: the same appends, plus a rename every 2 MB",
    ),
    Exemption(
        "linecache.py",
        frozenset({"updatecache", "checkcache"}),
        "formatting a traceback (log.exception) reads the frames' source lines: only when "
        "an error is being reported",
    ),
)

_EVENTS_FILE = asyncio.events.__file__
_PRODUCT_DIR = str(Path(desktop.__file__).parent) + os.sep
_ASYNC = inspect.CO_COROUTINE | inspect.CO_ITERABLE_COROUTINE | inspect.CO_ASYNC_GENERATOR


def _product_drives_the_loop() -> bool:
    """Whether product code is what runs on the loop at the caller's blocking call.

    True inside a loop callback (an ``asyncio.Handle._run`` frame, task steps included) when
    the callback itself is ``desktop`` code, or a ``desktop`` coroutine or async generator
    is on the way to the call. A test coroutine calling a synchronous ``desktop`` helper
    directly (the app calls it from a worker thread) is the test's choice, not a product bug.
    """
    frame: FrameType | None = sys._getframe(2)
    entry: FrameType | None = None
    product_async = False
    while frame is not None:
        code = frame.f_code
        if code.co_name == "_run" and code.co_filename == _EVENTS_FILE:
            return product_async or (
                entry is not None and entry.f_code.co_filename.startswith(_PRODUCT_DIR)
            )
        if code.co_flags & _ASYNC and code.co_filename.startswith(_PRODUCT_DIR):
            product_async = True
        entry = frame
        frame = frame.f_back
    return False


def _on_product_loop_or(predicate: Callable[..., bool]) -> Callable[..., bool]:
    """Blockbuster's own "may block" test, widened to anything the product does not drive."""

    def can_block(*args: Any, **kwargs: Any) -> bool:
        return not _product_drives_the_loop() or predicate(*args, **kwargs)

    return can_block


def _make() -> BlockBuster:
    buster = BlockBuster(scanned_modules=["desktop"])
    for name, function in buster.functions.items():
        function.can_block_predicate = _on_product_loop_or(function.can_block_predicate)
        for exemption in EXEMPTIONS:
            if not exemption.blocking or name in exemption.blocking:
                function.can_block_in(exemption.file, exemption.functions)
    return buster


class _RecordedBlockingError(BlockingError):
    """blockbuster's error, remembered when raised: product code may catch and log it."""

    def __init__(self, func: str) -> None:
        super().__init__(func)
        stack = "".join(traceback.format_stack(limit=_STACK_LINES)[:-1])
        _SEEN[id(self)] = f"{self}, at:\n{stack}"


_STACK_LINES = 24
_SEEN: dict[int, str] = {}  # id(error) -> report; what the test itself raised is dropped
# blockbuster raises the error class named in its module; ours is a subclass, so every
# `except BlockingError` still matches.
blockbuster.blockbuster.BlockingError = _RecordedBlockingError  # type: ignore[misc]
_BUSTER: list[BlockBuster] = []


def _buster() -> BlockBuster:
    if not _BUSTER:
        _BUSTER.append(_make())
    return _BUSTER[0]


def functions() -> dict[str, BlockBusterFunction]:
    """The guarded functions by name (for the guard's own tests)."""
    return _buster().functions


@pytest.fixture(autouse=True)
def _blocking_guard(_leak_guard: None) -> Iterator[None]:
    """Blockbuster on for the test, its fixtures' set-up and teardown included."""
    buster = _buster()
    _SEEN.clear()
    buster.activate()
    try:
        yield
    finally:
        buster.deactivate()
    if _SEEN:
        first = next(iter(_SEEN.values()))
        _SEEN.clear()
        pytest.fail(f"blocking call inside the event loop (blockbuster): {first}", pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call() -> Generator[None, None, None]:
    """A blocking call that failed the test itself is reported there, not again at teardown."""
    try:
        return (yield)
    except BlockingError as error:
        _SEEN.pop(id(error), None)
        raise
