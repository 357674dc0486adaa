"""The coverage lane: which tests run with the tracer on (tests/coverage_lane.py)."""

from __future__ import annotations

import os

import coverage
import pytest

from tests.conftest import REPO
from tests.coverage_lane import measured


@pytest.mark.parametrize(
    ("nodeid", "expected"),
    [
        ("tests/core/test_config.py::test_x", True),
        ("core/agent/test_loop.py::test_y[1]", True),  # relative to tests/ (an xdist worker)
        ("tests/ui/chat/test_chat_turns.py::test_z", False),
        ("tests/channels/telegram/test_telegram.py::test_w", False),
        ("tests/corelike/test_a.py::test_b", False),
    ],
)
def test_only_the_core_tier_is_measured(nodeid: str, expected: bool) -> None:
    assert measured(nodeid) is expected


def test_a_run_measures_what_the_core_tier_runs_and_nothing_else(pytester: pytest.Pytester) -> None:
    """A real pytest-cov run with the lane plugin: the function a tests/core/ test calls is
    covered, the one only a tests/ui/ test calls is not."""
    pytester.makepyfile(
        lane_pkg="def core_only():\n    return 1\n\n\ndef ui_only():\n    return 2\n"
    )
    pytester.mkdir("tests")
    pytester.mkdir("tests/core")
    pytester.mkdir("tests/ui")
    (pytester.path / "tests/core/test_a.py").write_text(
        "from lane_pkg import core_only\n\n\ndef test_a():\n    assert core_only() == 1\n"
    )
    (pytester.path / "tests/ui/test_b.py").write_text(
        "from lane_pkg import ui_only\n\n\ndef test_b():\n    assert ui_only() == 2\n"
    )
    paths = [str(REPO), str(pytester.path), os.environ.get("PYTHONPATH")]
    pytester._monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, paths)))
    result = pytester.runpytest_subprocess(
        "-p", "tests.coverage_lane", "-p", "no:cacheprovider", "--cov=lane_pkg", "--cov-report="
    )
    result.assert_outcomes(passed=2)
    data = coverage.CoverageData(str(pytester.path / ".coverage"))
    data.read()
    [measured_file] = data.measured_files()
    assert sorted(data.lines(measured_file) or []) == [1, 2, 5], "core_only ran, ui_only did not"
