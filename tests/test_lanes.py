"""The xdist lanes of ``tests/conftest.py``: a lane's tests on one worker, the GUI tier last.

A small suite laid out like ours (``tests/channels/matrix/``, ``tests/core/``, ``tests/ui/``)
runs on two real workers with this repository's hooks; each test notes which worker ran it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import REPO

NOTE = """
import os


def note(name):
    with open(os.environ["LANE_LOG"], "a", encoding="utf-8") as log:
        log.write(f"{os.environ['PYTEST_XDIST_WORKER']} {name}\\n")
"""


def _module(prefix: str, count: int) -> str:
    tests = "".join(f"\n\ndef test_{i}():\n    note('{prefix}{i}')\n" for i in range(count))
    return f"from note import note\n{tests}"


def test_a_lane_runs_on_one_worker_and_the_gui_tier_comes_last(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Synapse's lane stays on one worker; both workers work; on each, no GUI test before
    another test."""
    log = tmp_path / "lanes.log"
    monkeypatch.setenv("LANE_LOG", str(log))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(REPO), str(pytester.path)]))
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makeconftest(
        "from tests.conftest import pytest_collection_modifyitems, pytest_xdist_make_scheduler\n"
    )
    pytester.makepyfile(note=NOTE)
    for folder, prefix, count in (
        ("tests/core", "c", 12),
        ("tests/channels/matrix", "m", 6),
        ("tests/ui", "u", 4),
    ):
        path = pytester.path / folder / f"test_{prefix}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_module(prefix, count), encoding="utf-8")
    result = pytester.runpytest_subprocess(
        "-n", "2", "--dist", "loadgroup", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(passed=22)
    runs = [line.split() for line in log.read_text(encoding="utf-8").splitlines()]
    assert len({worker for worker, name in runs if name.startswith("m")}) == 1, runs
    assert len({worker for worker, _ in runs}) == 2, runs
    for worker in {worker for worker, _ in runs}:
        order = [name[0] for w, name in runs if w == worker]
        assert "".join(order).rstrip("u").count("u") == 0, (worker, order)
