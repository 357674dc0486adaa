"""Resource limits of a sandboxed command, and the watch that ends it at a limit.

Three layers, each working where the one before cannot:

1. **rlimits** set inside the sandbox by ``prlimit`` (util-linux) just before the shell:
   ``RLIMIT_FSIZE`` (largest file), ``RLIMIT_CPU`` (CPU seconds per process),
   ``RLIMIT_DATA`` (memory a process may map for data: heap and private mappings, not the
   address-space reservations of V8 or Go, which ``RLIMIT_AS`` would break),
   ``RLIMIT_CORE`` 0, and ``RLIMIT_NPROC``. For an ordinary user bubblewrap runs the
   command in a user namespace of its own, and since Linux 5.14 the process count is kept
   per user namespace, so ``RLIMIT_NPROC`` caps this command's processes, not the
   person's. The kernel ignores it for root.
2. a **cgroup** (:mod:`desktop.core.security.cgroup`) where one can be made: a hard cap on
   processes and on the memory of all the command's processes together — the way root is
   held.
3. the **watch** (:func:`watch`): samples the command a few times a second (from the cgroup,
   else from the sandbox's own ``/proc``) and ends it when it reaches the process or memory
   limit, so that a fork bomb or a memory hog stops at once with a clear result instead of
   spinning until the timeout. As root without a cgroup it is the only process guard (the
   count may overshoot between two samples; the sandbox's private PID namespace still ends
   everything with the command).

The size of the private ``/tmp`` is a ``tmpfs`` size (``bwrap --size``, bubblewrap 0.8+).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from desktop.core.config.sandbox_settings import MIB, SandboxLimits
from desktop.core.security.cgroup import Cgroup

WATCH_INTERVAL = 0.05  # seconds between two samples of a running command
CPU_GRACE = 5  # seconds between SIGXCPU (soft CPU limit) and SIGKILL (hard)
SIGXCPU_EXIT = 128 + 24
SIGXFSZ_EXIT = 128 + 25
_FILE_SIZE_WORDS = ("File too large", "File size limit exceeded")
_MEMORY_WORDS = ("MemoryError", "Cannot allocate memory", "out of memory", "Out of memory")


@dataclass(frozen=True)
class Limits:
    """The limits of one command, in bytes and seconds.

    Attributes:
        processes: Processes at once (the watch ends the command when it gets there).
        memory: Memory of all its processes together (bytes).
        file_size: Largest file (bytes).
        tmp_size: Size of the private ``/tmp`` (bytes).
        cpu_seconds: CPU time of one process.
    """

    processes: int = 256
    memory: int = 2048 * MIB
    file_size: int = 1024 * MIB
    tmp_size: int = 512 * MIB
    cpu_seconds: int = 600

    @classmethod
    def from_prefs(cls, prefs: SandboxLimits) -> Limits:
        """The limits ``desktop.json`` sets."""
        return cls(
            processes=prefs.processes,
            memory=prefs.memory_mb * MIB,
            file_size=prefs.file_size_mb * MIB,
            tmp_size=prefs.tmp_size_mb * MIB,
            cpu_seconds=prefs.cpu_seconds,
        )

    def summary(self) -> str:
        """``256 processes, 2 GiB memory, 1 GiB files, 512 MiB /tmp, 600 s CPU``."""
        return (
            f"{self.processes} processes, {size(self.memory)} memory, {size(self.file_size)} "
            f"files, {size(self.tmp_size)} /tmp, {self.cpu_seconds} s CPU"
        )


def size(value: int) -> str:
    """``2 GiB``, ``512 MiB``, ``1.5 GiB``."""
    if value >= 1024 * MIB:
        return f"{value / (1024 * MIB):g} GiB"
    return f"{value / MIB:g} MiB"


def rlimit_argv(prlimit: str, limits: Limits) -> list[str]:
    """``prlimit`` options that set the command's rlimits (soft = hard, CPU with a grace)."""
    return [
        prlimit,
        f"--nproc={limits.processes}",
        f"--data={limits.memory}",
        f"--fsize={limits.file_size}",
        f"--cpu={limits.cpu_seconds}:{limits.cpu_seconds + CPU_GRACE}",
        "--core=0",
        "--",
    ]


