"""Cost of the tolerant readers against a plain ``json.loads`` of the same files.

Every turn reads the history log (system prompt) and opening a conversation reads its session
file, so the field-by-field checks must stay cheap. Writes, in a temporary workspace, a
10,000-message session (as ``bench/open_session.py`` does), a 1,000-entry history log and a
200-job ``jobs.json``, then prints the best of N runs for:

* the session: ``json.loads`` of every line (the floor) vs :func:`read_session_file`;
* the history: ``json.loads`` of every line vs :meth:`MemoryStore.entries` and the whole
  ``# Recent History`` section of the system prompt;
* the jobs file: ``json.loads`` vs :meth:`JobStore.refresh`.

Usage: python bench/tolerant_readers.py [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.open_session import write_big_session
from desktop.core.agent.context import ContextBuilder
from desktop.core.cron.store import JobStore
from desktop.core.memory.store import MemoryStore
from desktop.core.session.validate import read_session_file


def best_ms(fn: Callable[[], object], runs: int) -> float:
    """The fastest of ``runs`` calls, in milliseconds."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times) * 1000


def plain_lines(path: Path) -> list[object]:
    """The floor: every line through ``json.loads``, no checks."""
    with path.open("rb") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def main() -> None:
    """Write the files, time the readers, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    ws = Path(tempfile.mkdtemp(prefix="bench-readers-"))
    session = write_big_session(ws, "desktop:big", 10_000)
    store = MemoryStore(ws)
    for i in range(1_000):
        store.append_history(f"Summary {i}: the user asked about item {i} and chose option B.")
    jobs = ws / "cron" / "jobs.json"
    jobs.parent.mkdir(parents=True)
    every = {"kind": "every", "everyMs": 3_600_000}
    jobs.write_text(
        json.dumps(
            {
                "version": 1,
                "jobs": [
                    {
                        "id": f"j{i}",
                        "name": f"job {i}",
                        "schedule": every,
                        "payload": {"message": "m"},
                    }
                    for i in range(200)
                ],
            }
        )
    )
    history = store.history_file
    rows = [
        ("session 10,000 msgs: json.loads", best_ms(lambda: plain_lines(session), args.runs)),
        (
            "session 10,000 msgs: read_session_file",
            best_ms(lambda: read_session_file(session), args.runs),
        ),
        ("history 1,000 entries: json.loads", best_ms(lambda: plain_lines(history), args.runs)),
        (
            "history 1,000 entries: MemoryStore.entries",
            best_ms(lambda: MemoryStore(ws).entries(), args.runs),
        ),
        (
            "history: # Recent History section",
            best_ms(lambda: ContextBuilder(ws).recent_history(), args.runs),
        ),
        (
            "jobs.json 200 jobs: json.loads",
            best_ms(lambda: json.loads(jobs.read_bytes()), args.runs),
        ),
        (
            "jobs.json 200 jobs: JobStore.refresh",
            best_ms(lambda: JobStore(jobs).refresh(), args.runs),
        ),
    ]
    width = max(len(name) for name, _ in rows)
    print(f"best of {args.runs} runs; session file {session.stat().st_size / 1e6:.1f} MB")
    for name, ms in rows:
        print(f"{name.ljust(width)}  {ms:8.1f} ms")


if __name__ == "__main__":
    main()
