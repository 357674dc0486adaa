"""Cost of the file tools' race-free path walk: read_file, write_file, list_dir, grep.

Each call resolves the path from ``/`` by directory descriptor and opens the file relative
to the checked folder (``desktop.core.utils.fsopen``); grep also runs its regex with a
time limit. This prints the time per call on a small workspace (a few folders deep, like a
real one under the home folder) and for a grep over 2,000 files of 50 lines.

Usage: python bench/file_tools.py [--calls N]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

from desktop.core.security.paths import default_protected_paths
from desktop.core.tools.base import ToolContext
from desktop.core.tools.filesystem import ListDirTool, ReadFileTool, WriteFileTool
from desktop.core.tools.search import GrepTool


async def _per_call(tool: Any, ctx: ToolContext, calls: int, **kwargs: Any) -> float:
    """Mean seconds per call over ``calls`` calls (after one warm-up call)."""
    await tool.execute(ctx, **kwargs)
    started = time.perf_counter()
    for _ in range(calls):
        await tool.execute(ctx, **kwargs)
    return (time.perf_counter() - started) / calls


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=500)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="nanobot-bench-")) / "home" / "user" / "workspace"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "mod.py").write_text("def f():\n    return 1\n" * 20)
    for index in range(2000):
        folder = root / "tree" / f"d{index % 40}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{index}.py").write_text(f"value = {index}\n" + "x = 1\n" * 49)
    ctx = ToolContext(
        workspace=root,
        restrict_to_workspace=True,
        protected_paths=default_protected_paths(root, None),
    )
    read = await _per_call(ReadFileTool(), ctx, args.calls, path="src/pkg/mod.py")
    write = await _per_call(
        WriteFileTool(), ctx, max(args.calls // 10, 10), path="src/pkg/out.txt", content="x\n"
    )
    listing = await _per_call(ListDirTool(), ctx, args.calls, path="src/pkg")
    grep = await _per_call(GrepTool(), ctx, 5, pattern=r"value = 1999\b", path="tree")
    print(f"read_file   {read * 1e6:8.0f} us/call")
    print(f"write_file  {write * 1e6:8.0f} us/call (fsync included)")
    print(f"list_dir    {listing * 1e6:8.0f} us/call")
    print(f"grep        {grep * 1e3:8.1f} ms/call (2,000 files, 100,000 lines)")


if __name__ == "__main__":
    asyncio.run(main())
