"""The nanobot forkserver (``tests/nanobot_zygote.py``): a forked command looks like a fresh one.

Each case runs the same command both ways, as a subprocess of nanobot's venv and forked from
the server, and compares what a test can see: exit code, output, error, files.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests import nanobot_zygote
from tests.conftest import cli_env
from tests.waiting import wait_for

pytestmark = pytest.mark.skipif(
    not nanobot_zygote.forking(), reason="NANOBOT_TEST_NANOBOT_FORK=0: the server is off"
)


def _fresh(
    python: Path, code: str | None, args: list[str], env: dict[str, str], cwd: Path
) -> subprocess.CompletedProcess[str]:
    argv = [str(python), "-c", code, *args] if code is not None else [
        str(python.parent / "nanobot"), *args
    ]  # fmt: skip
    return subprocess.run(
        argv, capture_output=True, text=True, check=False, timeout=120, env=env, cwd=cwd
    )


def _both(
    python: Path, tmp_path: Path, code: str | None, *args: str
) -> tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]]:
    env = cli_env(tmp_path, NANOBOT_PROBE="probe 5521")
    fresh = _fresh(python, code, list(args), env, tmp_path)
    forked = nanobot_zygote.run(python, args, env=env, cwd=tmp_path, code=code)
    return fresh, forked


def test_the_cli_answers_as_the_script_does(nanobot_bin: Path, tmp_path: Path) -> None:
    """``nanobot --version`` and ``nanobot status`` (paths from HOME): same code and output."""
    python = nanobot_bin.parent / "python"
    for args in (["--version"], ["status"], ["no-such-command"]):
        fresh, forked = _both(python, tmp_path, None, *args)
        assert (forked.returncode, forked.stdout) == (fresh.returncode, fresh.stdout), args
        assert forked.stderr == fresh.stderr, args
    status = _both(python, tmp_path, None, "status")[1].stdout
    assert str(tmp_path / ".nanobot" / "config.json") in status.replace("\n", "")  # HOME


def test_environment_folder_arguments_and_exit_codes(nanobot_bin: Path, tmp_path: Path) -> None:
    """HOME, a variable, the working folder, ``sys.argv``, ``SystemExit`` with a code and
    with a message, an uncaught exception (traceback on stderr, 1)."""
    python = nanobot_bin.parent / "python"
    probe = (
        "import os, sys, pathlib\n"
        "print(os.environ['HOME'], os.environ['NANOBOT_PROBE'], os.getcwd(), sys.argv[1:])\n"
        "print(pathlib.Path.home() / '.nanobot', file=sys.stderr)\n"
        "sys.exit(int(sys.argv[1]) if sys.argv[1].isdigit() else sys.argv[1])\n"
    )
    for arg in ("0", "7", "a message"):
        fresh, forked = _both(python, tmp_path, probe, arg, "second")
        assert (forked.returncode, forked.stdout, forked.stderr) == (
            fresh.returncode,
            fresh.stdout,
            fresh.stderr,
        ), arg
    fresh, forked = _both(python, tmp_path, "raise ValueError('broken 5521')")
    assert forked.returncode == fresh.returncode == 1
    assert forked.stderr.splitlines()[-1] == fresh.stderr.splitlines()[-1]
    assert forked.stderr.startswith("Traceback (most recent call last):")


def test_input_atexit_threads_and_unflushed_output(nanobot_bin: Path, tmp_path: Path) -> None:
    """Standard input, an ``atexit`` handler, a non-daemon thread joined at the end, output
    left in the buffers: all as the interpreter's end has them."""
    python = nanobot_bin.parent / "python"
    code = (
        "import atexit, sys, threading, time\n"
        "line = sys.stdin.readline().strip()\n"
        "atexit.register(lambda: open('atexit.txt', 'w').write('ran ' + line))\n"
        "threading.Thread(target=lambda: (time.sleep(0.2), open('thread.txt', 'w').write('done'))).start()\n"
        "sys.stdout.write('no newline, no flush')\n"
    )
    env = cli_env(tmp_path)
    forked = nanobot_zygote.run(python, [], env=env, cwd=tmp_path, code=code, stdin="kiwi\n")
    assert (forked.returncode, forked.stdout, forked.stderr) == (0, "no newline, no flush", "")
    assert (tmp_path / "atexit.txt").read_text() == "ran kiwi"
    assert (tmp_path / "thread.txt").read_text() == "done"


def test_a_running_command_is_stopped_by_a_signal(nanobot_bin: Path, tmp_path: Path) -> None:
    """Ctrl-C (SIGINT) ends it as an interpreter ends (a traceback, then -2); SIGKILL: -9."""
    python = nanobot_bin.parent / "python"
    code = "import time\nprint('up', flush=True)\ntime.sleep(300)\n"
    with nanobot_zygote.start(python, [], env=cli_env(tmp_path), code=code) as process:
        assert process.stdout is not None
        assert process.stdout.readline() == "up\n"
        assert process.poll() is None
        process.send_signal(signal.SIGINT)
        _out, err = process.communicate(timeout=60)
    assert process.returncode == -signal.SIGINT
    assert err.rstrip().endswith("KeyboardInterrupt"), err
    with nanobot_zygote.start(python, [], env=cli_env(tmp_path), code=code) as process:
        assert process.stdout is not None
        assert process.stdout.readline() == "up\n"
        process.kill()
        assert process.wait(timeout=60) == -signal.SIGKILL


def test_stopping_the_server_ends_its_running_children(nanobot_bin: Path, tmp_path: Path) -> None:
    """No process outlives the server: a command still running is killed with it."""
    python = nanobot_bin.parent / "python"
    code = "import time\nprint('up', flush=True)\ntime.sleep(300)\n"
    with nanobot_zygote.start(python, [], env=cli_env(tmp_path), code=code) as process:
        assert process.stdout is not None
        assert process.stdout.readline() == "up\n"
        nanobot_zygote.stop()
        assert process.wait(timeout=60) == -signal.SIGKILL

        def gone() -> bool:
            try:
                os.kill(process.pid, 0)
            except ProcessLookupError:
                return True
            return False

        wait_for(gone, 30, "the killed child to be reaped")
    # the next command starts a new server
    assert nanobot_zygote.run(python, [], env=cli_env(tmp_path), code="pass").returncode == 0


def test_a_different_interpreter_start_up_is_refused(nanobot_bin: Path, tmp_path: Path) -> None:
    """A command whose ``PYTHON*`` start-up variables, or variables nanobot's modules read at
    import, differ from the server's cannot be forked from it (the child would not have them):
    a clear error, not a quiet difference."""
    python = nanobot_bin.parent / "python"
    env = cli_env(tmp_path)
    assert nanobot_zygote.run(python, [], env=env, code="pass").returncode == 0
    with pytest.raises(ValueError, match="PYTHONUNBUFFERED"):
        nanobot_zygote.run(python, [], env={**env, "PYTHONUNBUFFERED": ""}, code="pass")
    with pytest.raises(ValueError, match="COLUMNS"):  # rich's consoles read it at import
        nanobot_zygote.run(python, ["status"], env={**env, "COLUMNS": "200"})
