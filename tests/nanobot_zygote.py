"""The real ``nanobot`` CLI forked from a pre-imported server in nanobot's own venv.

Each ``nanobot …`` command of the interop tier used to start a fresh interpreter in
``.cache/nanobot-venv`` that imported nanobot's command line again (about 1 s of CPU for
``--help`` alone, more for ``agent``). :func:`run` and :func:`start` send the command to
``tests/nanobot_forkserver.py`` instead, a server started once per test process by that venv's
Python with nanobot's CLI imported; it forks one child per command, which runs nanobot's
console entry point (``nanobot.cli.entry:main``, what the ``nanobot`` script runs) with the
command's argv, whole environment (``HOME`` included), working directory and standard
streams. The child is its own process: its own pid (a signal or SIGKILL from the test reaches
it), files, exit code and output.

What it does not prove: anything about the start of nanobot's interpreter (the script's
shebang, import-time behaviour). The server was started with the environment of the first
command but ``HOME``; a command whose variables read at the start (``PYTHON*``, and those the
preloaded modules read at import: terminal size and colours) differ is refused (use a
subprocess for it).

``NANOBOT_TEST_NANOBOT_FORK=0`` turns the server off: the interop tier then starts every
command as a subprocess of the script, as before (``forking()``).

The server is owned by this module: started lazily under a lock, stopped by :func:`stop`
(a session fixture of ``tests/interop/conftest.py`` calls it; ``atexit`` too), and it ends
by itself when the pipe to its standard input closes (this process died).
"""

from __future__ import annotations

import atexit
import json
import os
import select
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

SWITCH = "NANOBOT_TEST_NANOBOT_FORK"
SERVER = Path(__file__).resolve().parent / "nanobot_forkserver.py"
_HEADER = struct.Struct("!I")
#: Read once, when the server started: by the interpreter (``PYTHON*``), or at import by the
#: modules it preloads (rich's consoles: size and colours; typer's help width; loguru's
#: defaults). A child cannot take them from its request, so they must equal the server's.
_FIXED = ("COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR", "TERM", "COLORTERM", "TTY_COMPATIBLE",
          "TTY_INTERACTIVE", "JUPYTER_COLUMNS", "JUPYTER_LINES", "TERMINAL_WIDTH",
          "_TYPER_FORCE_DISABLE_TERMINAL", "TYPER_USE_RICH")  # fmt: skip
_FIXED_PREFIXES = ("PYTHON", "LOGURU_")


def _fixed(env: Mapping[str, str]) -> dict[str, str]:
    """The variables of ``env`` a forked child cannot change (see :data:`_FIXED`)."""
    return {k: v for k, v in env.items() if k in _FIXED or k.startswith(_FIXED_PREFIXES)}


def forking() -> bool:
    """Whether nanobot's commands are forked (the default) rather than started fresh."""
    return os.environ.get(SWITCH, "1") != "0"


