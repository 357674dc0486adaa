"""The coverage lane: which tests run with the tracer on (tests/coverage_lane.py)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys

import coverage
import pytest

from tests.conftest import REPO
from tests.coverage_lane import hooks_race_settrace, measured


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
    result = _lane_run(pytester, "--cov=lane_pkg", "--cov-report=")
    result.assert_outcomes(passed=2)
    data = coverage.CoverageData(str(pytester.path / ".coverage"))
    data.read()
    [measured_file] = data.measured_files()
    assert sorted(data.lines(measured_file) or []) == [1, 2, 5], "core_only ran, ui_only did not"


def _lane_run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """A pytest run in a child process with the lane plugin and ``args`` (a fresh interpreter:
    an audit hook cannot be removed once added)."""
    paths = [str(REPO), str(pytester.path), os.environ.get("PYTHONPATH")]
    pytester._monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, paths)))
    return pytester.runpytest_subprocess(
        "-p", "tests.coverage_lane", "-p", "no:cacheprovider", *args
    )


@pytest.mark.skipif(not hooks_race_settrace(), reason="CPython 3.12+ runs the hooks outside it")
def test_a_python_audit_hook_is_refused_while_coverage_measures(pytester: pytest.Pytester) -> None:
    """Under ``--cov`` a test (or plugin) that adds a Python audit hook fails at once, saying
    why; without coverage the hook is added as usual."""
    pytester.makepyfile(lane_pkg="def f():\n    return 1\n")
    pytester.mkdir("tests")
    pytester.mkdir("tests/ui")
    (pytester.path / "tests/ui/test_hook.py").write_text(
        "import sys\n\n\ndef test_hook():\n    sys.addaudithook(lambda event, args: None)\n"
    )
    measured_run = _lane_run(pytester, "--cov=lane_pkg", "--cov-report=")
    measured_run.assert_outcomes(failed=1)
    measured_run.stdout.fnmatch_lines(["*refused while coverage measures this run*"])
    _lane_run(pytester).assert_outcomes(passed=1)


_SETTRACE_IN_A_HOOK = """
import sys, threading

failures = []


def settrace_elsewhere():
    try:
        sys.settrace(None)
    except RuntimeError as error:
        failures.append(str(error))


def hook(event, args):
    if event == "sys.settrace" and threading.current_thread() is threading.main_thread():
        other = threading.Thread(target=settrace_elsewhere)
        other.start()
        other.join()  # the GIL passes to the other thread while this hook runs


sys.addaudithook(hook)
sys.settrace(None)
print(failures)
"""


def test_settrace_fails_in_another_thread_while_a_python_audit_hook_runs() -> None:
    """Why the lane refuses Python audit hooks: on CPython 3.11 another thread's settrace
    fails while the ``sys.settrace`` event's Python hook runs (any bytecode may hand the GIL
    over: here a join). ``hooks_race_settrace`` says so exactly when it is so."""
    result = subprocess.run(
        [sys.executable, "-c", _SETTRACE_IN_A_HOOK],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    failures = ast.literal_eval(result.stdout.strip())
    expected = (
        ["Cannot install a trace function while another trace function is being installed"]
        if hooks_race_settrace()
        else []
    )
    assert failures == expected
