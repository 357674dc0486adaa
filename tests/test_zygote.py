"""The pre-imported child processes of ``tests/zygote.py``: real processes, started cheaply.

The children are in ``tests/fakes/zygote_children.py``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests import zygote
from tests.conftest import REPO
from tests.waiting import wait_for


def test_the_child_is_a_separate_process_with_the_imports_done(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its own pid; LiteLLM and the core already imported; this checkout's code; the caller's
    environment, folder and arguments; output and exit code back as ``subprocess.run``'s."""
    monkeypatch.setenv("ZYGOTE_MARKER", "from the caller")
    result = zygote.run("tests.fakes.zygote_children:probe", ["3", "x y"], cwd=tmp_path)
    assert result.returncode == 3, result.stderr
    seen = json.loads(result.stdout)
    assert seen["pid"] != os.getpid() and seen["ppid"] != os.getpid()
    assert seen["preloaded"] == zygote.PRELOAD
    assert seen["tests"] == str(REPO)
    assert seen["cwd"] == str(tmp_path)
    assert seen["marker"] == "from the caller"
    assert seen["argv"] == ["3", "x y"]
    assert result.stderr == "to stderr\n"


def test_sigkill_is_real(tmp_path: Path) -> None:
    """A SIGKILL ends the child for real: -9 as ``subprocess`` reports it, its unflushed
    buffer lost, what it printed before kept."""
    target = tmp_path / "file.txt"
    result = zygote.run("tests.fakes.zygote_children:killed_mid_write", [str(target)])
    assert result.returncode == -signal.SIGKILL
    assert result.stdout == "about to die\n"
    assert target.read_text() == "complete line\n"


def test_a_child_past_its_timeout_is_killed(tmp_path: Path) -> None:
    """Past the timeout: TimeoutExpired, and the child is gone."""
    pid_file = tmp_path / "pid"
    with pytest.raises(subprocess.TimeoutExpired):
        zygote.run("tests.fakes.zygote_children:hang", [str(pid_file)], timeout=5)
    pid = int(pid_file.read_text())

    def gone() -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False

    wait_for(gone, 10, "the timed-out child to be gone")


def test_stdin_exit_handlers_and_cpu_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Standard input comes from the text given; at the end the child does what an
    interpreter's exit does (``atexit`` handlers, ``logging.shutdown``); and it reports its
    CPU seconds to the cost table (an audit event), which could not see them otherwise.

    The event is seen through a spy on ``sys.audit`` for this test, not an audit hook: a hook
    stays for the process, and a Python one makes coverage's settrace fail at random on
    CPython 3.11 (tests/coverage_lane.py)."""
    reported: list[float] = []
    audit = sys.audit

    def spy(event: str, *args: object) -> None:
        if event == "tests.zygote.cpu":
            [seconds] = args
            assert isinstance(seconds, float)
            reported.append(seconds)
        audit(event, *args)

    monkeypatch.setattr(sys, "audit", spy)
    marker, log = tmp_path / "atexit", tmp_path / "log"
    result = zygote.run(
        "tests.fakes.zygote_children:echo_stdin", [str(marker), str(log)], stdin="two\nlines\n"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "TWO\nLINES\n"
    assert marker.read_text() == "the atexit handler ran"
    assert log.read_text() == "logged"
    assert len(reported) == 1 and reported[0] >= 0.05


def test_a_started_child_streams_its_output_and_takes_ctrl_c() -> None:
    """``start``: output read line by line while the child runs (pipes, as a subprocess's);
    SIGINT reaches it as Ctrl-C reaches a fresh interpreter (KeyboardInterrupt); the rest of
    its output and its exit code come back as ``Popen.communicate`` gives them."""
    with zygote.start("tests.fakes.zygote_children:until_interrupted", []) as child:
        assert child.stdout.readline() == "running\n"
        assert child.poll() is None and child.pid != os.getpid()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
    assert (child.returncode, out, err) == (0, "stopped\n", "interrupted\n"), err