class _Server:
    """The running server: its process, socket path, and the environment it started with."""

    def __init__(self, python: Path, env: Mapping[str, str]) -> None:
        self.folder = tempfile.mkdtemp(prefix="nanobot-forkserver-")
        self.socket = os.path.join(self.folder, "socket")
        home = os.path.join(self.folder, "home")
        os.mkdir(home)
        self.fixed = _fixed(env)
        self.python = python
        self.pid = 0
        self.process = subprocess.Popen(
            [str(python), str(SERVER), self.socket],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**env, "HOME": home},
            cwd=self.folder,
            start_new_session=True,  # a Ctrl-C at the terminal is the test's, not the server's
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        self.process.wait(timeout=30)  # the first process; the server runs on, detached
        ready, _, pid = line.partition(" ")
        if ready != "ready":
            self.stop()
            raise RuntimeError(f"the nanobot forkserver did not start: {line!r}")
        self.pid = int(pid)

    def stop(self) -> None:
        """End the server (its standard input closed: it kills children still running)."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        stdout = self.process.stdout
        if stdout is not None:  # closed when the server has ended (children killed, reaped)
            if not select.select([stdout], [], [], 30)[0] and self.pid:
                os.kill(self.pid, 9)
            stdout.read()
            stdout.close()
        self.process.wait(timeout=30)
        for name in ("socket", "home"):
            path = os.path.join(self.folder, name)
            if os.path.isdir(path):
                os.rmdir(path)
            elif os.path.exists(path):
                os.unlink(path)
        os.rmdir(self.folder)


_SERVERS: list[_Server] = []
_LOCK = threading.Lock()


def _server(python: Path, env: Mapping[str, str]) -> _Server:
    with _LOCK:
        if not _SERVERS:
            _SERVERS.append(_Server(python, env))
            atexit.register(stop)
        server = _SERVERS[0]
    if server.python != python:
        raise ValueError(f"the nanobot forkserver runs {server.python}, not {python}")
    fixed = _fixed(env)
    differ = sorted(n for n in {*fixed, *server.fixed} if fixed.get(n) != server.fixed.get(n))
    if differ:
        raise ValueError(f"variables read at the server's start differ from its: {differ}")
    return server


def stop() -> None:
    """Stop the server of this process, if one was started."""
    with _LOCK:
        while _SERVERS:
            _SERVERS.pop().stop()


class NanobotProcess:
    """A running forked ``nanobot`` command, used as a :class:`subprocess.Popen`."""

    def __init__(
        self,
        args: list[str],
        conn: socket.socket,
        stdin: IO[bytes] | IO[str] | None,
        stdout: IO[bytes] | IO[str] | None,
        stderr: IO[bytes] | IO[str] | None,
    ) -> None:
        self.args = args
        self._conn = conn
        self._buffer = b""
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
        self.returncode: int | None = None
        first = self._line(None).split()
        if len(first) != 2 or first[0] != "pid":
            conn.close()
            raise RuntimeError(f"the nanobot forkserver refused {args}: {first}")
        self.pid = int(first[1])

    def _line(self, timeout: float | None) -> str:
        """The server's next line; ``""`` when none came within ``timeout`` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([self._conn], [], [], left)[0]:
                return ""
            chunk = self._conn.recv(4096)
            if not chunk:
                raise RuntimeError(f"the nanobot forkserver lost {self.args}")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("ascii")

    def _finish(self, line: str) -> int:
        parts = line.split()
        if len(parts) != 3 or parts[0] != "exit":
            raise RuntimeError(f"the nanobot forkserver lost {self.args}: {line!r}")
        self.returncode = int(parts[1])
        sys.audit("tests.zygote.cpu", float(parts[2]))  # billed by the cost table
        self._conn.close()
        return self.returncode

    def poll(self) -> int | None:
        """The exit code once the command ended (negative: the signal), else ``None``."""
        if self.returncode is None:
            line = self._line(0)
            if line:
                self._finish(line)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the end; :class:`subprocess.TimeoutExpired` past ``timeout``."""
        if self.returncode is None:
            line = self._line(timeout)
            if not line:
                raise subprocess.TimeoutExpired(self.args, timeout or 0)
            self._finish(line)
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, sig: int) -> None:
        """Send ``sig`` to the command (nothing once it has ended)."""
        if self.poll() is None:
            os.kill(self.pid, sig)

    def terminate(self) -> None:
        """SIGTERM."""
        self.send_signal(15)

    def kill(self) -> None:
        """SIGKILL."""
        self.send_signal(9)

    def communicate(self, timeout: float | None = None) -> tuple[str, str]:
        """The rest of its output and error (text), once it has ended."""
        if self.stdin is not None:
            self.stdin.close()
        texts: dict[str, str] = {"out": "", "err": ""}

        def read(name: str, stream: IO[bytes] | IO[str] | None) -> None:
            if stream is not None:
                data = stream.read()
                texts[name] = data if isinstance(data, str) else data.decode(errors="replace")

        readers = [
            threading.Thread(target=read, args=(n, s))
            for n, s in (("out", self.stdout), ("err", self.stderr))
        ]
        for reader in readers:
            reader.start()
        for reader in readers:
            reader.join(timeout)
            if reader.is_alive():
                raise subprocess.TimeoutExpired(self.args, timeout or 0)
        for stream in (self.stdout, self.stderr):
            if stream is not None:
                stream.close()
        self.wait(timeout)
        return texts["out"], texts["err"]

    def __enter__(self) -> NanobotProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        for stream in (self.stdin, self.stdout, self.stderr):
            if stream is not None:
                stream.close()
        if self.poll() is None:
            self.kill()
        self.wait()


def _request(
    python: Path,
    argv: Sequence[str],
    env: Mapping[str, str],
    cwd: str | Path | None,
    fds: tuple[int, int, int],
    code: str | None,
) -> socket.socket:
    server = _server(python, env)
    sys.audit("tests.zygote.run", "nanobot")  # counted by the cost table: no interpreter
    header = json.dumps(
        {"argv": list(argv), "env": dict(env), "cwd": str(cwd or os.getcwd()), "code": code}
    ).encode()
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(server.socket)
        socket.send_fds(conn, [_HEADER.pack(len(header))], list(fds))
        conn.sendall(header)
    except BaseException:
        conn.close()
        raise
    return conn


def start(
    python: Path,
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: str | Path | None = None,
    stdin: bool = False,
    merge_stderr: bool = False,
    text: bool = True,
    code: str | None = None,
) -> NanobotProcess:
    """Start ``nanobot ARGV`` (or ``python -c CODE ARGV``) forked from the server.

    Args:
        python: nanobot's venv Python (the server runs it).
        argv: The command line after the program name.
        env: Its whole environment.
        cwd: Its working directory (default: this process's).
        stdin: A pipe to write its standard input to (else ``/dev/null``).
        merge_stderr: Its standard error into the output pipe (``stderr=STDOUT``).
        text: Text pipes (else bytes).
        code: Python code to run instead of the CLI, as ``python -c``.

    Returns:
        The running command, used like :class:`subprocess.Popen` with pipes for output and
        error (and input when ``stdin``).
    """
    out_r, out_w = os.pipe()
    err_r, err_w = (out_r, out_w) if merge_stderr else os.pipe()
    in_r, in_w = os.pipe() if stdin else (os.open(os.devnull, os.O_RDONLY), -1)
    ours = [out_r] + ([] if merge_stderr else [err_r]) + ([in_w] if stdin else [])
    try:
        conn = _request(python, argv, env, cwd, (in_r, out_w, err_w), code)
    except BaseException:
        for fd in ours:
            os.close(fd)
        raise
    finally:
        for fd in {in_r, out_w, err_w}:
            os.close(fd)
    mode = "" if text else "b"
    opened: list[IO[bytes] | IO[str] | None] = [
        open(in_w, "w" + mode, encoding="utf-8" if text else None) if stdin else None,  # noqa: SIM115
        open(out_r, "r" + mode, encoding="utf-8" if text else None, errors="replace" if text else None),  # noqa: SIM115
        None if merge_stderr else open(err_r, "r" + mode, encoding="utf-8" if text else None, errors="replace" if text else None),  # noqa: SIM115
    ]  # fmt: skip
    try:
        return NanobotProcess([str(python), *argv], conn, *opened)
    except BaseException:
        for stream in opened:
            if stream is not None:
                stream.close()
        raise


def run(
    python: Path,
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: str | Path | None = None,
    stdin: str | None = None,
    timeout: float = 180.0,
    code: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``nanobot ARGV`` (or ``python -c CODE ARGV``) forked from the server; the result as
    :func:`subprocess.run` with ``capture_output=True, text=True``.

    Args:
        python: nanobot's venv Python.
        argv: The command line after the program name.
        env: Its whole environment.
        cwd: Its working directory (default: this process's).
        stdin: Its standard input as text (``None``: ``/dev/null``).
        timeout: Seconds before it is killed and :class:`subprocess.TimeoutExpired` raised.
        code: Python code to run instead of the CLI, as ``python -c``.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        if stdin is None:
            source = os.open(os.devnull, os.O_RDONLY)
        else:
            with tempfile.TemporaryFile() as handle:
                handle.write(stdin.encode("utf-8"))
                handle.flush()
                handle.seek(0)
                source = os.dup(handle.fileno())
        try:
            conn = _request(python, argv, env, cwd, (source, out.fileno(), err.fileno()), code)
        finally:
            os.close(source)
        process = NanobotProcess([str(python), *argv], conn, None, None, None)
        try:
            code_ = process.wait(timeout)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, 9)
            process.wait()
            raise
        texts = []
        for handle in (out, err):
            handle.seek(0)
            texts.append(handle.read().decode("utf-8", errors="replace"))
    return subprocess.CompletedProcess([str(python), *argv], code_, texts[0], texts[1])
