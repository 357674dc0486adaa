#!/usr/bin/env python3
"""Print what the test suite's time goes to: the slowest tests, the modules that start the
most interpreters, and the totals per folder.

Two ways to use it (from the repository root):

  .venv/bin/python scripts/test_costs.py run [PYTEST ARGS...]
      runs pytest with the cost recorder (tests/costs.py) and prints the table;
  NANOBOT_TEST_COSTS=/tmp/costs scripts/test.sh [ARGS...]
  .venv/bin/python scripts/test_costs.py report /tmp/costs
      records a full run as CI does it (every tier, xdist lanes included; coverage is not
      measured then: the recorder's audit hook and the tracer do not mix), then prints.

Options of ``report``/``run``: ``--top N`` (50) slowest tests, ``--modules N`` (25) modules.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


def load(folder: Path) -> list[dict[str, Any]]:
    """Every record of every ``costs-*.json`` in ``folder`` (one file per pytest process)."""
    records: list[dict[str, Any]] = []
    for path in sorted(folder.glob("costs-*.json")):
        records.extend(json.loads(path.read_text(encoding="utf-8")))
    if not records:
        raise SystemExit(f"no cost records in {folder} (costs-*.json)")
    return records


def _module(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def _folder(nodeid: str) -> str:
    parts = _module(nodeid).split("/")
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def _short(nodeid: str, width: int = 88) -> str:
    return nodeid if len(nodeid) <= width else "…" + nodeid[-(width - 1) :]


def report(records: list[dict[str, Any]], top: int, modules: int) -> str:
    """The cost table as text."""
    out: list[str] = []
    wall = sum(r["wall"] for r in records)
    cpu = sum(r["cpu"] for r in records)
    child = sum(r["child_cpu"] for r in records)
    interp = sum(r["interpreters"] for r in records)
    spawns = sum(r["spawns"] for r in records)
    workers = sorted({r.get("worker", "main") for r in records})
    out.append(
        f"{len(records)} tests on {len(workers)} process(es): {wall:.0f} s of test wall time "
        f"(summed), {cpu:.0f} s CPU in pytest, {child:.0f} s CPU in {spawns} child processes "
        f"({interp} Python interpreters)"
    )
    for worker in workers:
        mine = [r for r in records if r.get("worker", "main") == worker]
        out.append(f"  {worker}: {len(mine)} tests, {sum(r['wall'] for r in mine):.0f} s")

    out.append(f"\nThe {top} slowest tests (wall s | own CPU s | children's CPU s | spawns/python)")
    out.extend(
        f"{r['wall']:7.2f} {r['cpu']:7.2f} {r['child_cpu']:7.2f} "
        f"{r['spawns']:4d}/{r['interpreters']:<4d} {_short(r['nodeid'])}"
        for r in sorted(records, key=lambda r: r["wall"], reverse=True)[:top]
    )

    per_module: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for r in records:
        entry = per_module[_module(r["nodeid"])]
        for key in ("wall", "cpu", "child_cpu", "spawns", "interpreters"):
            entry[key] += r[key]
        entry["tests"] += 1
    out.append(
        f"\nThe {modules} modules starting the most Python interpreters "
        "(python | spawns | tests | wall s | children's CPU s)"
    )
    ranked = sorted(
        per_module.items(), key=lambda kv: (kv[1]["interpreters"], kv[1]["wall"]), reverse=True
    )
    for name, e in ranked[:modules]:
        if not e["spawns"]:
            break
        out.append(
            f"{e['interpreters']:5.0f} {e['spawns']:6.0f} {e['tests']:5.0f} "
            f"{e['wall']:8.1f} {e['child_cpu']:8.1f}  {name}"
        )

    out.append(
        f"\nThe {modules} slowest modules (wall s | tests | own CPU s | children's CPU s | python)"
    )
    for name, e in sorted(per_module.items(), key=lambda kv: kv[1]["wall"], reverse=True)[:modules]:
        out.append(
            f"{e['wall']:8.1f} {e['tests']:5.0f} {e['cpu']:8.1f} {e['child_cpu']:8.1f} "
            f"{e['interpreters']:5.0f}  {name}"
        )

    per_folder: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    for r in records:
        entry = per_folder[_folder(r["nodeid"])]
        entry[0] += 1
        entry[1] += r["wall"]
        entry[2] += r["child_cpu"]
        entry[3] += r["interpreters"]
    out.append("\nPer folder (tests | wall s | children's CPU s | python)")
    for name, (n, w, c, i) in sorted(per_folder.items(), key=lambda kv: kv[1][1], reverse=True):
        out.append(f"{n:5.0f} {w:8.1f} {c:8.1f} {i:5.0f}  {name}")
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--top", type=int, default=50)
    parser.add_argument("--modules", type=int, default=25)
    sub = parser.add_subparsers(dest="command", required=True)
    rep = sub.add_parser("report", help="print the table of a recorded run")
    rep.add_argument("folder", type=Path)
    run = sub.add_parser("run", help="run pytest with the recorder, then print the table")
    run.add_argument("pytest_args", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.command == "report":
        print(report(load(args.folder), args.top, args.modules))
        return 0
    folder = Path(tempfile.mkdtemp(prefix="test-costs-"))
    env = dict(os.environ, NANOBOT_TEST_COSTS=str(folder))
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    code = subprocess.run(
        [str(REPO / ".venv" / "bin" / "python"), "-m", "pytest", *args.pytest_args],
        cwd=REPO,
        env=env,
        check=False,
    ).returncode
    print(report(load(folder), args.top, args.modules))
    print(f"\n(records in {folder}; pytest exited {code})")
    return code


if __name__ == "__main__":
    sys.exit(main())
