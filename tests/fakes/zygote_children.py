"""Children for ``tests/test_zygote.py``, run in processes forked by ``tests/zygote.py``.

Standard library only, so a child starts in milliseconds.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import signal
import sys
import time
from pathlib import Path

from tests import zygote


def probe(argv: list[str]) -> int:
    """Report what the child sees; exit with the code given."""
    print(
        json.dumps(
            {
                "pid": os.getpid(),
                "ppid": os.getppid(),
                "preloaded": [m for m in zygote.PRELOAD if m in sys.modules],
                "tests": str(Path(sys.modules["tests"].__file__ or "").parent.parent),
                "cwd": os.getcwd(),
                "marker": os.environ.get("ZYGOTE_MARKER"),
                "argv": argv,
            }
        )
    )
    print("to stderr", file=sys.stderr)
    return int(argv[0])


def killed_mid_write(argv: list[str]) -> int:
    """Write half a line to a file, then SIGKILL this process."""
    with open(argv[0], "w", encoding="utf-8") as handle:
        handle.write("complete line\n")
        handle.flush()
        handle.write("torn li")  # still in the buffer when the process dies
        print("about to die", flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    return 0


def hang(argv: list[str]) -> int:
    """Note the pid, then sleep until killed (the sleep is the point)."""
    Path(argv[0]).write_text(str(os.getpid()))
    time.sleep(600)
    return 0


def echo_stdin(argv: list[str]) -> int:
    """Copy standard input to standard output, upper-cased; note an exit handler's run in
    ``argv[0]`` and spend a little CPU first (the cost table reads it back)."""
    atexit.register(Path(argv[0]).write_text, "the atexit handler ran")
    logging.getLogger("zygote-child").addHandler(_Buffered(argv[1]))
    logging.getLogger("zygote-child").warning("logged")
    deadline = time.process_time() + 0.05
    while time.process_time() < deadline:
        pass
    sys.stdout.write(sys.stdin.read().upper())
    return 0


class _Buffered(logging.Handler):
    """Writes its records to a file only when closed (by ``logging.shutdown``)."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())

    def close(self) -> None:
        Path(self.path).write_text("\n".join(self.lines))
        super().close()


def until_interrupted(argv: list[str]) -> int:
    """Print that it runs, wait for Ctrl-C (SIGINT), say so on both streams, exit 0."""
    try:  # from before "running": the Ctrl-C may come as soon as it is read
        print("running", flush=True)
        time.sleep(600)
    except KeyboardInterrupt:
        print("stopped")
        print("interrupted", file=sys.stderr)
        return 0
    return 1
