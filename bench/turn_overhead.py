"""The agent's own overhead per model call, for sessions of 100 to 50,000 messages.

A real :class:`~desktop.core.agent.loop.AgentLoop` (built by the factory: real context builder,
real tool set, real session manager, real consolidator) runs turns against a provider stub
that answers instantly — first a call of a no-op tool, then the answer — so everything that
is measured is the agent's own work: building the request (history, system prompt), fitting
it to the context budget (token counting, dropping old turns), and saving the session (the
user message, a checkpoint after the tool call, one after the result, the end of the turn).

Each session size runs in its own child process (so a slow build cannot hang the bench; a
size that takes longer than ``--timeout`` is reported as such). Two shapes of session:

* ``raw``: nothing consolidated (``last_consolidated`` 0) and consolidation off — the request
  is cut to the budget by dropping old turns, the case that used to take minutes;
* ``consolidated``: all but the last 40 messages archived, the Consolidator on (it measures
  the request before every turn), the steady state of a long-lived session.

Per size it prints the first turn (cold caches, right after loading) and the median of the
next turns, as milliseconds per model call (a turn makes two calls), plus where the time of
the steady turns went (``fsync`` is the disk's share of ``save``). The target is at most
20 ms per call at 10,000 messages, and flat.

Usage: python bench/turn_overhead.py [--sizes 100,1000,10000,50000] [--turns 11]
       [--timeout 300] [--shape raw|consolidated|both]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, ClassVar

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TARGET_MS = 20.0
WORDS = [
    *[
        "the",
        "a",
        "file",
        "path",
        "error",
        "value",
        "function",
        "return",
        "list",
        "config",
        "session",
        "model",
        "token",
    ],
    *[
        "request",
        "agent",
        "tool",
        "result",
        "memory",
        "history",
        "cursor",
        "workspace",
        "build",
        "run",
        "test",
    ],
    *[
        "check",
        "update",
        "message",
        "python",
        "json",
        "line",
        "write",
        "read",
        "async",
        "await",
        "thread",
        "lock",
    ],
    *["process", "window", "budget", "context", "données", "résumé", "文件", "会话", "ошибка"],
]
KEY = "cli:bench"


def _text(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choices(WORDS, k=rng.randint(low, high)))


def make_messages(count: int, seed: int = 7) -> list[dict[str, Any]]:
    """A realistic mixed conversation: user asks, the assistant calls tools (one or two per
    step, one or two steps), results come back (short to 6 KB), then a markdown answer."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    turn = 0
    while len(out) < count:
        turn += 1
        stamp = f"2030-01-01T{turn % 24:02d}:{turn % 60:02d}:00"
        out.append({"role": "user", "content": _text(rng, 5, 60), "timestamp": stamp})
        for step in range(rng.randint(0, 2)):
            calls: list[dict[str, Any]] = [
                {
                    "id": f"call_{turn}_{step}_{n}",
                    "type": "function",
                    "function": {
                        "name": rng.choice(["read_file", "exec", "grep", "web_fetch"]),
                        "arguments": json.dumps({"path": f"src/{_text(rng, 1, 3)}.py"}),
                    },
                }
                for n in range(rng.randint(1, 2))
            ]
            out.append(
                {"role": "assistant", "content": "", "tool_calls": calls, "timestamp": stamp}
            )
            out.extend(
                {
                    "role": "tool",
                    "tool_call_id": call["id"],
                    "name": call["function"]["name"],
                    "content": _text(rng, 10, rng.choice([80, 300, 1000])),
                    "timestamp": stamp,
                }
                for call in calls
            )
        answer = f"## Result {turn}\n\n{_text(rng, 20, 250)}\n\n```python\nx = {turn}\n```"
        out.append({"role": "assistant", "content": answer, "timestamp": stamp})
    return out[:count]


