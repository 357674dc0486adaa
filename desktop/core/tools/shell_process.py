"""The processes behind ``exec``: start, read, and kill a command's whole process group.

The command runs in its own session (process group) with merged stdout/stderr and no stdin
(an exec session's command gets a pipe for its input). :class:`Launch` says how to start it.
Its output is read with bounded memory (:class:`Output` keeps the head and the tail);
:func:`kill_process_group` ends the group (SIGTERM, a grace, SIGKILL). Unsandboxed on Linux,
the shell gets a parent-death signal (``setpriv --pdeathsig``) and then kills its own group,
so commands die with the app even on ``kill -9``.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import logging
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from desktop.core.security.cgroup import Cgroup
    from desktop.core.security.limits import Limits

log = logging.getLogger(__name__)

MAX_OUTPUT = 10_000
KILL_GRACE = 2.0  # seconds between SIGTERM and SIGKILL
DRAIN_AFTER_EXIT = 1.0  # seconds to keep reading after the shell exits (background children)
SHELL = "/bin/sh"
# Unsandboxed on Linux: ``setpriv`` gives this shell a parent-death signal (SIGHUP), and the
# shell answers it by killing its whole process group. ``$2`` is the app's PID: if the app
# died before the signal was armed, the shell has been re-parented and stops at once.
# The command's standard input goes to it through descriptor 3: a background job of a
# non-interactive shell reads /dev/null otherwise, and dash ignores a plain ``<&0``.
_GUARD = (
    '[ "$PPID" = "$2" ] || exit 125; trap "kill -KILL 0" HUP; exec 3<&0; '
    + SHELL
    + ' -c "$1" <&3 3<&- & wait $!'
)
# An exec session's command reads the app's pipe, so the app's death can end it (end of
# file) before the parent-death signal reaches the guard, which then exits unarmed: when
# the command ends, the guard ends what it left behind (the sandbox does the same), and
# keeps the command's exit status.
_SESSION_GUARD = _GUARD + '; s=$?; trap "" TERM; kill -TERM 0; exit $s'


class Output:
    """Collects decoded output, keeping the head and the tail of long streams (bounded memory)."""

    def __init__(self, limit: int = MAX_OUTPUT) -> None:
        self.limit = limit
        self.half = limit // 2
        self.head = ""  # the first ``limit`` characters
        self.tail = ""  # the last ``limit // 2`` characters
        self.total = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def feed(self, data: bytes, final: bool = False) -> None:
        """Add a chunk of raw output."""
        self.add(self._decoder.decode(data, final))

    def add(self, text: str) -> None:
        """Add decoded output."""
        self.total += len(text)
        if len(self.head) < self.limit:
            self.head += text[: self.limit - len(self.head)]
        self.tail = (self.tail + text)[-self.half :]

    def render(self) -> str:
        """The output, with the middle replaced by a note when it was too long."""
        if self.total <= self.limit:
            return self.head
        cut = self.total - self.half - len(self.tail)
        return (
            f"{self.head[: self.half]}\n\n... [{cut:,} of {self.total:,} characters truncated]"
            f" ...\n\n{self.tail}"
        )


class Launch:
    """How to start one command: argv, descriptors to hand over, a warning for the result,
    and for a sandboxed one its limits and cgroup.

    Attributes:
        argv: The command line (the sandbox's, or the plain shell's).
        pass_fds: Descriptors the child inherits (the seccomp filter); the caller closes them.
        notice: A one-time warning for the result (commands run without the sandbox).
        limits: The resource limits of a sandboxed command (``None``: unsandboxed).
        cgroup: Its cgroup, once made (:meth:`Cgroup.wrap` has then wrapped ``argv``).
    """

    __slots__ = ("argv", "cgroup", "limits", "notice", "pass_fds")

    def __init__(
        self,
        argv: list[str],
        pass_fds: tuple[int, ...] = (),
        notice: str | None = None,
        *,
        limits: Limits | None = None,
        cgroup: Cgroup | None = None,
    ) -> None:
        self.argv = argv
        self.pass_fds = pass_fds
        self.notice = notice
        self.limits = limits
        self.cgroup = cgroup

    def close_fds(self) -> None:
        """Close the descriptors handed to the child (once it has started, or will not)."""
        fds, self.pass_fds = self.pass_fds, ()
        for fd in fds:
            os.close(fd)


def _killpg(pid: int, sig: int) -> None:
    """Signal the process group led by ``pid`` (POSIX), ignoring a group that is gone."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


def _taskkill(pid: int) -> None:  # pragma: no cover - Windows only
    """Kill the process tree of ``pid`` on Windows."""
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        subprocess.run(
            ["taskkill", "/T", "/F", "/PID", str(pid)], capture_output=True, timeout=10, check=False
        )


async def kill_process_group(proc: asyncio.subprocess.Process, grace: float | None = None) -> None:
    """SIGTERM the whole group, wait up to ``grace`` seconds, then SIGKILL what is left.

    ``grace`` defaults to :data:`KILL_GRACE`, read at the call (a test may shorten it).

    On Windows the process tree is killed with ``taskkill /T /F`` (in a thread).
    """
    if os.name == "nt":  # pragma: no cover - Windows only
        await asyncio.to_thread(_taskkill, proc.pid)
    else:
        _killpg(proc.pid, signal.SIGTERM)
    try:
        async with asyncio.timeout(KILL_GRACE if grace is None else grace):
            await proc.wait()
    except TimeoutError:
        pass
    finally:  # also when cancelled meanwhile: the group is killed, the cancel goes on
        # The leader may be gone while children that trapped SIGTERM live on: kill the group.
        if os.name != "nt":
            _killpg(proc.pid, signal.SIGKILL)
        if proc.returncode is not None:
            close_pipes(proc)  # a child that left the group may still hold the pipe


