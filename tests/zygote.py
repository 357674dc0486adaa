"""Child processes forked from a pre-imported server instead of started from nothing.

A test that needs a *real separate process* (one it kills with SIGKILL in the middle of a
write, one that must die for real) used to start ``python -m ...`` each time, and every such
interpreter imported LiteLLM and the agent again: about 4-5 s of CPU per child, a few hundred
children per run. :func:`run` forks the child from Python's multiprocessing *forkserver*
instead, with LiteLLM and the core modules imported once (``set_forkserver_preload``):

- the child is still its own process with its own pid, memory and file descriptors; a
  SIGKILL kills it for real (``returncode == -9``, as ``subprocess`` reports it) and whatever
  it had not written is lost exactly as before;
- it gets the caller's environment and working directory (the forkserver was started once,
  from whichever test came first), and its standard output and error go to files the caller
  reads back, so the result looks like :func:`subprocess.run`'s.

What it does not prove: anything about starting an interpreter (imports, the console script,
exit codes of ``main``, ``-X importtime``); tests of those keep real subprocesses.
"""

from __future__ import annotations

import atexit
import importlib
import logging
import multiprocessing
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from multiprocessing import forkserver, reduction
from multiprocessing.context import ForkServerContext
from pathlib import Path
from typing import IO, Any

# Imported once in the forkserver; each child starts with them loaded. The core's heavy
# imports (LiteLLM ~2.5 s, the pydantic config models, the agent loop) and the test children.
PRELOAD = [
    "litellm",
    # What LiteLLM's first OpenAI-compatible call imports lazily (the openai client's
    # resources, httpx's transports).
    "openai.resources",
    "httpcore",
    "h2.connection",
    "anyio._backends._asyncio",
    "desktop.core.config.schema",
    "desktop.core.providers.litellm_provider",
    "desktop.core.agent.loop",
    "desktop.core.session.manager",
    # The command line (``tests.cli_runner.fork_cli``) and what its commands start.
    "desktop.core.assembly",
    "desktop.cli",
    "desktop.cli.chat",
    "desktop.cli.chat_local",
    "tests.core.agent.crash_child",
]

_CONTEXT: list[ForkServerContext] = []
_STARTING = threading.Lock()  # two threads' first children start one server
_COST_MAP = "LITELLM_LOCAL_MODEL_COST_MAP"
REPO = Path(__file__).resolve().parent.parent


def _context() -> ForkServerContext:
    """The forkserver context, with the server started (once) on this checkout's code.

    The server imports :data:`PRELOAD` from its own ``sys.path`` (Python 3.11 ignores the
    parent's there) and skips a module that fails to import, so it is started with this
    checkout first on ``PYTHONPATH``, whatever folder pytest runs in.
    """
    with _STARTING:
        return _started()


def _started() -> ForkServerContext:
    if not _CONTEXT:
        context = multiprocessing.get_context("forkserver")
        assert isinstance(context, ForkServerContext)
        context.set_forkserver_preload(PRELOAD)
        saved = {name: os.environ.get(name) for name in ("PYTHONPATH", _COST_MAP)}
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), saved["PYTHONPATH"]]))
        os.environ[_COST_MAP] = "True"  # LiteLLM reads it at import: no network
        try:
            forkserver.ensure_running()
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
        _CONTEXT.append(context)
    return _CONTEXT[0]


