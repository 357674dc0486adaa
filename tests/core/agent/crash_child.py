"""Child process for the crash harness: runs one agent turn and SIGKILLs itself at event N.

Usage: python -m tests.core.agent.crash_child URL WORKSPACE CRASH_AT [MODE]
(the tests fork it from a pre-imported server instead: ``tests.zygote.run`` calls :func:`run`).
MODE ``events`` (the default): events are counted at hook callbacks (model call start/end,
tool start/finish, after each checkpoint), right before and after every session save, and
inside tool execution, so each N is a distinct point of the scripted tool loop.
MODE ``writes``: events are the single writes of the saves that append (new lines, the
metadata line in place); the process dies right after write N, before the save flushes.
MODE ``torn``: events are the writes of new lines; write N stops in the middle of its last line
and the process dies (as a kill in the middle of a large ``write`` can leave it).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import Any, ClassVar

from desktop.core.agent.context import ContextBuilder
from desktop.core.bus.queue import MessageBus
from desktop.core.config.schema import Config
from desktop.core.engine.hooks import AgentHook, HookContext
from desktop.core.session.manager import SessionManager
from desktop.core.tools.base import Tool, ToolContext, ToolResult
from desktop.core.tools.registry import ToolRegistry
from tests.core.agent.conftest import make_provider, new_loop

COUNTER = {"n": 0, "crash_at": -1}
MODE = {"name": "events"}


def tick(label: str, kind: str = "events") -> None:
    """Count an event of ``kind`` (when that is the mode); die at the chosen one."""
    if kind != MODE["name"]:
        return
    COUNTER["n"] += 1
    if COUNTER["n"] == COUNTER["crash_at"]:
        sys.stderr.write(f"crash at {COUNTER['n']}: {label}\n")
        sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGKILL)


class Step(Tool):
    """A tool with a crash point in the middle of its work."""

    name: ClassVar[str] = "step"
    description: ClassVar[str] = "Do a step."
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {"n": {"type": "integer"}},
    }
    read_only: ClassVar[bool] = True

    async def execute(self, ctx: ToolContext, **kwargs: Any) -> ToolResult:
        tick(f"tool {kwargs.get('n')} running")
        await asyncio.sleep(0.01)
        return ToolResult(f"step {kwargs.get('n')} done")


class Crasher(AgentHook):
    """Ticks on every hook callback."""

    def __init__(self, where: str) -> None:
        self.where = where

    async def before_iteration(self, ctx: HookContext) -> None:
        tick(f"{self.where} before_iteration {ctx.iteration}")

    async def on_stream_end(self, ctx: HookContext, response: Any) -> None:
        tick(f"{self.where} stream_end {ctx.iteration}")

    async def on_tool_started(self, ctx: HookContext, call: Any) -> None:
        tick(f"{self.where} tool_started {call.id}")

    async def on_tool_finished(
        self, ctx: HookContext, call: Any, result: Any, duration_s: float
    ) -> None:
        tick(f"{self.where} tool_finished {call.id}")

    async def on_checkpoint(self, ctx: HookContext) -> None:
        tick(f"{self.where} checkpoint {len(ctx.added)}")


def watch_saves(sessions: SessionManager, mode: str) -> None:
    """Install the crash points of ``mode`` on the session manager."""
    if mode == "events":
        original_save = sessions.save

        def save(session: Any) -> Path:
            tick("before save")
            path = original_save(session)
            tick("after save")
            return path

        sessions.save = save  # type: ignore[method-assign]
        return
    original_write = sessions._write_at

    def write(fd: int, data: bytes, offset: int) -> None:
        if mode == "writes":
            original_write(fd, data, offset)
            tick(f"wrote {len(data)} bytes at {offset}", "writes")
            return
        if offset > 0:  # new lines (the metadata line is one page: a kill never tears it)
            if COUNTER["n"] + 1 == COUNTER["crash_at"]:  # stop in the middle of the last line
                start = data.rfind(b"\n", 0, len(data) - 1) + 1
                os.pwrite(fd, data[: start + (len(data) - start) // 2], offset)
            tick(f"torn write of {len(data)} bytes at {offset}", "torn")
        original_write(fd, data, offset)

    sessions._write_at = write  # type: ignore[method-assign]


async def main(argv: list[str]) -> None:
    url, workspace = argv[0], Path(argv[1])
    COUNTER["crash_at"] = int(argv[2])
    mode = MODE["name"] = argv[3] if len(argv) > 3 else "events"
    config = Config.model_validate({"agents": {"defaults": {"workspace": str(workspace)}}})
    tools = ToolRegistry()
    tools.register(Step())
    sessions = SessionManager(workspace)
    watch_saves(sessions, mode)
    loop = new_loop(
        config, make_provider(url), MessageBus(), sessions, tools, ContextBuilder(workspace)
    )
    hook = Crasher("after-checkpoint") if mode == "events" else None
    answer = await loop.process_direct("do the task", hook=hook)
    print(f"ANSWER:{answer}")
    print(f"EVENTS:{COUNTER['n']}")


def run(argv: list[str]) -> int:
    """Run the child with ``argv`` (URL WORKSPACE CRASH_AT [MODE]); 0 when it did not crash."""
    asyncio.run(main(argv))
    return 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