def write_session(workspace: Path, count: int, last_consolidated: int) -> None:
    """The session file in nanobot's format (metadata line, then one message per line)."""
    folder = workspace / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    messages = make_messages(count)
    while messages and messages[-1].get("role") != "assistant":
        messages.pop()  # end on a finished turn
    meta = {
        "_type": "metadata",
        "key": KEY,
        "created_at": "2030-01-01T00:00:00",
        "updated_at": "2030-01-01T00:00:00",
        "metadata": {"title": "bench"},
        "last_consolidated": last_consolidated,
    }
    if last_consolidated:
        starts = [i for i, m in enumerate(messages) if m["role"] == "user"]
        meta["last_consolidated"] = max(i for i in starts if i <= last_consolidated)
    lines = [json.dumps(meta, ensure_ascii=False)]
    lines += [json.dumps(m, ensure_ascii=False) for m in messages]
    (folder / "cli_bench.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


# -- the child: one size, one shape -------------------------------------------------------
def _child(count: int, shape: str, turns: int) -> dict[str, Any]:
    from desktop.core.agent.loop import AgentLoop
    from desktop.core.agent.work import SessionWork
    from desktop.core.assembly import build_runtime
    from desktop.core.config.schema import Config
    from desktop.core.engine import runner as runner_module
    from desktop.core.providers.base import LLMProvider, LLMResponse, ToolCallRequest, Usage
    from desktop.core.session import manager as manager_module
    from desktop.core.tools.base import Tool, ToolContext, ToolResult
    from desktop.core.utils.tasks import TaskOwner

    spent: dict[str, float] = defaultdict(float)

    def timed(name: str, func: Any) -> Any:
        if asyncio.iscoroutinefunction(func):

            async def wrapper_async(*args: Any, **kwargs: Any) -> Any:
                start = time.perf_counter()
                try:
                    return await func(*args, **kwargs)
                finally:
                    spent[name] += time.perf_counter() - start

            return wrapper_async

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return func(*args, **kwargs)
            finally:
                spent[name] += time.perf_counter() - start

        return wrapper

    class Instant(LLMProvider):
        """Calls the no-op tool when the request ends with the user's message, else answers."""

        calls = 0
        sent: ClassVar[list[int]] = []

        @property
        def model(self) -> str:
            return "bench"

        async def chat(self, messages: list[dict[str, Any]], *a: Any, **k: Any) -> LLMResponse:
            Instant.calls += 1
            Instant.sent.append(len(messages))
            if messages[-1].get("role") == "user" and k.get("max_tokens") != 1024:
                call = ToolCallRequest(f"b{Instant.calls}", "bench_noop", {"n": Instant.calls})
                return LLMResponse("", tool_calls=[call], finish_reason="tool_calls")
            return LLMResponse("Done: " + "ok " * 60, usage=Usage(10, 60))

        async def chat_stream(self, messages: list[dict[str, Any]], *a: Any, **k: Any) -> Any:
            return await self.chat(messages, *a, **k)

    class Noop(Tool):
        name: ClassVar[str] = "bench_noop"
        description: ClassVar[str] = "Does nothing."
        parameters: ClassVar[dict[str, Any]] = {
            "type": "object",
            "properties": {"n": {"type": "integer"}},
        }
        read_only: ClassVar[bool] = True

        async def execute(self, ctx: ToolContext, **kwargs: Any) -> ToolResult:
            return ToolResult("noop " + "result " * 40)

    workspace = Path(tempfile.mkdtemp(prefix="nanobot-turn-bench-"))
    write_session(workspace, count, (count - 40) if shape == "consolidated" else 0)
    size_mb = (workspace / "sessions" / "cli_bench.jsonl").stat().st_size / 1e6
    config = Config.model_validate({"agents": {"defaults": {"workspace": str(workspace)}}})

    os.fsync = timed("fsync", os.fsync)  # disk latency, part of saving (shown on its own)
    if hasattr(os, "fdatasync"):
        os.fdatasync = timed("fsync", os.fdatasync)
    runner_module.drop_oldest_turns = timed("trim", runner_module.drop_oldest_turns)
    runner_module._unique_call_ids = timed("call_ids", runner_module._unique_call_ids)
    manager_module.Session.repair = timed("repair", manager_module.Session.repair)  # type: ignore[method-assign]
    runner_module.estimate_request = timed("estimate", runner_module.estimate_request)
    manager_module.Session.get_history = timed("history", manager_module.Session.get_history)  # type: ignore[method-assign]
    runtime = build_runtime(config, Instant())
    runtime.tools.register(Noop())
    # Instrumentation for this measurement only: time the parts of a turn.
    runtime.sessions.save = timed("save", runtime.sessions.save)  # type: ignore[method-assign]
    context = runtime.agent.context
    context.build_messages = timed("build", context.build_messages)  # type: ignore[method-assign]

    class TimedConsolidation:
        """The real Consolidator, timed."""

        def __init__(self, real: Any) -> None:
            self.maybe_consolidate = timed("consolidator", real.maybe_consolidate)
            self.archive_all = real.archive_all
            self.compact = real.compact

    agent = AgentLoop(
        config=config,
        provider=runtime.provider,
        bus=runtime.bus,
        sessions=runtime.sessions,
        tools=runtime.tools,
        context=context,
        work=SessionWork(),
        owner=TaskOwner("bench"),
        consolidation=(
            TimedConsolidation(runtime.memory.consolidator) if shape == "consolidated" else None
        ),
    )

    start = time.perf_counter()
    session = agent.sessions.get_or_create(KEY)
    load_s = time.perf_counter() - start
    loaded = len(session.messages)

    async def run() -> list[tuple[float, float, int]]:
        results = []
        for n in range(turns):
            calls, flushed = Instant.calls, spent["fsync"]
            begin = time.perf_counter()
            await agent.process_direct(
                f"turn {n}: please check the file", session_key=KEY, chat_id="bench"
            )
            took = time.perf_counter() - begin
            results.append((took, spent["fsync"] - flushed, Instant.calls - calls))
            if n == 0:
                spent.clear()
        await agent.stop()
        return results

    results = asyncio.run(run())
    first, _, first_calls = results[0]
    steady = [t / c for t, _, c in results[1:]]
    steady_cpu = [(t - f) / c for t, f, c in results[1:]]
    steady_calls = sum(c for _, _, c in results[1:])
    return {
        "count": loaded,
        "mb": size_mb,
        "load_ms": load_s * 1000,
        "first_ms": first / first_calls * 1000,
        "steady_ms": statistics.median(steady) * 1000,
        "cpu_ms": statistics.median(steady_cpu) * 1000,
        "sent": Instant.sent[-1],
        "parts": {k: v / steady_calls * 1000 for k, v in spent.items()},
    }


# -- the parent: one child per size -------------------------------------------------------
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,10000,50000")
    parser.add_argument("--turns", type=int, default=11)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--shape", choices=["raw", "consolidated", "both"], default="both")
    parser.add_argument("--child", nargs=2, metavar=("COUNT", "SHAPE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_child(int(args.child[0]), args.child[1], args.turns)))
        return 0
    shapes = ["raw", "consolidated"] if args.shape == "both" else [args.shape]
    worst = 0.0
    print(
        f"{'shape':<13}{'messages':>9}{'MB':>7}{'load ms':>9}{'1st call':>10}{'steady':>9}"
        f"{'no fsync':>10}  ms per model call; then the mean split of the steady calls"
    )
    for shape in shapes:
        for size in (int(s) for s in args.sizes.split(",")):
            command = [sys.executable, __file__, "--child", str(size), shape]
            command += ["--turns", str(args.turns)]
            try:
                done = subprocess.run(
                    command, capture_output=True, text=True, timeout=args.timeout, check=False
                )
            except subprocess.TimeoutExpired:
                print(f"{shape:<13}{size:>9}  no result within {args.timeout:.0f} s")
                worst = float("inf")
                continue
            if done.returncode != 0:
                print(f"{shape:<13}{size:>9}  failed:\n{done.stderr[-2000:]}")
                return 2
            r = json.loads(done.stdout.strip().splitlines()[-1])
            parts = " ".join(f"{k}={v:.2f}" for k, v in sorted(r["parts"].items()))
            print(
                f"{shape:<13}{r['count']:>9}{r['mb']:>7.1f}{r['load_ms']:>9.0f}"
                f"{r['first_ms']:>10.1f}{r['steady_ms']:>9.2f}{r['cpu_ms']:>10.2f}  {parts}"
                f" (sent {r['sent']} msgs)"
            )
            if size == 10_000:
                worst = max(worst, r["steady_ms"])
    print(
        f"target: <= {TARGET_MS:.0f} ms per call at 10,000 messages (steady). 'no fsync': the"
        " same without the time the disk took to flush (it varies with other load on the disk)."
    )
    return 0 if worst <= TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
