"""The install and build scripts' progress and their patience with a running package manager
(scripts/steps.sh, sourced by install.sh's scripts/setup.sh and by packaging/build.sh)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

STEPS = REPO / "scripts" / "steps.sh"
DPKG_LOCK = Path("/var/lib/dpkg/lock-frontend")


def _bash(script: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run ``script`` with the steps sourced (``set -euo pipefail``, as the scripts do)."""
    return subprocess.run(
        ["bash", "-c", f"set -euo pipefail; . {STEPS}; {script}"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, **env},
    )


def test_a_line_per_phase_with_the_time_so_far() -> None:
    done = _bash('step "Installing Python packages"; step "Adding the menu entry"; steps_done')
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [re.sub(r"\[\d+:\d\d\]", "[t]", line) for line in lines] == [
        "==> [t] Installing Python packages",
        "==> [t] Adding the menu entry",
        "==> [t] Done.",
    ]
    assert "\r" not in done.stdout and "\x1b" not in done.stdout, "plain lines for CI logs"


def test_a_quiet_command_says_it_is_still_working_and_keeps_its_exit_code() -> None:
    """A command that prints nothing for a while gets a "still working" line per period; the
    ticker ends with it (nothing is left holding the output open) and its exit code stays."""
    ticking = _bash("run_ticking sleep 2.5", NANOBOT_TICK_S="1")
    assert ticking.returncode == 0, ticking.stderr
    ticks = ticking.stdout.splitlines()
    assert len(ticks) >= 1 and all(re.fullmatch(r"    … still working \(0:0\d\)", t) for t in ticks)
    failing = _bash('run_ticking bash -c "exit 3" || echo "exit $?"', NANOBOT_TICK_S="1")
    assert failing.stdout.strip().endswith("exit 3")


def test_a_quick_command_does_not_end_the_script() -> None:
    """Under ``set -e`` a command that ends before its ticker got going: the script goes on
    (the ticker's own exit status, killed, is not the command's)."""
    quick = _bash("for i in $(seq 30); do run_ticking true; done; echo after", NANOBOT_TICK_S="1")
    assert quick.returncode == 0 and quick.stdout.strip() == "after", quick


def test_every_apt_get_in_setup_waits_for_the_lock() -> None:
    """setup.sh calls apt only through apt_get, which passes apt's lock timeout."""
    setup = (REPO / "scripts" / "setup.sh").read_text(encoding="utf-8")
    calls = [line for line in setup.splitlines() if re.search(r"\bapt-get\b", line)]
    assert calls and all("command -v apt-get" in line for line in calls), calls
    assert "apt_get install" in setup and "apt_get update" in setup
    assert 'DPkg::Lock::Timeout="$NANOBOT_APT_LOCK_TIMEOUT"' in STEPS.read_text(encoding="utf-8")


@pytest.mark.skipif(
    os.geteuid() != 0 or not DPKG_LOCK.exists() or shutil.which("apt-get") is None,
    reason="holding dpkg's lock needs root on a Debian system",
)
def test_apt_waits_for_a_held_dpkg_lock_and_says_so() -> None:
    """Another package manager holds dpkg's lock (as apt does: an fcntl lock) for a moment:
    apt_get says who holds it, waits, and succeeds once it is free -- instead of apt's
    "Could not get lock" at once. (The command changes nothing: bash is installed and no
    upgrade is allowed.)"""
    hold = (
        "import fcntl, os, sys, time\n"
        f"fd = os.open({str(DPKG_LOCK)!r}, os.O_RDWR)\n"
        "while True:\n"
        "    try:\n"
        "        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
        "        break\n"
        "    except OSError:\n"
        "        time.sleep(0.2)  # another package manager has it: wait our turn\n"
        "print('held', flush=True)\n"
        "sys.stdin.readline()\n"
    )
    install = f". {STEPS}; apt_get install -y -qq --no-upgrade --no-install-recommends bash"
    env = {**os.environ, "NANOBOT_APT_LOCK_TIMEOUT": "120"}
    with subprocess.Popen(
        [sys.executable, "-c", hold], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as holder:
        assert holder.stdin is not None and holder.stdout is not None
        try:
            assert holder.stdout.readline().strip() == "held"
            with subprocess.Popen(
                ["bash", "-c", install],
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                env=env,
            ) as waiting:
                assert waiting.stdout is not None
                said = waiting.stdout.readline()
                assert waiting.poll() is None, "apt waits while the lock is held"
                holder.stdin.close()  # the other package manager finishes
                rest = waiting.stdout.read()
                code = waiting.wait(timeout=120)
        finally:
            if not holder.stdin.closed:
                holder.stdin.close()
    assert said.startswith("    Another package manager is running (process "), said
    assert f"{holder.pid} (python" in said and "waiting for it to finish, up to 2 min" in said
    assert code == 0 and "Could not get lock" not in rest, rest
