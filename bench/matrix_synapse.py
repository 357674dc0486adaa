"""How long the Matrix tests' homeserver takes: installing Synapse, and the fixture's start.

Starts Synapse exactly as the ``synapse`` fixture does (``tests/channels/matrix/synapse.py``):
the first start of a fresh data directory (keys generated, SQLite schema created), then a
restart on the same database, each until the client API answers. Data on tmpfs
(``/dev/shm``, what the fixture uses when it can) and on disk. With ``--install`` it also
times ``pip install matrix-synapse`` into a scratch venv (what ``scripts/setup.sh --test`` does
once; CI starts without the cache).

Usage: python bench/matrix_synapse.py [--runs 3] [--install]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.channels.matrix.synapse import Synapse, synapse_python  # noqa: E402 - needs REPO on sys.path

VERSION = "1.163.2"  # keep in step with scripts/setup.sh


def _starts(base: Path | None, runs: int) -> tuple[list[float], list[float], float]:
    first: list[float] = []
    again: list[float] = []
    register: list[float] = []
    for _ in range(runs):
        directory = Path(tempfile.mkdtemp(prefix="bench-synapse-", dir=base))
        server = Synapse(directory)
        try:
            first.append(server.start())
            began = time.monotonic()
            server.register("benchuser")
            register.append(time.monotonic() - began)
            server.stop()
            again.append(server.start())
        finally:
            server.stop()
            shutil.rmtree(directory, ignore_errors=True)
    return first, again, statistics.median(register)


def _install() -> float:
    with tempfile.TemporaryDirectory(prefix="bench-synapse-venv-") as tmp:
        began = time.monotonic()
        subprocess.run([sys.executable, "-m", "venv", tmp], check=True)
        subprocess.run(
            [f"{tmp}/bin/python", "-m", "pip", "install", "-q", f"matrix-synapse=={VERSION}"],
            check=True,
        )
        return time.monotonic() - began


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--install", action="store_true")
    args = parser.parse_args()
    if not synapse_python().exists():
        sys.exit(f"no Synapse at {synapse_python()}: run scripts/setup.sh --test")
    if args.install:
        print(f"pip install matrix-synapse=={VERSION} into a new venv: {_install():.1f} s")
    places: list[tuple[str, Path | None]] = [("disk", None)]
    if Path("/dev/shm").is_dir():
        places.insert(0, ("tmpfs", Path("/dev/shm")))
    for label, base in places:
        first, again, register = _starts(base, args.runs)
        print(
            f"{label:5}: fresh start {statistics.median(first):.2f} s "
            f"(min {min(first):.2f}, max {max(first):.2f}); restart on the same database "
            f"{statistics.median(again):.2f} s; registering a user {register * 1000:.0f} ms "
            f"(medians of {args.runs})"
        )


if __name__ == "__main__":
    main()