def breach_text(kind: str, limits: Limits) -> str:
    """Why the sandbox stopped a command, for the model (and the person reading along)."""
    where = "(Settings → Tools & safety → Limits)"
    if kind == "processes":
        return (
            f"the command reached the sandbox's limit of {limits.processes} processes {where} "
            "— a fork bomb or runaway parallelism; everything it started has ended"
        )
    return (
        f"the command reached the sandbox's memory limit of {size(limits.memory)} for all its "
        f"processes together {where}; everything it started has ended"
    )


def exit_note(returncode: int | None, output: str, limits: Limits) -> str | None:
    """A line saying which rlimit ended a command that exited on its own, if one did."""
    if returncode == SIGXFSZ_EXIT or any(w in output for w in _FILE_SIZE_WORDS):
        return (
            f"[sandbox: a file reached the size limit of {size(limits.file_size)}; larger "
            "files cannot be written (Settings → Tools & safety → Limits)]"
        )
    if returncode == SIGXCPU_EXIT:
        return f"[sandbox: a process used its CPU time limit of {limits.cpu_seconds} s]"
    if returncode and any(word in output for word in _MEMORY_WORDS):
        return (
            f"[sandbox: memory is limited to {size(limits.memory)} per command; an "
            "allocation beyond it fails]"
        )
    return None


# -- the watch -------------------------------------------------------------------------------


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def _pid_ns(pid: int | str) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


def sandbox_init(bwrap_pid: int) -> int | None:
    """The host PID of the first process in the sandbox's own PID namespace."""
    own = _pid_ns("self")
    queue = _children(bwrap_pid)
    for _ in range(8):  # bwrap's monitor → (a user-namespace helper) → the namespace's init
        if not queue:
            return None
        pid = queue[0]
        ns = _pid_ns(pid)
        if ns is not None and ns != own:
            return pid
        queue = _children(pid)
    return None


def _rss_anon(status: str) -> int:
    for line in status.splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) * 1024
    return 0


def sample_namespace(init: int, limits: Limits) -> str | None:
    """Count the sandbox's processes (and their memory) through its own ``/proc``.

    Until bwrap has mounted that ``/proc`` (and while it sets up), ``/proc/<init>/root``
    still shows the host's: the view counts only once its PID 1 is the sandbox's init.
    """
    proc = Path(f"/proc/{init}/root/proc")
    own = _pid_ns(init)
    if own is None or _pid_ns(f"{init}/root/proc/1") != own:
        return None  # not (or no longer) the sandbox's own /proc
    try:
        pids = [e for e in os.listdir(proc) if e.isdigit()]
    except OSError:
        return None  # the command has ended (or is ending)
    if len(pids) >= limits.processes:
        return "processes"
    memory = 0
    for pid in pids:
        with contextlib.suppress(OSError, ValueError, IndexError):
            memory += _rss_anon((proc / pid / "status").read_text())
    return "memory" if memory >= limits.memory else None


def sample(bwrap_pid: int, limits: Limits, cgroup: Cgroup | None, init: list[int]) -> str | None:
    """One look at a running command: the limit it has reached, if any (blocking).

    ``init`` caches the sandbox's init PID between calls.
    """
    if cgroup is not None:
        hits = cgroup.hits()
        if hits:
            return "processes" if "processes" in hits else "memory"
        if cgroup.pids and len(cgroup.processes()) >= limits.processes:
            return "processes"
        if cgroup.pids and cgroup.memory:
            return None
    if not init:
        found = sandbox_init(bwrap_pid)
        if found is None:
            return None
        init.append(found)
    return sample_namespace(init[0], limits)


async def watch(
    bwrap_pid: int, limits: Limits, cgroup: Cgroup | None, interval: float = WATCH_INTERVAL
) -> str:
    """Sample the command until it reaches a limit; return which (``processes``/``memory``).

    Runs until cancelled when the command ends first. Each sample runs in a worker thread.
    """
    init: list[int] = []
    while True:
        hit = await asyncio.to_thread(sample, bwrap_pid, limits, cgroup, init)
        if hit is not None:
            return hit
        await asyncio.sleep(interval)


__all__ = [
    "Limits",
    "breach_text",
    "exit_note",
    "rlimit_argv",
    "sample",
    "sandbox_init",
    "size",
    "watch",
]
