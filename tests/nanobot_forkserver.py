"""A forkserver for the real ``nanobot`` CLI, run by nanobot's own venv Python (stdlib only).

``tests/nanobot_zygote.py`` starts it as ``<nanobot-venv>/bin/python nanobot_forkserver.py
SOCKET`` and sends it one request per command on the Unix socket ``SOCKET``: a JSON header
(the command's argv, whole environment, working directory; or Python code to run as
``python -c``) with the command's standard input, output and error as three file descriptors
(``SCM_RIGHTS``). The server forks a child per request and answers with its pid, then, once
the child has ended, with its exit status (as ``subprocess`` reports it: negative for the
signal that ended it) and its CPU seconds (``wait4``).

The server imports nanobot's command line once (:data:`PRELOAD`); a child starts with it
loaded. What those modules compute at import does not depend on ``HOME``, the working
directory or the arguments (config and workspace paths are functions; rich's consoles and
loguru's sink hold ``sys.stdout``/``sys.stderr``, whose descriptors the child replaces; both
decide on colours from ``isatty``, false for the server's and a subprocess's pipes alike),
so the server is started with the environment of the commands except ``HOME``.

The child leaves the server's loop by returning from :func:`serve` to :func:`main`, which
runs the console entry point as the ``nanobot`` script does and ends as a fresh interpreter
would (``SystemExit`` codes, a traceback and exit code 1 for an exception, non-daemon threads
joined, ``atexit`` handlers, streams flushed) but for the teardown of every module
(:func:`_end`).

The server detaches itself from the test process at its start (a second fork), ends (killing
children still running) when its standard input reaches end of file (the test process closed
the pipe or died), and its end closes its standard output (the test process waits for that).
"""

from __future__ import annotations

import atexit
import gc
import importlib
import json
import os
import resource
import selectors
import signal
import socket
import struct
import sys
import threading
import traceback
from dataclasses import dataclass

#: nanobot's command line and what its commands import lazily on every run. The agent's tool
#: modules (found by its tool loader at every start; MCP's client among them) and what they
#: import took an ``agent`` command 0.49 s of CPU in the child after the first five; 0.15 s
#: with them (nanobot 0.3.5). None of them reads ``HOME`` or the arguments at import.
PRELOAD = [
    "nanobot.cli.entry",
    "nanobot.cli.commands",
    "nanobot.cli.agent",
    "nanobot.providers.openai_compat_provider",
    "nanobot.providers.factory",
    "nanobot.agent.goal_permission",
    "nanobot.agent.plugins",
    "nanobot.agent.tools.apply_patch",
    "nanobot.agent.tools.cron",
    "nanobot.agent.tools.long_task",
    "nanobot.agent.tools.mcp_oauth",
    "nanobot.agent.tools.search",
    "nanobot.agent.tools.session_messages",
    "nanobot.agent.tools.spawn",
    "nanobot.cli.desktop_target",
    "nanobot.cron.service",
    "nanobot.session.session_messages",
    "openai",
    "openai.resources.chat.completions",
    "httpx",
    "requests",
]

_HEADER = struct.Struct("!I")


@dataclass
class Job:
    """What a forked child runs."""

    argv: list[str]
    env: dict[str, str]
    cwd: str
    code: str | None


def _receive(conn: socket.socket) -> tuple[Job, list[int]]:
    size_bytes, fds, _flags, _addr = socket.recv_fds(conn, _HEADER.size, 3)
    if len(size_bytes) < _HEADER.size:
        size_bytes += _read_exact(conn, _HEADER.size - len(size_bytes))
    (size,) = _HEADER.unpack(size_bytes)
    data = json.loads(_read_exact(conn, size))
    job = Job(list(data["argv"]), dict(data["env"]), str(data["cwd"]), data.get("code"))
    return job, list(fds)


