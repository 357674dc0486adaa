"""Run ``nanobot-desktop`` commands in this process, as the console script would run them.

A subprocess of the installed script costs a fresh interpreter (LiteLLM and pydantic imported
again: 3-5 s of CPU each) and proves nothing more for most commands: their output, exit code
and files come from ``desktop.cli.main``. :func:`run_cli` calls that entry point here, with
what a subprocess would have had:

- the environment ``tests.conftest.cli_env`` gives the subprocess (an isolated ``HOME``, no
  provider keys, the extra variables), set for the call and restored after;
- its own standard input (the text given, not a terminal), output and error (not terminals),
  returned as text;
- an exception out of ``main`` printed as the interpreter would (a traceback, exit code 1),
  ``SystemExit`` turned into its code;
- everything the command set up process-wide undone afterwards: log handlers it added
  (closed), log levels it changed.

Where a separate process is the point but a fresh interpreter is not (two processes on one
session, output captured at the file descriptors, a process holding a lock), :func:`fork_cli`
runs the command in a process forked from the pre-imported zygote (``tests/zygote.py``).
Keep real subprocesses where the interpreter's start is the point: the console script
itself, exit codes set by ``os._exit``, import-time behaviour (``-X importtime``, what is
loaded at import), long-running servers the test talks to while they run.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import subprocess
import sys
import traceback
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from tests import zygote
from tests.conftest import cli_env

# Set by cli_env for a subprocess; meaningless in this process.
_SUBPROCESS_ONLY = ("PYTHONPATH", "PYTHONUNBUFFERED")


@contextlib.contextmanager
def _environment(env: dict[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update({k: v for k, v in env.items() if k not in _SUBPROCESS_ONLY})
    for name in _SUBPROCESS_ONLY:
        if name in saved:
            os.environ[name] = saved[name]
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _loggers() -> list[logging.Logger]:
    named = [
        logger
        for logger in logging.root.manager.loggerDict.values()
        if isinstance(logger, logging.Logger)
    ]
    return [logging.root, *named]


@contextlib.contextmanager
def logging_restored() -> Iterator[None]:
    """Logging as a fresh process has it for the body; as it was afterwards.

    Handlers the body added are removed (and closed) and levels put back. The CLI's echo of
    notices to standard error (``desktop.cli.common.echo_notices``) is added once per process
    and bound to the ``sys.stderr`` of that moment, so one left by an earlier in-process call
    (its stream long closed) is detached for the body and put back after.
    """
    before = {id(lg): (list(lg.handlers), lg.level) for lg in _loggers()}
    echoes = [
        (lg, h) for lg in _loggers() for h in list(lg.handlers) if getattr(h, "_nanobot_echo", 0)
    ]
    for logger, handler in echoes:
        logger.removeHandler(handler)
    try:
        yield
    finally:
        for logger in _loggers():
            handlers, level = before.get(id(logger), ([], logging.NOTSET))
            for handler in list(logger.handlers):
                if handler not in handlers:
                    logger.removeHandler(handler)
                    handler.close()
            logger.setLevel(level)
        for logger, handler in echoes:
            logger.addHandler(handler)


class _Stream(io.TextIOWrapper):
    """A text stream over bytes (``.buffer`` works) that is not a terminal."""

    def __init__(self, data: bytes = b"") -> None:
        super().__init__(io.BytesIO(data), encoding="utf-8", errors="replace", newline=None)

    def text(self) -> str:
        self.flush()
        buffer = self.buffer
        assert isinstance(buffer, io.BytesIO)
        return buffer.getvalue().decode("utf-8", errors="replace")


def run_cli(
    args: Sequence[str], home: Path, stdin: str | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    """Run ``nanobot-desktop ARGS`` in this process; the result as ``subprocess.run``'s.

    Args:
        args: The command line after the program name.
        home: ``HOME`` for the command (the test's isolated home).
        stdin: Its standard input (empty when ``None``).
        **env: Extra environment variables.
    """
    from desktop.cli import main

    out, err = _Stream(), _Stream()
    source = _Stream((stdin or "").encode("utf-8"))
    with (
        _environment(cli_env(home, **env)),
        logging_restored(),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        saved_stdin = sys.stdin
        sys.stdin = source
        try:
            code = main(list(args))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if exc.code is not None and not isinstance(exc.code, int):
                print(exc.code, file=sys.stderr)
        except Exception:  # noqa: BLE001 - what the interpreter does with it
            traceback.print_exc()
            code = 1
        finally:
            sys.stdin = saved_stdin
    return subprocess.CompletedProcess(["nanobot-desktop", *args], code, out.text(), err.text())


def fork_cli(
    args: Sequence[str],
    env: Mapping[str, str],
    stdin: str | None = None,
    timeout: float = 240.0,
) -> subprocess.CompletedProcess[str]:
    """Run ``nanobot-desktop ARGS`` in its own process, forked from the pre-imported zygote.

    A real process (its own pid, file descriptors, file locks, exit code; everything it
    writes to descriptors 1 and 2 captured), without a fresh interpreter importing LiteLLM.

    Args:
        args: The command line after the program name.
        env: Its whole environment (``tests.conftest.cli_env`` builds one).
        stdin: Its standard input (``/dev/null`` when ``None``).
        timeout: Seconds before it is killed and ``subprocess.TimeoutExpired`` raised.
    """
    result = zygote.run("desktop.cli:main", list(args), env=env, stdin=stdin, timeout=timeout)
    return subprocess.CompletedProcess(
        ["nanobot-desktop", *args], result.returncode, result.stdout, result.stderr
    )


def start_cli(args: Sequence[str], env: Mapping[str, str]) -> zygote.Forked:
    """Start ``nanobot-desktop ARGS`` (a long-running command: ``gateway``, ``serve``) in its
    own process forked from the zygote; used like ``subprocess.Popen(..., text=True)`` with
    its output and error as pipes.

    Args:
        args: The command line after the program name.
        env: Its whole environment (``tests.conftest.cli_env`` builds one).
    """
    return zygote.start("desktop.cli:main", list(args), env=env)
