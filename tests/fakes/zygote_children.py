"""Children for ``tests/test_zygote.py``, run in processes forked by ``tests/zygote.py``.

Standard library only, so a child starts in milliseconds.
"""

from __future__ import annotations

import json
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