def _child_main(
    target: str,
    argv: list[str],
    env: dict[str, str],
    cwd: str,
    folder: str,
    stdin: bool,
) -> None:
    """In the forked child of :func:`run`: standard input from ``folder/stdin`` (when
    given), output to files in ``folder``; then :func:`_run_target`."""
    for fd, name in ((1, "stdout"), (2, "stderr")):
        handle = os.open(os.path.join(folder, name), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(handle, fd)
        os.close(handle)
    if stdin:  # multiprocessing gave the child /dev/null
        handle = os.open(os.path.join(folder, "stdin"), os.O_RDONLY)
        os.dup2(handle, 0)
        os.close(handle)
        sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115 - the process's
    _run_target(target, argv, env, cwd, folder)


def _piped_child_main(
    target: str, argv: list[str], env: dict[str, str], cwd: str, folder: str, out: int, err: int
) -> None:
    """In the forked child of :func:`start`: output and error to the caller's pipes."""
    for fd, pipe in ((1, out), (2, err)):
        os.dup2(pipe, fd)
        os.close(pipe)
    _run_target(target, argv, env, cwd, folder)


def _run_target(target: str, argv: list[str], env: dict[str, str], cwd: str, folder: str) -> None:
    """The caller's environment, folder and argv; Ctrl-C as a fresh interpreter takes it; at
    the end, what an interpreter's exit does (``atexit`` handlers, logging shut down, streams
    flushed) and this process's CPU seconds written to ``folder/cpu``."""
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    atexit.register(_note_cpu, folder)  # also when the target ends the process itself
    module_name, _, function = target.partition(":")
    sys.argv = [module_name, *argv]
    try:
        code = getattr(importlib.import_module(module_name), function or "main")(argv)
    finally:
        atexit._run_exitfuncs()
        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
    sys.exit(code or 0)


def _note_cpu(folder: str) -> None:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    Path(folder, "cpu").write_text(f"{usage.ru_utime + usage.ru_stime:.4f}")


def run(
    target: str,
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | Path | None = None,
    stdin: str | None = None,
    timeout: float = 120.0,
) -> subprocess.CompletedProcess[str]:
    """Run ``module:function(argv)`` in a process forked from the pre-imported server.

    Args:
        target: ``"package.module:function"``; the function takes the argument list and
            returns an exit code (or ``None`` for 0).
        argv: Its arguments.
        env: The child's whole environment (default: this process's, as ``subprocess``).
        cwd: Its working directory (default: this process's).
        stdin: Its standard input (a file with this text; ``None``: ``/dev/null``).
        timeout: Seconds before the child is killed and :class:`subprocess.TimeoutExpired`
            raised.

    Returns:
        What :func:`subprocess.run` returns: ``returncode`` (negative: the signal that ended
        it, ``-9`` for SIGKILL), ``stdout`` and ``stderr`` as text.
    """
    sys.audit("tests.zygote.run", target)  # counted by the cost table (tests/costs.py)
    with tempfile.TemporaryDirectory(prefix="zygote-") as folder:
        if stdin is not None:
            Path(folder, "stdin").write_text(stdin, encoding="utf-8")
        process = _context().Process(
            target=_child_main,
            args=(
                target,
                list(argv),
                dict(os.environ if env is None else env),
                str(cwd or os.getcwd()),
                folder,
                stdin is not None,
            ),
            daemon=False,
        )
        process.start()
        process.join(timeout)
        if process.exitcode is None:
            process.kill()
            process.join()
            process.close()
            raise subprocess.TimeoutExpired([target, *argv], timeout)
        code = process.exitcode
        process.close()
        out, err, cpu = (Path(folder, name) for name in ("stdout", "stderr", "cpu"))
        stdout = out.read_text(errors="replace") if out.exists() else ""
        stderr = err.read_text(errors="replace") if err.exists() else ""
        if cpu.exists():  # not after a SIGKILL
            sys.audit("tests.zygote.cpu", float(cpu.read_text()))
    return subprocess.CompletedProcess([target, *argv], code, stdout, stderr)


class _Inherited:
    """A file descriptor sent to the forkserver with the request (as multiprocessing sends a
    socket): the child gets its own copy, as a subprocess inherits a pipe."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __reduce__(self) -> tuple[Any, tuple[Any]]:
        return (_detach, (reduction.DupFd(self.fd),))


def _detach(duplicate: Any) -> int:
    return int(duplicate.detach())


class Forked:
    """A running child of :func:`start`, used as a :class:`subprocess.Popen` (text mode)."""

    def __init__(self, args: list[str], process: Any, folder: str, out: int, err: int) -> None:
        self.args = args
        self._process = process
        self._folder = folder
        self.pid: int = process.pid
        self.returncode: int | None = None
        self.stdout: IO[str] = open(out, encoding="utf-8", errors="replace")  # noqa: SIM115
        self.stderr: IO[str] = open(err, encoding="utf-8", errors="replace")  # noqa: SIM115

    def poll(self) -> int | None:
        """The exit code once the child ended (negative: the signal), else ``None``."""
        if self.returncode is None and self._process.exitcode is not None:
            self._finish()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the end; :class:`subprocess.TimeoutExpired` past ``timeout``."""
        if self.returncode is None:
            self._process.join(timeout)
            if self._process.exitcode is None:
                raise subprocess.TimeoutExpired(self.args, timeout or 0)
            self._finish()
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, sig: int) -> None:
        """Send ``sig`` to the child (nothing once it has ended)."""
        if self.poll() is None:
            os.kill(self.pid, sig)

    def kill(self) -> None:
        """SIGKILL."""
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        """SIGTERM."""
        self.send_signal(signal.SIGTERM)

    def communicate(self, timeout: float | None = None) -> tuple[str, str]:
        """The rest of its output and error, once it has ended."""
        texts: dict[str, str] = {}
        readers = [
            threading.Thread(target=lambda n=n, s=s: texts.__setitem__(n, s.read()))
            for n, s in (("out", self.stdout), ("err", self.stderr))
        ]
        for reader in readers:
            reader.start()
        for reader in readers:
            reader.join(timeout)
            if reader.is_alive():
                raise subprocess.TimeoutExpired(self.args, timeout or 0)
        self.stdout.close()  # as Popen.communicate closes its pipes
        self.stderr.close()
        self.wait(timeout)
        return texts["out"], texts["err"]

    def _finish(self) -> None:
        self.returncode = self._process.exitcode
        self._process.close()
        cpu = Path(self._folder, "cpu")
        if cpu.exists():
            sys.audit("tests.zygote.cpu", float(cpu.read_text()))
        shutil.rmtree(self._folder, ignore_errors=True)

    def __enter__(self) -> Forked:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.poll() is None:
            self.kill()
        self.wait()
        self.stdout.close()
        self.stderr.close()


def start(
    target: str,
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | Path | None = None,
) -> Forked:
    """Start ``module:function(argv)`` forked from the pre-imported server, with its standard
    output and error as pipes to read while it runs (a long-running command: a server).

    Args:
        target: ``"package.module:function"`` (as :func:`run`).
        argv: Its arguments.
        env: Its whole environment (default: this process's).
        cwd: Its working directory (default: this process's).

    Returns:
        The running child, used like :class:`subprocess.Popen` with ``text=True``.
    """
    sys.audit("tests.zygote.run", target)  # counted by the cost table (tests/costs.py)
    folder = tempfile.mkdtemp(prefix="zygote-")
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    try:
        process = _context().Process(
            target=_piped_child_main,
            args=(
                target,
                list(argv),
                dict(os.environ if env is None else env),
                str(cwd or os.getcwd()),
                folder,
                _Inherited(out_w),
                _Inherited(err_w),
            ),
            daemon=False,
        )
        process.start()
    except BaseException:
        for fd in (out_r, err_r):
            os.close(fd)
        shutil.rmtree(folder, ignore_errors=True)
        raise
    finally:
        for fd in (out_w, err_w):  # the child has its own copies
            os.close(fd)
    return Forked([target, *argv], process, folder, out_r, err_r)
