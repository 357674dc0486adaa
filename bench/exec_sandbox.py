"""What the exec sandbox costs per command: ``true`` and a Python one-liner, with and without it.

Runs each command ``--runs`` times through the real ``ExecTool`` (safety rules, sandbox set-up
in a worker thread, bwrap, output collection) in a workspace holding the usual state files,
and prints the median and 90th percentile wall time per call for ``tools.exec.sandbox`` set
to ``"bwrap"`` and to ``"none"``, plus the difference of the medians. The two modes
alternate call by call, so load from other processes hits both alike. The one-time
detection probe is run (and timed) first, so it is not counted in the per-command figures.

Usage: python bench/exec_sandbox.py [--runs 30]
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


if TYPE_CHECKING:
    from desktop.core.tools.base import ToolContext
    from desktop.core.tools.shell import ExecTool


async def _measure(
    tools: dict[str, ExecTool], ctx: ToolContext, command: str, runs: int
) -> dict[str, list[float]]:
    """Wall times (ms) per mode, the modes alternating call by call."""
    times: dict[str, list[float]] = {mode: [] for mode in tools}
    for _ in range(runs):
        for mode, tool in tools.items():
            started = time.perf_counter()
            result = await tool.execute(ctx, command=command)
            times[mode].append((time.perf_counter() - started) * 1000)
            assert result.text.endswith("[exit code: 0]"), result.text
    return times


def _figures(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    return statistics.median(ordered), ordered[int(0.9 * (len(ordered) - 1))]


async def main(runs: int) -> None:
    from desktop.core.config.schema import ExecToolConfig
    from desktop.core.security.paths import default_protected_paths
    from desktop.core.security.sandbox import probe_sandbox, reset_sandbox_status
    from desktop.core.tools.base import ToolContext
    from desktop.core.tools.shell import ExecTool

    reset_sandbox_status()
    started = time.perf_counter()
    status = await probe_sandbox()
    probe_ms = (time.perf_counter() - started) * 1000
    print(f"detection probe (once per process): {probe_ms:.0f} ms — {status.describe()}")
    if not status.available:
        return
    with tempfile.TemporaryDirectory(dir="/var/tmp") as folder:
        ws = Path(folder) / "ws"
        for sub in ("sessions", "memory", "cron", ".git"):
            (ws / sub).mkdir(parents=True)
        (ws / "memory" / "history.jsonl").write_text("{}\n")
        (ws / "memory" / ".cursor").write_text("1")
        config = Path(folder) / "config.json"
        config.write_text("{}")
        ctx = ToolContext(workspace=ws, protected_paths=default_protected_paths(ws, config))
        python = f"{shlex.quote(sys.executable)} -c 'print(1)'"
        print(f"{'command':<12} {'mode':<9} {'median ms':>10} {'p90 ms':>8}")
        tools = {mode: ExecTool(ExecToolConfig(sandbox=mode)) for mode in ("bwrap", "none")}
        for label, command in (("true", "true"), ("python -c", python)):
            await _measure(tools, ctx, command, 3)  # warm caches
            times = await _measure(tools, ctx, command, runs)
            medians = {}
            for mode, values in times.items():
                median, p90 = _figures(values)
                medians[mode] = median
                print(f"{label:<12} {mode:<9} {median:>10.1f} {p90:>8.1f}")
            print(f"{label:<12} {'overhead':<9} {medians['bwrap'] - medians['none']:>10.1f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    asyncio.run(main(parser.parse_args().runs))
