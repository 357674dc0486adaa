"""The leak guard: a test must not leave asyncio tasks, threads or top-level widgets behind.

Every test is snapshotted before it starts (after the wider-scoped fixtures it needs are up)
and checked after its teardown:

- **tasks**: tasks still pending on the loop the test ran on (pytest-asyncio's loop, checked
  after the test's own fixtures are torn down and before the loop is closed, since closing
  cancels them silently; or the GUI tier's shared qasync loop);
- **threads**: non-daemon threads started during the test that are still alive after a
  short grace period (the guard joins them, it does not sleep);
- **widgets**: top-level Qt widgets created during the test that still exist (visible or
  hidden) after pytest-qt closed the test's widgets and pending deletions ran;
- **timers**: loop timers (``call_later``/``call_at``) armed by product code during the test
  and still due: the scheduler's wake-up left armed means a scheduler left running, whose
  next tick would start tasks inside some later test.

What a module- or session-scoped fixture creates while it is set up belongs to that fixture,
not to the test that happened to set it up first: :func:`pytest_fixture_setup` records it
and the checks leave it alone. Things from before the test (the X server, the keyring, a
model server's threads) are in the snapshot and ignored too.

A leak fails the test at teardown; the leaked tasks are then cancelled and the widgets
hidden (and remembered), so the next test is not blamed for them.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.guards import known

# Seconds a new non-daemon thread gets to finish after the test's teardown.
THREAD_GRACE = 3.0
# Seconds the shared qasync loop gets to finish cancelling a leaked task before giving up.
CANCEL_GRACE = 2.0

# Threads that may outlive the test that started them, by name prefix, each with its reason.
# (Daemon threads are never checked: the process may exit with them running.)
THREAD_EXEMPTIONS: dict[str, str] = {}

# Pending tasks that may outlive the test, by the qualified name of their coroutine, each with
# its reason.
TASK_EXEMPTIONS: dict[str, str] = {
    "LoggingWorker._worker_loop": "LiteLLM's module-wide logging worker: LiteLLM starts it on "
    "the loop of its first call and keeps it for that loop's life; closing the loop ends it",
    "LoggingWorker._process_log_task": "the same worker's handling of one log record, "
    "cancelled with it",
    "Logging.async_success_handler": "the success record of a non-streamed LiteLLM call, run by "
    "that worker as a task of its own (_process_log_task waits for it); on a busy machine it "
    "can still be running when the test ends, and it ends with the worker",
    "AsyncSocket._send_ping": "python-socketio's test server (tests/channels/mochat): a client "
    "socket's ping task sleeps out its interval after the server has shut down",
    "async_generator_athrow": "asyncio's own clean-up of an async generator that was dropped "
    "unfinished (the loop's finalizer hook schedules its aclose; closing the loop runs it). "
    "The task does not say which generator it was",
}

# Top-level widget classes Qt itself keeps around, each with its reason.
WIDGET_EXEMPTIONS: dict[str, str] = {}


@dataclass
class _Owned:
    """Everything that existed before a test, or belongs to a wider-scoped fixture."""

    threads: set[threading.Thread] = field(default_factory=set)
    widgets: set[int] = field(default_factory=set)
    tasks: set[asyncio.Task[Any]] = field(default_factory=set)
    timers: set[int] = field(default_factory=set)  # ids of armed TimerHandles


_LONG_LIVED = _Owned()  # what module/session fixtures made while being set up
_BEFORE = pytest.StashKey[_Owned]()


def _threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.is_alive()}


def _qt_app() -> Any:
    """The QApplication when the GUI tier made one (never imports Qt itself)."""
    widgets = sys.modules.get("PySide6.QtWidgets")
    return None if widgets is None else widgets.QApplication.instance()


def _widget_key(widget: Any) -> int:
    import shiboken6

    return int(shiboken6.getCppPointer(widget)[0])


def _widgets() -> dict[int, Any]:
    app = _qt_app()
    if app is None:
        return {}
    return {_widget_key(w): w for w in app.topLevelWidgets()}


def _flush_deletions() -> None:
    """Run pending ``deleteLater`` calls (``processEvents`` alone leaves them queued)."""
    app = _qt_app()
    if app is None:
        return
    from PySide6.QtCore import QCoreApplication, QEvent

    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def _coro_name(task: asyncio.Task[Any]) -> str:
    coro = task.get_coro()
    return str(getattr(coro, "__qualname__", None) or type(coro).__name__)


def _pending(loop: asyncio.AbstractEventLoop | None) -> set[asyncio.Task[Any]]:
    if loop is None or loop.is_closed():
        return set()
    return {
        t for t in asyncio.all_tasks(loop) if not t.done() and _coro_name(t) not in TASK_EXEMPTIONS
    }


def _timers(loop: asyncio.AbstractEventLoop | None) -> dict[int, asyncio.TimerHandle]:
    """Armed timers of ``loop`` whose callback is product code (``desktop.*``), by id."""
    if loop is None or loop.is_closed():
        return {}
    qt_timer = getattr(loop, "_timer", None)  # qasync keeps its handles in a QObject timer
    handles: Iterable[Any] = (
        getattr(qt_timer, "_SimpleTimer__callbacks", {}).values()
        if qt_timer is not None
        else getattr(loop, "_scheduled", ())
    )
    return {
        id(h): h
        for h in handles
        if isinstance(h, asyncio.TimerHandle)  # qasync keeps call_soon's handles there too
        and not h.cancelled()
        and str(getattr(getattr(h, "_callback", None), "__module__", "")).startswith("desktop.")
    }


def _describe_timer(loop: asyncio.AbstractEventLoop, handle: asyncio.TimerHandle) -> str:
    callback = getattr(handle, "_callback", None)
    name = getattr(callback, "__qualname__", repr(callback))
    return f"timer {name} (due in {handle.when() - loop.time():.0f} s)"


def _shared_loop() -> asyncio.AbstractEventLoop | None:
    """The GUI tier's qasync loop: installed as the main thread's running loop for good."""
    return asyncio.events._get_running_loop()


def _snapshot(loops: list[asyncio.AbstractEventLoop | None]) -> _Owned:
    tasks: set[asyncio.Task[Any]] = set()
    timers: set[int] = set()
    for loop in loops:
        tasks |= _pending(loop)
        timers |= set(_timers(loop))
    return _Owned(threads=_threads(), widgets=set(_widgets()), tasks=tasks, timers=timers)


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef[Any]) -> Generator[None, Any, Any]:
    """Record what a module- or session-scoped fixture creates: it outlives tests by design."""
    if fixturedef.scope == "function":
        return (yield)
    before = _snapshot([_shared_loop()])
    try:
        return (yield)
    finally:
        after = _snapshot([_shared_loop()])
        _LONG_LIVED.threads |= after.threads - before.threads
        _LONG_LIVED.widgets |= after.widgets - before.widgets
        _LONG_LIVED.tasks |= after.tasks - before.tasks
        _LONG_LIVED.timers |= after.timers - before.timers


def _describe_task(task: asyncio.Task[Any]) -> str:
    coro = task.get_coro()
    where = getattr(coro, "cr_code", None) or getattr(coro, "ag_code", None)
    origin = f" ({where.co_filename}:{where.co_firstlineno})" if where is not None else ""
    return f"{task.get_name()}: {_coro_name(task)!r}{origin}"


def _settle(tasks: Iterable[asyncio.Task[Any]]) -> None:
    """Let the qasync loop run until ``tasks`` have ended (at most CANCEL_GRACE seconds)."""
    waiting = list(tasks)
    if _qt_app() is None:
        return
    from PySide6.QtTest import QTest

    deadline = time.monotonic() + CANCEL_GRACE
    while not all(t.done() for t in waiting) and time.monotonic() < deadline:
        QTest.qWait(10)  # runs the Qt (and so the qasync) event loop meanwhile


def _cancel_on_shared_loop(tasks: set[asyncio.Task[Any]]) -> None:
    """Cancel leaked tasks on the qasync loop and let it run until they have ended."""
    for task in tasks:
        task.cancel()
    _settle(tasks)


@pytest.fixture(autouse=True)
def _leak_guard(request: pytest.FixtureRequest) -> Iterator[None]:
    """Snapshot before the test; after its fixtures are gone, fail on tasks it left pending.

    Set up before every other function-scoped fixture (autouse, from a plugin) and so torn
    down after them. An async test's loop is requested here, so it closes only after this
    check (closing it would cancel the leftovers silently).
    """
    runner = next((n for n in request.fixturenames if n.endswith("_scoped_runner")), None)
    loop = request.getfixturevalue(runner).get_loop() if runner else None
    before = _snapshot([loop, _shared_loop()])
    before.threads |= _LONG_LIVED.threads
    before.widgets |= _LONG_LIVED.widgets
    request.node.stash[_BEFORE] = before
    yield
    shared = _shared_loop()
    leaked_here = _pending(loop) - before.tasks
    if loop is not None and any(t.cancelling() for t in leaked_here):
        # Libraries that cancel their own tasks without waiting (slack-sdk, discord.py) leave
        # them ending; the same moment as on the shared loop (below) to do so.
        settling = [t for t in leaked_here if t.cancelling()]
        loop.run_until_complete(asyncio.wait(settling, timeout=CANCEL_GRACE))
        leaked_here = {t for t in leaked_here if not t.done()}
    leaked_shared = (_pending(shared) - before.tasks - _LONG_LIVED.tasks) if shared else set()
    if any(t.cancelling() for t in leaked_shared):
        # A Qt slot cannot await the task it cancels (Tray.hide, a tab's close): on the
        # shared loop, a task already told to stop gets a moment to end.
        _settle(t for t in leaked_shared if t.cancelling())
        leaked_shared = {t for t in leaked_shared if not t.done()}
    leaked = leaked_here | leaked_shared
    if leaked_shared:
        _cancel_on_shared_loop(leaked_shared)
        _LONG_LIVED.tasks |= {t for t in leaked_shared if not t.done()}  # reported once
    timers = [
        (timer_loop, handle)
        for timer_loop in (loop, shared)
        if timer_loop is not None
        for key, handle in _timers(timer_loop).items()
        if key not in before.timers and key not in _LONG_LIVED.timers
    ]
    lines = sorted(_describe_task(t) for t in leaked)
    lines += sorted(_describe_timer(timer_loop, h) for timer_loop, h in timers)
    for _, handle in timers:  # disarmed, so a later test does not get its tick
        handle.cancel()
    if lines and not known.debt(known.LEAKS, request.node):  # listed debts: cleaned up only
        text = "\n  ".join(lines)
        pytest.fail(f"the test left {len(lines)} asyncio task(s) or timer(s) pending:\n  {text}")


def _exempt_thread(thread: threading.Thread) -> bool:
    return any(thread.name.startswith(prefix) for prefix in THREAD_EXEMPTIONS)


def _leaked_threads(before: _Owned) -> list[threading.Thread]:
    """New non-daemon threads still alive after the grace period (joined, not slept on)."""
    new = [
        t
        for t in _threads() - before.threads - _LONG_LIVED.threads
        if not t.daemon and t is not threading.current_thread() and not _exempt_thread(t)
    ]
    deadline = time.monotonic() + THREAD_GRACE
    for thread in new:
        thread.join(max(0.0, deadline - time.monotonic()))
    alive = [t for t in new if t.is_alive()]
    _LONG_LIVED.threads |= set(alive)  # reported once; the next test is not blamed
    return alive


def _leaked_widgets(before: _Owned) -> list[Any]:
    _flush_deletions()
    owned = before.widgets | _LONG_LIVED.widgets
    return [
        w
        for key, w in _widgets().items()
        if key not in owned and type(w).__name__ not in WIDGET_EXEMPTIONS
    ]


def _hide_widgets(widgets: list[Any]) -> None:
    """Hide what leaked and remember it, so the next test is not blamed. Not deleted: the
    test or the product may still hold it, and deleting under them crashes the process."""
    for widget in widgets:
        widget.close()
        _LONG_LIVED.widgets.add(_widget_key(widget))


def _describe_widget(widget: Any) -> str:
    state = "visible" if widget.isVisible() else "hidden"
    name = widget.objectName() or widget.windowTitle()
    return f"{type(widget).__module__}.{type(widget).__qualname__} {name!r} ({state})"


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    """After every finalizer (the loop closed, pytest-qt's widgets gone): threads, widgets."""
    yield
    before = item.stash.get(_BEFORE, None)
    if before is None:  # the guard fixture never ran (setup failed before it)
        return
    problems: list[str] = []
    threads = _leaked_threads(before)
    if threads:
        names = ", ".join(sorted(repr(t.name) for t in threads))
        problems.append(
            f"{len(threads)} non-daemon thread(s) still running {THREAD_GRACE:g} s after "
            f"teardown: {names}"
        )
    widgets = _leaked_widgets(before)
    if widgets:
        names = "\n  ".join(sorted(_describe_widget(w) for w in widgets))
        _hide_widgets(widgets)
        problems.append(f"{len(widgets)} top-level widget(s) not deleted:\n  {names}")
    if problems and not known.debt(known.LEAKS, item):  # listed debts: cleaned up only
        pytest.fail("the test left things behind:\n" + "\n".join(problems), pytrace=False)