def _read_exact(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise EOFError("the client closed the connection")
        data += chunk
    return data


def _status(raw: int) -> int:
    return -os.WTERMSIG(raw) if os.WIFSIGNALED(raw) else os.WEXITSTATUS(raw)


def _kill(children: dict[int, socket.socket]) -> None:
    """SIGKILL every child still running; tell its client how it ended."""
    for pid in children:
        os.kill(pid, signal.SIGKILL)
    for pid, conn in children.items():
        _, raw, usage = os.wait4(pid, 0)
        _report(conn, raw, usage)


def _report(conn: socket.socket, raw: int, usage: resource.struct_rusage) -> None:
    """Send a child's end (exit code, CPU seconds) to its client and hang up."""
    cpu = usage.ru_utime + usage.ru_stime
    try:
        conn.sendall(f"exit {_status(raw)} {cpu:.4f}\n".encode())
    except OSError:
        pass  # the client went away; the child's end needs no audience
    conn.close()


def serve(path: str) -> Job:
    """Accept requests until standard input ends; return only in a forked child, its job."""
    for module in PRELOAD:
        importlib.import_module(module)  # an error here ends the server: the client says so
    extra = [t.name for t in threading.enumerate() if t is not threading.main_thread()]
    if extra:  # a fork copies only the calling thread; locks those held would stay held
        raise SystemExit(f"nanobot_forkserver: preloading started threads: {extra}")
    gc.freeze()  # the preloaded heap: never collected, nor copied by a child's collection
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(16)
    children: dict[int, socket.socket] = {}
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "accept")
    selector.register(wake_r, selectors.EVENT_READ, "child")
    selector.register(sys.stdin.fileno(), selectors.EVENT_READ, "stdin")
    print(f"ready {os.getpid()}", flush=True)
    while True:
        for key, _ in selector.select():
            if key.data == "stdin":
                if not os.read(sys.stdin.fileno(), 4096):
                    _kill(children)
                    raise SystemExit(0)
            elif key.data == "child":
                os.read(wake_r, 4096)
                while children:
                    pid, raw, usage = os.wait4(-1, os.WNOHANG)
                    if pid == 0:
                        break
                    _report(children.pop(pid), raw, usage)
            else:
                conn, _ = listener.accept()
                try:
                    job, fds = _receive(conn)
                except (EOFError, OSError, ValueError, KeyError) as exc:
                    print(f"nanobot_forkserver: bad request: {exc}", file=sys.stderr)
                    conn.close()
                    continue
                pid = os.fork()
                if pid == 0:  # the child: leave the server behind
                    selector.close()
                    listener.close()
                    conn.close()
                    signal.set_wakeup_fd(-1)
                    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                    signal.signal(signal.SIGINT, signal.default_int_handler)
                    os.close(wake_r)
                    os.close(wake_w)
                    for child_conn in children.values():
                        child_conn.close()
                    for target, fd in enumerate(fds):
                        os.dup2(fd, target)
                    for fd in fds:
                        if fd > 2:
                            os.close(fd)
                    return job
                for fd in fds:
                    os.close(fd)
                children[pid] = conn
                conn.sendall(f"pid {pid}\n".encode())


def _run(job: Job) -> int:
    """Run the job as the ``nanobot`` script (or ``python -c``) would; its exit code."""
    os.environ.clear()
    os.environ.update(job.env)
    os.chdir(job.cwd)
    if job.code is not None:
        sys.argv = ["-c", *job.argv]
        sys.path[0] = ""
        namespace = {"__name__": "__main__", "__builtins__": __builtins__}
        exec(compile(job.code, "<string>", "exec"), namespace)
        return 0
    sys.argv = [os.path.join(os.path.dirname(sys.executable), "nanobot"), *job.argv]
    importlib.import_module("nanobot.cli.entry").main()  # what the ``nanobot`` script runs
    return 0


def _exit_code(exc: SystemExit) -> int:
    """The exit code the interpreter makes of ``SystemExit`` (a message: printed, 1)."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    print(exc.code, file=sys.stderr)
    return 1


def _end(code: int, interrupted: bool) -> None:
    """What the interpreter does at its end, but the teardown of every module.

    Non-daemon threads are joined, ``atexit`` handlers run (logging's shutdown, loguru's,
    ``weakref.finalize``), garbage with finalizers collected, the standard streams flushed.
    Tearing down the preloaded modules one by one (about 0.4 s of CPU, as much as the command)
    is skipped: ``os._exit`` ends the process. An uncaught ``KeyboardInterrupt`` ends it by
    SIGINT, as the interpreter does.
    """
    shutdown = getattr(threading, "_shutdown", None)
    if shutdown is not None:
        shutdown()
    atexit._run_exitfuncs()
    gc.collect()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            code = code or 120  # as the interpreter reports an unflushable stdout
    if interrupted:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    os._exit(code)


def main() -> None:
    """Serve; in a forked child, run its job and end as a fresh interpreter would."""
    # As for the installed script: the venv's bin folder first on the path, not tests/.
    sys.path[0] = os.path.dirname(sys.executable)
    # Detached from the test process (which reaps this first process at once): were the test
    # process to reap the server itself, it would count the CPU of every child again, the
    # server having reaped them (the cost table has each child's from ``wait4`` already).
    if os.fork() != 0:
        os._exit(0)
    job = serve(sys.argv[1])
    interrupted = False
    try:
        code = _run(job)
    except SystemExit as exc:
        code = _exit_code(exc)
    except KeyboardInterrupt:
        traceback.print_exc()
        code, interrupted = 130, True
    except BaseException:  # noqa: BLE001 - what the interpreter does with it
        sys.excepthook(*sys.exc_info())
        code = 1
    _end(code, interrupted)


if __name__ == "__main__":
    main()
