"""A cgroup per sandboxed command: a hard cap on its processes and its memory.

``RLIMIT_NPROC`` does not bind root (the kernel exempts uid 0), and containers and CI run
as root; ``RLIMIT_DATA`` binds each process, not a command's processes together. The
kernel's ``pids`` and ``memory`` controllers bind both. Where this process may create
cgroups (root; a delegated subtree), each sandboxed command gets its own,
``nanobot-exec-<app pid>-<n>``, with ``pids.max`` and the memory limit; a two-line shell
wrapper joins it and then becomes ``bwrap``, so everything the command starts is inside.
Where no cgroup can be made (an ordinary user on a desktop without delegation, a read-only
``/sys/fs/cgroup``), :func:`open_cgroup` returns ``None`` and the rlimits and the watch in
:mod:`desktop.core.security.limits` do the job alone.

cgroup v2 (unified): one folder, under this process's own cgroup when that one can have
children with controllers (the root cgroup), else under its parent. cgroup v1: a folder in
the ``pids`` hierarchy and one in the ``memory`` hierarchy, each under this process's cgroup
there. Folders left by an app that died are removed the next time a base is found.

Blocking (file system writes): call from a worker thread.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import re
import shlex
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

CGROUP_ROOT = Path("/sys/fs/cgroup")
PREFIX = "nanobot-exec-"
EMPTY_WAIT = 5.0  # seconds to wait for a killed command's processes to leave its cgroup
_STALE = re.compile(rf"^{re.escape(PREFIX)}(\d+)-\d+$")


@dataclass(frozen=True)
class _Base:
    """A folder new cgroups are made in, and which limits it carries."""

    folder: Path
    v2: bool
    pids: bool
    memory: bool


class Cgroup:
    """One command's cgroup (one folder on v2, up to two on v1).

    Args:
        folders: The cgroup folders (each gets the command's processes).
        v2: Unified hierarchy (else v1).
        pids: ``folders`` hold a ``pids`` limit.
        memory: ``folders`` hold a memory limit.
    """

    def __init__(self, folders: tuple[Path, ...], *, v2: bool, pids: bool, memory: bool) -> None:
        self.folders = folders
        self.v2 = v2
        self.pids = pids
        self.memory = memory

    def wrap(self, argv: list[str]) -> list[str]:
        """``argv`` run by a shell that first moves itself into every folder (then execs)."""
        joins = " && ".join(
            f"echo $$ > {shlex.quote(str(f / 'cgroup.procs'))}" for f in self.folders
        )
        return ["/bin/sh", "-c", f'{joins} || exit 126; exec "$@"', "nanobot-cgroup", *argv]

    def _read(self, name: str) -> str:
        for folder in self.folders:
            with contextlib.suppress(OSError):
                return (folder / name).read_text()
        return ""

    def hits(self) -> set[str]:
        """The limits reached so far: ``"processes"`` (a fork was refused), ``"memory"`` (the
        kernel killed a process for memory)."""
        found: set[str] = set()
        if self.pids and _counter(self._read("pids.events"), "max") > 0:
            found.add("processes")
        if self.memory:
            text = self._read("memory.events" if self.v2 else "memory.oom_control")
            if _counter(text, "oom_kill") > 0:
                found.add("memory")
        return found

    def processes(self) -> list[int]:
        """Host PIDs still in the cgroup."""
        pids: set[int] = set()
        for folder in self.folders:
            with contextlib.suppress(OSError, ValueError):
                pids.update(int(p) for p in (folder / "cgroup.procs").read_text().split())
        return sorted(pids)

    def close(self) -> None:
        """Wait for the processes to leave (killing stragglers), then remove the folders."""
        deadline = time.monotonic() + EMPTY_WAIT
        while self.processes() and time.monotonic() < deadline:
            time.sleep(0.02)
        for _ in range(3):
            left = self.processes()
            if not left:
                break
            _kill(left)
            time.sleep(0.05)
        for folder in self.folders:
            try:
                folder.rmdir()
            except OSError as exc:
                log.warning("could not remove the command's cgroup %s: %s", folder, exc)


def _counter(text: str, key: str) -> int:
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name == key and value.strip().isdigit():
            return int(value)
    return 0


def _kill(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def _own_paths() -> dict[str, str]:
    """This process's cgroup path per hierarchy (``"0"`` for v2, else controller names)."""
    paths: dict[str, str] = {}
    try:
        text = Path("/proc/self/cgroup").read_text()
    except OSError:
        return paths
    for line in text.splitlines():
        number, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if number == "0" and not controllers:
            paths["0"] = path
        for name in controllers.split(","):
            if name:
                paths[name] = path
    return paths


def _inside(path: str) -> Path:
    return Path(os.path.normpath(path.lstrip("/") or "."))


def _bases() -> list[_Base]:  # noqa: C901  # each candidate cgroup base tried in order
    """Where commands' cgroups can be made, tried with a real folder each."""
    own = _own_paths()
    candidates: list[_Base] = []
    if (CGROUP_ROOT / "cgroup.controllers").exists():
        mine = CGROUP_ROOT / _inside(own.get("0", "/"))
        for folder in dict.fromkeys([mine, mine.parent]):
            if not folder.is_relative_to(CGROUP_ROOT):
                continue
            try:
                enabled = (folder / "cgroup.subtree_control").read_text().split()
            except OSError:
                continue
            if "pids" in enabled:
                candidates.append(_Base(folder, True, True, "memory" in enabled))
                break
    else:
        for controller in ("pids", "memory"):
            hierarchy = CGROUP_ROOT / controller
            if controller in own and (hierarchy / "cgroup.procs").exists():
                folder = hierarchy / _inside(own[controller])
                candidates.append(
                    _Base(folder, False, controller == "pids", controller == "memory")
                )
    usable = []
    for base in candidates:
        _remove_stale(base.folder)
        probe = base.folder / f"{PREFIX}{os.getpid()}-probe"
        try:
            probe.mkdir()
        except OSError:
            continue
        try:
            needed = "pids.max" if base.pids else "memory.limit_in_bytes"
            if base.v2 and not base.pids:
                continue
            if (probe / needed).exists():
                usable.append(base)
        finally:
            with contextlib.suppress(OSError):
                probe.rmdir()
    return usable


def _remove_stale(folder: Path) -> None:
    """Remove command cgroups of apps that are gone (they died before cleaning up)."""
    try:
        entries = list(folder.iterdir())
    except OSError:
        return
    for entry in entries:
        match = _STALE.match(entry.name)
        if match is None or _alive(int(match.group(1))):
            continue
        stale = Cgroup((entry,), v2=False, pids=False, memory=False)
        _kill(stale.processes())
        with contextlib.suppress(OSError):
            entry.rmdir()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


_found: list[_Base] | None = None
_lock = threading.Lock()
_counter_ids = itertools.count(1)


def cgroup_bases() -> list[str]:
    """Where command cgroups are made here (empty: none can be; found once, cached)."""
    global _found
    with _lock:
        if _found is None:
            _found = _bases()
            if not _found:
                log.info("exec sandbox: no cgroup can be made here; rlimits and the watch apply")
        return [str(b.folder) for b in _found]


def open_cgroup(processes: int, memory: int) -> Cgroup | None:
    """A new cgroup capped at ``processes`` and ``memory`` bytes, or ``None`` (none here).

    Args:
        processes: ``pids.max``.
        memory: The memory limit in bytes (swap included where the kernel accounts it).
    """
    cgroup_bases()
    assert _found is not None
    if not _found:
        return None
    name = f"{PREFIX}{os.getpid()}-{next(_counter_ids)}"
    folders: list[Path] = []
    has_pids = has_memory = False
    try:
        for base in _found:
            folder = base.folder / name
            folder.mkdir()
            folders.append(folder)
            if base.pids:
                (folder / "pids.max").write_text(str(processes))
                has_pids = True
            if base.memory:
                _limit_memory(folder, memory, v2=base.v2)
                has_memory = True
    except OSError as exc:
        log.warning("could not set up the command's cgroup %s: %s", name, exc)
        for folder in folders:
            with contextlib.suppress(OSError):
                folder.rmdir()
        return None
    return Cgroup(tuple(folders), v2=_found[0].v2, pids=has_pids, memory=has_memory)


def _limit_memory(folder: Path, memory: int, *, v2: bool) -> None:
    if v2:
        (folder / "memory.max").write_text(str(memory))
        for name, value in (("memory.swap.max", "0"), ("memory.oom.group", "1")):
            with contextlib.suppress(OSError):
                (folder / name).write_text(value)
        return
    (folder / "memory.limit_in_bytes").write_text(str(memory))
    with contextlib.suppress(OSError):  # only with swap accounting (must follow the limit)
        (folder / "memory.memsw.limit_in_bytes").write_text(str(memory))


def reset_cgroup_bases(bases: list[str] | None = None) -> None:
    """Forget where cgroups are made (``[]``: pretend none can be); for tests."""
    global _found
    with _lock:
        _found = None if bases is None else []


__all__ = ["Cgroup", "cgroup_bases", "open_cgroup", "reset_cgroup_bases"]