async def collect(proc: asyncio.subprocess.Process, output: Output) -> None:
    """Read output until EOF; once the shell exits, only for ``DRAIN_AFTER_EXIT`` more.

    Unsandboxed, background children (``server &``) may keep the pipe open long after
    the shell is gone; they are left running, the pipe is closed, and the call returns
    with what they printed so far. In the sandbox they end with the command (its PID
    namespace goes away), so the pipe closes at once.
    """
    assert proc.stdout is not None
    loop = asyncio.get_running_loop()
    waiter = asyncio.ensure_future(_exited(proc))
    read: asyncio.Future[bytes] | None = None
    deadline: float | None = None
    eof = False
    try:
        while True:
            read = asyncio.ensure_future(proc.stdout.read(65_536))
            if deadline is None:
                await asyncio.wait({read, waiter}, return_when=asyncio.FIRST_COMPLETED)
                if waiter.done():
                    deadline = loop.time() + DRAIN_AFTER_EXIT
            if not read.done():
                assert deadline is not None
                try:
                    async with asyncio.timeout_at(deadline):
                        await read
                except TimeoutError:
                    break
            chunk = read.result()
            if not chunk:
                eof = True
                break
            output.feed(chunk)
        output.feed(b"", final=True)
        if eof:  # Process.wait() also waits for the pipe, so only once it is closed
            await proc.wait()
        else:
            await waiter
            close_pipes(proc)
    finally:
        # A timeout or a cancel from outside lands in asyncio.wait, which leaves both
        # futures running: end them here, so no read outlives the call.
        left = [f for f in (read, waiter) if f is not None and not f.done()]
        for future in left:
            future.cancel()
        if left:
            await asyncio.wait(left)


def plain_argv(command: str, *, session: bool = False) -> list[str]:
    """Unsandboxed: the shell, under the parent-death guard on Linux (see ``_GUARD``; an exec
    ``session``'s guard also ends what the command leaves running when it ends)."""
    if os.name == "nt":  # pragma: no cover - Windows only
        return [command]
    setpriv = _setpriv()
    if setpriv is None:  # not Linux, or util-linux without setpriv: the old behaviour
        return [SHELL, "-c", command]
    guard = _SESSION_GUARD if session else _GUARD
    return [setpriv, "--pdeathsig", "HUP", SHELL, "-c", guard, "exec", command, str(os.getpid())]


_setpriv_path: list[str | None] = []


def _setpriv() -> str | None:
    """``setpriv`` (util-linux) on Linux, looked up once."""
    if not _setpriv_path:
        found = shutil.which("setpriv") if sys.platform.startswith("linux") else None
        if sys.platform.startswith("linux") and found is None:
            log.warning("setpriv not found: unsandboxed commands will outlive a killed app")
        _setpriv_path.append(found)
    return _setpriv_path[0]


async def spawn(
    argv: list[str],
    pass_fds: tuple[int, ...],
    cwd: Path,
    env: dict[str, str],
    *,
    stdin: bool = False,
) -> asyncio.subprocess.Process:
    """Start the command in its own process group (session) with merged output.

    ``stdin``: give it a pipe to write its input to (exec sessions); else it reads nothing.
    """
    common: dict[str, Any] = {
        "stdin": asyncio.subprocess.PIPE if stdin else asyncio.subprocess.DEVNULL,
        "stdout": asyncio.subprocess.PIPE,
        "stderr": asyncio.subprocess.STDOUT,
        "cwd": str(cwd),
        "env": env,
    }
    if sys.platform == "win32":  # pragma: no cover - Windows only
        return await asyncio.create_subprocess_shell(
            argv[0], creationflags=subprocess.CREATE_NEW_PROCESS_GROUP, **common
        )
    return await asyncio.create_subprocess_exec(
        *argv, start_new_session=True, pass_fds=pass_fds, **common
    )


def close_pipes(proc: asyncio.subprocess.Process) -> None:
    """Stop reading a pipe that background children still hold open.

    asyncio has no public way to close a subprocess's pipes; without this the transport lives
    on until every child exits. Children that write afterwards get EPIPE (SIGPIPE): background
    jobs should redirect their output to a file.
    """
    transport = getattr(proc, "_transport", None)
    if transport is not None:
        transport.close()


async def _exited(proc: asyncio.subprocess.Process, poll: float = 0.05) -> None:
    """Return once the shell itself has exited, even if children still hold its pipes."""
    # proc.wait() also waits for the pipes, which a background child may hold open; the
    # return code is set with no event to await, so it is polled.
    while proc.returncode is None:  # noqa: ASYNC110
        await asyncio.sleep(poll)


__all__ = [
    "DRAIN_AFTER_EXIT",
    "KILL_GRACE",
    "MAX_OUTPUT",
    "Launch",
    "Output",
    "close_pipes",
    "collect",
    "kill_process_group",
    "plain_argv",
    "spawn",
]
