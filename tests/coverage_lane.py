"""Coverage in one lane: the tracer runs while the core tier (``tests/core/``) runs, and is
paused for every other test.

Line tracing costs Python 3.11 a third more CPU even when only desktop/core's files are traced
(measured on part of the core tier; [tool.coverage.run] in pyproject.toml), and the floor
scripts/test.sh checks is desktop/core's coverage by its own tier, so only that tier pays for
it. Active only when pytest-cov measures (``--cov``); a no-op otherwise.
"""

from __future__ import annotations

from collections.abc import Generator

import coverage
import pytest

LANE = "tests/core/"


def measured(nodeid: str) -> bool:
    """Whether the test ``nodeid`` runs with the tracer on."""
    path = nodeid.replace("\\", "/")
    return (path if path.startswith("tests/") else f"tests/{path}").startswith(LANE)


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
