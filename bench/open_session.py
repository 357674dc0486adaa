"""Time to first paint when opening a 10,000-message session in the Chat tab.

Writes a session of 10,000 messages (markdown answers, code, tool calls and results) in
nanobot's JSONL format, then for each run builds a fresh Chat tab with a fresh session manager
(so the file is parsed from scratch) and measures from ``open_session(key)`` to the first
paint of the conversation view that shows the session's rows. The target is 300 ms.

Usage: python bench/open_session.py [--runs 5] [--messages 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TARGET_MS = 300.0
ANSWER = (
    "Here is what I found about **item {i}**:\n\n"
    "- the first point, with `inline code`\n- a second point and a link https://example.com/{i}\n\n"
    "```python\ndef item_{i}(x: int) -> int:\n    return x * {i}\n```\n\n"
    "| key | value |\n|-----|------:|\n| n | {i} |\n"
)


def write_big_session(workspace: Path, key: str, count: int) -> Path:
    """A session of ``count`` messages (user, assistant with a tool call, tool result,
    assistant answer, repeated), already consolidated into memory as a long-lived nanobot
    session would be (``last_consolidated`` at the end)."""
    folder = workspace / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    stamp = "2030-01-01T00:00:00"
    lines = [
        json.dumps(
            {
                "_type": "metadata",
                "key": key,
                "created_at": stamp,
                "updated_at": stamp,
                "metadata": {"title": "Big session"},
                "last_consolidated": count,
            }
        )
    ]
    i = 0
    while len(lines) - 1 < count:
        call = {
            "id": f"c{i}",
            "type": "function",
            "function": {"name": "read_file", "arguments": json.dumps({"path": f"notes/{i}.md"})},
        }
        for message in (
            {"role": "user", "content": f"Question number {i}: what about item {i}?"},
            {"role": "assistant", "content": "", "tool_calls": [call]},
            {
                "role": "tool",
                "tool_call_id": f"c{i}",
                "name": "read_file",
                "content": f"contents of note {i}\n" * 5,
            },
            {"role": "assistant", "content": ANSWER.format(i=i)},
        ):
            if len(lines) - 1 < count:
                lines.append(json.dumps({**message, "timestamp": stamp}))
        i += 1
    path = folder / (key.replace(":", "_") + ".jsonl")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def percentile(values: list[float], fraction: float) -> float:
    """The ``fraction`` quantile (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--messages", type=int, default=10_000)
    args = parser.parse_args()

    import qasync
    from PySide6.QtWidgets import QApplication

    from desktop.core.config.schema import Config
    from desktop.ui.chat.chat_tab import ChatTab
    from desktop.ui.services import AppServices

    found = QApplication.instance()
    app = found if isinstance(found, QApplication) else QApplication(sys.argv)
    app.setQuitOnLastWindowClosed(False)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    root = Path(tempfile.mkdtemp(prefix="bench-open-"))
    workspace = root / "ws"
    key = "desktop:big"
    started = time.perf_counter()
    path = write_big_session(workspace, key, args.messages)
    print(
        f"session: {args.messages:,} messages, {path.stat().st_size / 1e6:.1f} MB "
        f"(written in {time.perf_counter() - started:.1f} s)"
    )
    config = Config.model_validate({"agents": {"defaults": {"workspace": str(workspace)}}})

    async def one_run() -> tuple[float, int]:
        services = AppServices(config, root / "config.json", None)  # type: ignore[arg-type]
        tab = ChatTab(services)
        tab.resize(1024, 700)
        tab.show()
        await asyncio.sleep(0.3)  # the tab settles (it lists sessions at start)
        await asyncio.sleep(0)
        tab.current = ""
        tab._models.clear()
        view = tab.pane.view
        done = asyncio.get_running_loop().create_future()
        began = time.perf_counter()

        def painted() -> None:
            model = view.model()
            if model is not None and model.rowCount() >= args.messages // 2 and not done.done():
                done.set_result(time.perf_counter() - began)

        view.painted.connect(painted)
        tab.open_session(key)
        async with asyncio.timeout(30):
            elapsed = await done
        rows = model.rowCount() if (model := view.model()) is not None else 0
        await tab.aclose()
        tab.close()
        tab.deleteLater()
        await asyncio.sleep(0.05)
        gc.collect()
        return elapsed * 1000, rows

    async def run_all() -> list[float]:
        times = []
        for run in range(args.runs):
            ms, rows = await one_run()
            times.append(ms)
            print(f"run {run + 1}: first paint {ms:.0f} ms ({rows:,} rows)")
        return times

    with loop:
        times = loop.run_until_complete(run_all())
    median = statistics.median(times)
    print(
        f"first paint: median {median:.0f} ms, max {max(times):.0f} ms "
        f"(target ≤ {TARGET_MS:.0f} ms) → {'OK' if median <= TARGET_MS else 'OVER'}"
    )
    return 0 if median <= TARGET_MS else 1


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    os._exit(code)  # skip interpreter teardown of Qt objects (a PySide6 finalisation crash)
