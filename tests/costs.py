"""A pytest plugin that records what each test costs: wall time, CPU, and the processes it starts.

Loaded by ``tests/conftest.py`` when ``NANOBOT_TEST_COSTS`` names a folder (it is off
otherwise). Each pytest process (each xdist worker too) writes one JSON file there when it
ends; ``scripts/test_costs.py`` reads them and prints the cost table.

Per test (set-up, call and teardown together; a module- or session-scoped fixture is billed to
the test that set it up):

- ``wall``: seconds from the start of set-up to the end of teardown;
- ``cpu``: CPU seconds of this process (``time.process_time``);
- ``child_cpu``: CPU seconds of child processes that ended and were waited for meanwhile
  (``RUSAGE_CHILDREN``; a long-lived server is billed when it is reaped);
- ``spawns`` / ``interpreters``: processes started (``subprocess``, ``asyncio``'s subprocesses,
  ``os.posix_spawn``, ``os.fork``, children forked by ``tests/zygote.py``), and how many of
  them start a Python interpreter (``python``, a console script with a Python shebang, or
  Python inside ``bwrap``/``env``). A zygote child is not an interpreter start; its CPU (it
  is the forkserver's child, not this process's) is added to ``child_cpu`` as the child
  reports it when it ends (not after a SIGKILL: those children are cheap).

Spawns are seen through audit hooks (PEP 578), so nothing in the product or the tests is
patched.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Any

import pytest

ENV = "NANOBOT_TEST_COSTS"

_PYTHON_SHEBANG: dict[str, bool] = {}


def _runs_python(path: str) -> bool:
    """Whether ``path`` is a Python interpreter or a script with a Python shebang."""
    name = os.path.basename(path)
    if name.startswith(("python", "pypy")):
        return True
    if path not in _PYTHON_SHEBANG:
        try:
            with open(path, "rb") as handle:
                head = handle.read(128)
        except OSError:
            head = b""
        _PYTHON_SHEBANG[path] = head.startswith(b"#!") and b"python" in head.split(b"\n")[0]
    return _PYTHON_SHEBANG[path]


def _is_python(argv: Sequence[str]) -> bool:
    """Python as the program, or as the program a wrapper (bwrap, env, timeout) runs."""
    for arg in argv[:40]:
        if not isinstance(arg, str) or arg.startswith("-"):
            continue
        if os.path.basename(arg).startswith(("python", "pypy")):
            return True
    return bool(argv) and isinstance(argv[0], str) and _runs_python(_which(argv[0]))


def _which(program: str) -> str:
    if os.sep in program:
        return program
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        candidate = os.path.join(folder, program)
        if os.access(candidate, os.X_OK):
            return candidate
    return program


class Costs:
    """The running test's counters and every finished test's record."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.records: list[dict[str, Any]] = []
        self.spawns: list[str] = []
        self.interpreters = 0
        self.zygote_cpu = 0.0
        self.active = False

    def audit(self, event: str, args: tuple[Any, ...]) -> None:
        """The audit hook: note processes started while a test runs."""
        if not self.active:
            return
        if event == "tests.zygote.cpu":  # a zygote child ended, after this many CPU seconds
            self.zygote_cpu += float(args[0])
            return
        argv: list[str]
        if event == "subprocess.Popen":
            executable, raw = args[0], args[1]
            parts = [raw] if isinstance(raw, (str, bytes)) else list(raw)
            argv = [a.decode() if isinstance(a, bytes) else str(a) for a in parts]
            if executable:
                argv = [os.fsdecode(executable), *argv[1:]]
        elif event == "os.posix_spawn":
            argv = [os.fsdecode(args[0]), *[str(a) for a in args[1][1:]]]
        elif event == "os.fork":
            argv = ["<fork>"]
        elif event == "tests.zygote.run":  # forked from the pre-imported server: no new Python
            argv = [f"<zygote {args[0]}>"]
        else:
            return
        self.spawns.append(os.path.basename(argv[0]) if argv else "?")
        if argv and not argv[0].startswith("<") and _is_python(argv):
            self.interpreters += 1

    def write(self, worker: str) -> None:
        """Write this process's records to ``<out>/costs-<worker>.json``."""
        self.out.mkdir(parents=True, exist_ok=True)
        path = self.out / f"costs-{worker}.json"
        path.write_text(json.dumps(self.records), encoding="utf-8")


_COSTS: list[Costs] = []


def pytest_configure(config: pytest.Config) -> None:
    """Start recording when ``NANOBOT_TEST_COSTS`` names a folder."""
    out = os.environ.get(ENV)
    if not out or _COSTS:
        return
    costs = Costs(Path(out))
    _COSTS.append(costs)
    sys.addaudithook(costs.audit)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, Any, Any]:
    """Measure one test from the start of its set-up to the end of its teardown."""
    if not _COSTS:
        return (yield)
    costs = _COSTS[0]
    costs.spawns, costs.interpreters, costs.zygote_cpu, costs.active = [], 0, 0.0, True
    wall, cpu, child = time.monotonic(), time.process_time(), _children_cpu()
    try:
        return (yield)
    finally:
        costs.active = False
        costs.records.append(
            {
                "nodeid": item.nodeid,
                "wall": round(time.monotonic() - wall, 4),
                "cpu": round(time.process_time() - cpu, 4),
                "child_cpu": round(_children_cpu() - child + costs.zygote_cpu, 4),
                "spawns": len(costs.spawns),
                "interpreters": costs.interpreters,
                "programs": sorted(set(costs.spawns)),
                "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
            }
        )


def pytest_unconfigure(config: pytest.Config) -> None:
    """Write the records of this process (one file per xdist worker)."""
    if _COSTS:
        _COSTS[0].write(os.environ.get("PYTEST_XDIST_WORKER", f"main-{os.getpid()}"))
