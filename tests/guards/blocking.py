"""The blocking-call guard: product code must not block a running event loop (blockbuster).

`blockbuster <https://pypi.org/project/blockbuster/>`_ swaps blocking functions (file reads
and writes, ``os.stat``/``listdir``/..., ``time.sleep``, blocking sockets, sqlite, a held
``Lock.acquire``, ``input``) for checks that run while an asyncio loop runs. It is active
around every test, with three changes:

- a blocking call is *recorded* and fails the test at teardown, with the stack of the first
  one; it is not raised where it happens. Raised, it lands in the product's own error
  handling (a failed turn, a logged task) and the test hangs or fails far from the cause;

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
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

import pytest
from blockbuster import BlockBuster, BlockBusterFunction

import desktop
from tests.guards import known


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
        "desktop/ui/qt_feature.py",
        frozenset({"uses_pyside"}),
        "the same check as PySide's (above), put in by desktop.ui so that the source read is "
        "not kept in linecache: one read of an imported module's file, at import",
        ("io.BufferedReader.read",),
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
        "litellm/llms/custom_httpx/http_handler.py",
        frozenset({"get_ssl_verify", "get_ssl_configuration"}),
        "LiteLLM checks that its CA files exist each time it builds an HTTP client (a stat or "
        "two); not ours to move",
    ),
    Exemption(
        "pathlib.py",
        frozenset({"resolve"}),
        "resolving a path (Path.resolve, and the stat it does to catch a symlink loop) reads "
        "metadata of local folders only, no file content; the tools resolve every path they "
        "are given, and doing that in a thread would cost more than the lookups",
        ("os.stat", "os.lstat", "os.readlink"),
    ),
    Exemption(
        "zoneinfo/_tzpath.py",
        frozenset({"find_tzfile"}),
        "checking a time zone name (the Agent page, the local zone) stats a few paths of the "
        "tz database; ZoneInfo keeps each zone once loaded",
    ),
    Exemption(
        "zoneinfo/_common.py",
        frozenset({"load_data"}),
        "loading a zone reads one small tz database file, once per zone (ZoneInfo caches it)",
    ),
    Exemption(
        "desktop/ui/chat/composer_edit.py",
        frozenset({"is_image_path", "is_attachment_path"}),
        "one stat of a file the person just pasted or dropped, in answer to that action",
        ("os.stat",),
    ),
    Exemption(
        "desktop/core/security/seccomp.py",
        frozenset({"filter_fd"}),
        "writes the exec sandbox's seccomp program into a memfd: memory, not disk",
        ("os.write",),
    ),
    Exemption(
        "desktop/core/channels/feishu/longconn.py",
        frozenset({"_session"}),
        "the Feishu SDK's long connection runs on a private loop in its own thread (the SDK "
        "fetches its endpoint with requests there); the app's loop is not involved",
    ),
    Exemption(
        "telegram/_utils/files.py",
        frozenset({"is_local_file"}),
        "python-telegram-bot checks whether a file path is local (one stat) in get_file and "
        "download; not ours to move",
        ("os.stat",),
    ),
    Exemption(
        "nio/store/database.py",
        frozenset({"inner", "ignore_devices"}),
        "matrix-nio's crypto store once open: nio saves keys, Olm sessions and the devices it "
        "ignores (SQLite, and a small file) from inside its synchronous handling of a sync or "
        "a send, a few small writes per encrypted event; its client is not thread-safe, so "
        "they stay on the loop. Opening the store (connect, tables, loading the keys; not "
        "under these) runs in a worker thread (desktop/core/channels/matrix/crypto.py)",
    ),
    Exemption(
        "linecache.py",
        frozenset({"updatecache", "checkcache"}),
        "formatting a traceback (log.exception) reads the frames' source lines: only when "
        "an error is being reported",
    ),
)

# blockbuster functions not guarded at all, each with why.
UNGUARDED: dict[str, str] = {
    "os.path.abspath": "string work on an absolute path; a relative one adds one getcwd(), "
    "which reads no disk (os.path.realpath calls it for every path)",
}

_EVENTS_FILE = asyncio.events.__file__
_PRODUCT_DIR = str(Path(desktop.__file__).parent) + os.sep
_TESTS_DIR = str(Path(__file__).resolve().parents[1]) + os.sep
_ASYNC = inspect.CO_COROUTINE | inspect.CO_ITERABLE_COROUTINE | inspect.CO_ASYNC_GENERATOR
_STACK_LINES = 24
_SEEN: dict[str, int] = {}  # the running test's blocking calls: where -> how many times
_SHOWN = 3  # distinct places shown in a failure


# What the walk below needs to know of a frame's code, worked out once per code object (the
# guard runs on every file operation of every test: the walk is most of its cost).
_PLAIN, _PRODUCT, _TESTS = 0, 1, 2
_CODE: dict[
    CodeType, tuple[int, bool, bool]
] = {}  # code -> (owner kind, loop callback, product async)
_EXEMPT: dict[tuple[int, CodeType], bool] = {}  # (id of an exemption list, code) -> exempt


def _code_info(code: CodeType) -> tuple[int, bool, bool]:
    """Whose code it is, whether it is asyncio's ``Handle._run``, whether it is a product
    coroutine or async generator."""
    info = _CODE.get(code)
    if info is None:
        name = code.co_filename
        kind = (
            _PRODUCT
            if name.startswith(_PRODUCT_DIR)
            else _TESTS
            if name.startswith(_TESTS_DIR)
            else _PLAIN
        )
        is_run = code.co_name == "_run" and name == _EVENTS_FILE
        info = _CODE[code] = (kind, is_run, kind == _PRODUCT and bool(code.co_flags & _ASYNC))
    return info


def _exempt(code: CodeType, allowed: Iterable[tuple[str, Iterable[str]]]) -> bool:
    """Whether ``code`` is one of the ``allowed`` functions (a file suffix and names)."""
    key = (id(allowed), code)
    hit = _EXEMPT.get(key)
    if hit is None:
        name = code.co_filename.replace("\\", "/")
        hit = _EXEMPT[key] = any(
            name.endswith(file) and code.co_name in fns for file, fns in allowed
        )
    return hit


def _product_blocks_the_loop(
    frame: FrameType | None, allowed: Iterable[tuple[str, Iterable[str]]]
) -> list[FrameType]:
    """The loop callback's frames when the blocking call at ``frame`` is the product's.

    A blocking call counts inside a loop callback (an ``asyncio.Handle._run`` frame, task
    steps included) when the callback itself is ``desktop`` code, or a ``desktop`` coroutine
    or async generator is on the way to the call, and no exempted function is. A test
    coroutine calling a synchronous ``desktop`` helper directly (the app calls it from a
    worker thread) is the test's choice, not a product bug; so is a test's callback or fake
    that the product calls (the innermost of ``desktop`` and ``tests`` frames decides).
    Empty when it does not count.
    """
    frames: list[FrameType] = []
    product_async = False
    owned = False  # the innermost product or tests frame has been seen
    while frame is not None:
        code = frame.f_code
        kind, is_run, async_product = _code_info(code)
        if not owned and kind != _PLAIN:
            owned = True
            if kind == _TESTS:
                return []  # a test's callback or fake, called by the product: the test's
        if is_run:
            entry = _code_info(frames[-1].f_code)[0] if frames else _PLAIN
            return frames if product_async or entry == _PRODUCT else []
        if _exempt(code, allowed):
            return []
        product_async = product_async or async_product
        frames.append(frame)
        frame = frame.f_back
    return []


def _recorder(name: str, function: BlockBusterFunction) -> Callable[..., bool]:
    """blockbuster's "may block" predicate for ``function``, turned into a recorder.

    It always answers "may block" (so blockbuster never raises) after noting the call when
    blockbuster's own test (a non-blocking socket, standard output, ...) does not clear it
    and the product blocks the loop with it.
    """
    cleared = function.can_block_predicate

    def can_block(*args: Any, **kwargs: Any) -> bool:
        if cleared(*args, **kwargs):
            return True
        frames = _product_blocks_the_loop(sys._getframe(2), function.can_block_functions)
        if frames:  # the loop callback, innermost last
            summary = traceback.StackSummary.extract(
                (f, f.f_lineno) for f in reversed(frames[:_STACK_LINES])
            )
            where = f"{name}, in this loop callback:\n{''.join(summary.format())}"
            _SEEN[where] = _SEEN.get(where, 0) + 1
        return True

    return can_block


def _make() -> BlockBuster:
    buster = BlockBuster(scanned_modules=["desktop"])
    for name in UNGUARDED:
        del buster.functions[name]
    for name, function in buster.functions.items():
        for exemption in EXEMPTIONS:
            if not exemption.blocking or name in exemption.blocking:
                function.can_block_in(exemption.file, exemption.functions)
        function.can_block_predicate = _recorder(name, function)
    return buster


_BUSTER: list[BlockBuster] = []


def _buster() -> BlockBuster:
    if not _BUSTER:
        _BUSTER.append(_make())
    return _BUSTER[0]


@pytest.fixture(autouse=True)
def _blocking_guard(_leak_guard: None, request: pytest.FixtureRequest) -> Iterator[None]:
    """Blockbuster on for the test, its fixtures' set-up and teardown included."""
    buster = _buster()
    _SEEN.clear()
    buster.activate()
    try:
        yield
    finally:
        buster.deactivate()
    if _SEEN and known.debt(known.BLOCKING, request.node):
        _SEEN.clear()  # a listed debt (tests/guards/known.py)
    if _SEEN:
        places = [f"{count} x {where}" for where, count in list(_SEEN.items())[:_SHOWN]]
        total, distinct = sum(_SEEN.values()), len(_SEEN)
        _SEEN.clear()
        pytest.fail(
            f"{total} blocking call(s) inside the event loop from {distinct} place(s) "
            f"(blockbuster):\n" + "\n".join(places),
            pytrace=False,
        )
