"""Coverage in one lane: the tracer runs while the core tier (``tests/core/``) runs, and is
paused for every other test.

Line tracing costs Python 3.11 a third more CPU even when only desktop/core's files are traced
(measured on part of the core tier; [tool.coverage.run] in pyproject.toml), and the floor
scripts/test.sh checks is desktop/core's coverage by its own tier, so only that tier pays for
it. Active only when pytest-cov measures (``--cov``); a no-op otherwise.

While coverage measures, a Python audit hook (``sys.addaudithook``) is refused, with the reason.
On CPython 3.11, ``sys.settrace`` (and ``PyEval_SetTrace``, which coverage's C tracer calls)
holds one process-wide "a trace function is being installed" flag while it runs the audit hooks
of its ``sys.settrace`` event. A Python hook runs bytecode there, so the GIL can pass to another
thread, and any settrace in that thread then fails with ``RuntimeError: Cannot install a trace
function while another trace function is being installed``. Coverage calls settrace from many
threads (a new thread installs its tracer as it starts; a thread's tracer turns itself off at
its next event after a stop; this lane stops and starts the tracer around every test outside
it), so with one such hook in the process a run fails at random: an unraisable "Exception
ignored in PyEval_SetTrace" in whatever test is running, or a thread that dies before its
target runs. Without a Python hook only C code runs inside that flag (swapping the trace
function; coverage's tracers have no Python finalizers), so the GIL does not change hands there
and the settrace calls of two threads do not overlap. (CPython 3.12 changed this:
:func:`hooks_race_settrace` names the versions, and tests/test_coverage_lane.py checks it on the
running interpreter.)
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Generator
from typing import Any

import coverage
import pytest

LANE = "tests/core/"

REFUSED = (
    "sys.addaudithook({hook!r}) refused while coverage measures this run (tests/coverage_lane.py): "
    "on CPython 3.11 a Python audit hook runs inside sys.settrace's process-wide guard, so "
    "coverage's settrace in another thread fails at random ('Cannot install a trace function "
    "while another trace function is being installed'). Check an audit event another way "
    "(e.g. a spy on sys.audit for one test), or run without --cov."
)


def measured(nodeid: str) -> bool:
    """Whether the test ``nodeid`` runs with the tracer on."""
    path = nodeid.replace("\\", "/")
    return (path if path.startswith("tests/") else f"tests/{path}").startswith(LANE)


def hooks_race_settrace() -> bool:
    """Whether this interpreter runs the ``sys.settrace`` audit hooks under its
    one-installation-at-a-time flag (CPython before 3.12)."""
    return sys.implementation.name == "cpython" and sys.version_info < (3, 12)


def _measures(config: pytest.Config) -> bool:
    """Whether pytest-cov measures this run (``--cov`` given, no ``--no-cov``)."""
    return bool(config.getoption("cov_source", None)) and not config.getoption("no_cov", False)


def _refuse(hook: Callable[[str, tuple[Any, ...]], object]) -> None:
    raise RuntimeError(REFUSED.format(hook=hook))


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Refuse Python audit hooks for the run when coverage measures it (see the module's
    docstring); before any other plugin's ``pytest_configure`` can add one."""
    if not (_measures(config) and hooks_race_settrace()):
        return
    plain = sys.addaudithook
    setattr(sys, "addaudithook", _refuse)  # noqa: B010 - mypy: a module's function
    config.add_cleanup(lambda: setattr(sys, "addaudithook", plain))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    """Stop the tracer around a test outside the lane (setup, call and teardown)."""
    cov = coverage.Coverage.current()
    if cov is None or measured(item.nodeid):
        return (yield)
    cov.stop()
    try:
        return (yield)
    finally:
        cov.start()
