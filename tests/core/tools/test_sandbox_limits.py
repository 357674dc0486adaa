"""The sandbox's resource limits against real fork bombs, memory hogs and huge files.

Each attack runs through ``exec`` in the real bubblewrap sandbox with small limits (set in
``desktop.json``, as Settings does), and must end with a result that names the limit, leave no
process and no cgroup behind, and keep the app's event loop responsive meanwhile.

A real fork bomb is only let loose where a hard cap holds it (a cgroup, or ``RLIMIT_NPROC``
for an ordinary user): the machine is shared. The watch alone (root without cgroups) is
tested with a forker that stops by itself.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from desktop.core.config.sandbox_settings import SandboxPlaces
from desktop.core.config.schema import ExecToolConfig
from desktop.core.security.cgroup import PREFIX, cgroup_bases, reset_cgroup_bases
from desktop.core.security.sandbox import build_argv
from desktop.core.tools.base import ToolContext, ToolResult
from desktop.core.tools.shell import ExecTool
from tests.core.tools.exec_output import unframe
from tests.core.tools.sandbox_support import PY, kill_all, pids_with, require_sandbox, scene_root
from tests.waiting import until

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux sandbox")

LIMITS = {"processes": 64, "memoryMb": 256, "fileSizeMb": 64, "tmpSizeMb": 32, "cpuSeconds": 20}
LAG_LIMIT = 1.0  # seconds: the longest the event loop may go without running a task


@dataclass
class LoopLag:
    """Ticks on the event loop while something runs; the longest gap between two ticks."""

    step: float = 0.01
    ticks: int = 0
    worst: float = 0.0
    _task: asyncio.Task[None] | None = field(default=None, repr=False)

    async def _run(self) -> None:
        last = time.monotonic()
        while True:
            await asyncio.sleep(self.step)
            now = time.monotonic()
            self.worst = max(self.worst, now - last - self.step)
            self.ticks += 1
            last = now

    def __enter__(self) -> LoopLag:
        self._task = asyncio.get_running_loop().create_task(self._run())
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()

    async def stopped(self) -> None:
        assert self._task is not None
        await asyncio.gather(self._task, return_exceptions=True)

    def responsive(self) -> bool:
        """The loop kept running tasks all along (no gap of ``LAG_LIMIT`` or more)."""
        return self.ticks > 0 and self.worst < LAG_LIMIT


@dataclass
class Box:
    """A workspace and a config folder whose ``desktop.json`` sets the limits."""

    workspace: Path
    config_dir: Path

    def tool(self, **limits: Any) -> ExecTool:
        prefs = {"sandbox": {"limits": {**LIMITS, **limits}}}
        (self.config_dir / "desktop.json").write_text(json.dumps(prefs))
        return ExecTool(ExecToolConfig(sandbox="bwrap"), places=SandboxPlaces(self.config_dir))

    async def run(
        self, command: str, timeout: int = 60, **limits: Any
    ) -> tuple[ToolResult, LoopLag]:
        with LoopLag() as lag:
            result = await self.tool(**limits).execute(
                ToolContext(workspace=self.workspace), command=command, timeout=timeout
            )
        await lag.stopped()
        return result, lag


@pytest.fixture
def box(monkeypatch: pytest.MonkeyPatch) -> Iterator[Box]:
    with scene_root() as root:
        workspace, config_dir, home = root / "ws", root / "cfg", root / "home"
        for folder in (workspace, config_dir, home):
            folder.mkdir()
        monkeypatch.setenv("HOME", str(home))
        yield Box(workspace.resolve(), config_dir)


@pytest.fixture
def no_cgroups() -> Iterator[None]:
    """This process cannot make cgroups (an ordinary user without delegation)."""
    reset_cgroup_bases([])
    yield
    reset_cgroup_bases(None)


def _hard_process_cap() -> None:
    """Skip (or fail in CI) where nothing but the watch would hold a real fork bomb."""
    status = require_sandbox()
    if cgroup_bases() or (os.geteuid() != 0 and status.prlimit is not None):
        return
    message = "root without a usable cgroup: a real fork bomb would only meet the watch"
    if os.environ.get("NANOBOT_TEST_REQUIRE_SANDBOX"):
        pytest.fail(message)
    pytest.skip(message)


def _no_cgroups_left() -> bool:
    return not [
        entry
        for base in cgroup_bases()
        for entry in Path(base).iterdir()
        if entry.name.startswith(f"{PREFIX}{os.getpid()}-")
    ]


# Run from files (named after the test's token, so every copy of a bomb carries it): the
# safety rules refuse the well-known ones typed in, which is not the point here.
FORK_BOMBS = {
    # The classic bomb's first shell returns at once, and the sandbox's PID namespace ends
    # with it: whether 64 processes came first was a race. The script waits, as a bomb that
    # means it would (the limit must end it, not the script).
    "shell": (".sh", ":(){ :|:& };:\nsleep 60\n", "bash"),
    "python": (
        ".py",
        "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
        PY,
    ),
    "perl": (".pl", "fork while 1;\n", "perl"),
}


@pytest.mark.parametrize("kind", list(FORK_BOMBS))
async def test_a_fork_bomb_ends_at_the_process_limit(box: Box, kind: str) -> None:
    """The bomb stops with a result naming the limit; the loop stayed responsive; nothing
    of it is left running, and its cgroup is gone."""
    _hard_process_cap()
    if kind == "perl" and shutil.which("perl") is None:
        pytest.skip("perl is not installed")
    token = f"BOMB{secrets.token_hex(4)}"
    suffix, script, program = FORK_BOMBS[kind]
    (box.workspace / f"{token}{suffix}").write_text(script)
    try:
        result, lag = await box.run(f"{program} {token}{suffix}")
        assert result.is_error, result.text
        assert "the command reached the sandbox's limit of 64 processes" in result.text
        assert lag.responsive(), f"the event loop stalled for {lag.worst:.2f} s"
        await until(lambda: not pids_with(token), timeout=10, what="no bomb process left")
        assert _no_cgroups_left()
    finally:
        kill_all(token)


async def test_the_watch_alone_stops_a_forker_as_root(box: Box, no_cgroups: None) -> None:
    """Without a cgroup (and as root, where RLIMIT_NPROC does not bind) the watch counts the
    sandbox's processes and ends the command at the limit. (A forker that stops by itself
    at 300 processes: safe on a shared machine even if the watch failed.)"""
    require_sandbox()
    token = f"FORKER{secrets.token_hex(4)}"
    command = f": {token}; for i in $(seq 300); do sleep 60 & done; wait"
    try:
        result, lag = await box.run(command)
        assert result.is_error and "reached the sandbox's limit of 64 processes" in result.text
        assert lag.responsive(), f"the event loop stalled for {lag.worst:.2f} s"
    finally:
        kill_all(token)


@pytest.mark.parametrize("cgroups", [True, False], ids=["cgroup", "watch"])
async def test_memory_of_all_processes_together_is_limited(
    box: Box, cgroups: bool, request: pytest.FixtureRequest
) -> None:
    """Four processes of 120 MiB each (under the per-process limit, over the 256 MiB for the
    command): stopped, with the memory limit named."""
    require_sandbox()
    if not cgroups:
        request.getfixturevalue("no_cgroups")
    elif not cgroup_bases():
        pytest.skip("no cgroup can be made here")
    hog = f"{PY} -c 'import time; x = b\"x\" * (120 << 20); time.sleep(60)'"
    result, lag = await box.run(f"for i in 1 2 3 4; do {hog} & done; wait")
    assert "memory limit of 256 MiB" in result.text, result.text
    assert lag.responsive()
    assert _no_cgroups_left()


async def test_one_memory_hog_fails_with_the_limit_named(box: Box) -> None:
    require_sandbox()
    hog = f"{PY} -c 'x = []\nwhile True:\n    x.append(b\"x\" * (16 << 20))'"
    result, lag = await box.run(hog)
    text = unframe(result.text)
    assert "MemoryError" in text and "memory" in text.rsplit("[exit code:", 1)[1], text
    assert "256 MiB" in text and lag.responsive()


async def test_a_2_gib_file_stops_at_the_file_size_limit(box: Box) -> None:
    require_sandbox()
    result, _lag = await box.run("head -c 2G /dev/zero > big.bin")
    text = unframe(result.text)
    assert "[sandbox: a file reached the size limit of 64 MiB" in text, text
    assert (box.workspace / "big.bin").stat().st_size == 64 << 20
    python = await box.tool().execute(
        ToolContext(workspace=box.workspace),
        command=f'{PY} -c \'open("py.bin", "wb").write(bytes(100 << 20))\'',
    )
    assert "File too large" in python.text and "size limit of 64 MiB" in python.text


async def test_tmp_has_a_size(box: Box) -> None:
    require_sandbox()
    result, _lag = await box.run("head -c 40M /dev/zero > /tmp/fill; df -m /tmp | tail -1")
    text = unframe(result.text)
    assert "No space left on device" in text and " 32 " in text, text


async def test_cpu_time_is_limited(box: Box) -> None:
    require_sandbox()
    result, _lag = await box.run(f"{PY} -c 'while True: pass'", cpuSeconds=1)
    assert "[sandbox: a process used its CPU time limit of 1 s]" in result.text, result.text


def test_rlimit_nproc_counts_only_the_sandbox_for_an_ordinary_user(tmp_path: Path) -> None:
    """As an ordinary user bubblewrap gives the command a user namespace of its own, and the
    kernel counts RLIMIT_NPROC per user namespace: 25 processes of the same user outside do
    not count against a sandbox limited to 20, and 30 inside are refused."""
    status = require_sandbox()
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None or status.prlimit is None:
        pytest.skip("needs root (to become nobody) and setpriv/prlimit")
    from desktop.core.security.limits import Limits

    folder = Path("/var/tmp") / f"nanobot-nproc-{secrets.token_hex(4)}"
    folder.mkdir()
    os.chown(folder, 65534, 65534)
    nobody = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
    outside = [
        subprocess.Popen([*nobody, "sleep", "60"], stdout=subprocess.DEVNULL) for _ in range(25)
    ]
    try:

        def inside(count: int) -> str:
            # The sleepers live far longer than the loop takes to start them all; the command
            # does not wait for them: they end with the sandbox's PID namespace when it ends.
            argv = build_argv(
                f"for i in $(seq {count}); do sleep 5 & done; echo DONE",
                executable=str(status.executable),
                workspace=folder,
                cwd=folder,
                limits=Limits(processes=20),
                prlimit=status.prlimit,
            )
            done = subprocess.run(
                [*nobody, *argv], check=False, capture_output=True, text=True, timeout=60
            )
            return done.stdout + done.stderr

        assert inside(10).strip().endswith("DONE")
        assert "fork" in inside(30).lower()
    finally:
        for proc in outside:
            proc.kill()
            proc.wait()
        shutil.rmtree(folder, ignore_errors=True)


def test_the_watch_counts_only_the_sandboxs_own_proc() -> None:
    """While bwrap sets up, its child is in the new PID namespace but still sees the host's
    /proc: that view must not be counted (it would stop every command at once)."""
    from desktop.core.security.limits import Limits, sample_namespace

    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("needs root and unshare")
    child = subprocess.Popen(["unshare", "--pid", "--fork", "--kill-child", "sleep", "30"])
    try:
        init = None
        for _ in range(200):
            children = Path(f"/proc/{child.pid}/task/{child.pid}/children").read_text().split()
            if children:
                init = int(children[0])
                break
            time.sleep(0.01)  # the test: unshare forks its child right away
        assert init is not None
        assert len(os.listdir("/proc")) > 16  # the host view would breach this limit
        assert sample_namespace(init, Limits(processes=16)) is None
    finally:
        child.kill()
        child.wait()


async def test_a_failing_watch_does_not_fail_the_command(
    box: Box, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A bug in the watch is logged; the command runs to its end as it would without it."""
    require_sandbox()
    from desktop.core.tools import shell

    async def broken(*_args: object, **_kwargs: object) -> str:
        raise ValueError("broken watch")

    monkeypatch.setattr(shell, "watch", broken)
    result, _lag = await box.run("sleep 0.2; echo finished")
    assert unframe(result.text) == "finished\n[exit code: 0]"
    assert "the sandbox's watch failed" in caplog.text
