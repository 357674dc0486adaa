"""Child process for the crash harness: runs one agent turn and SIGKILLs itself at event N.

Usage: python -m tests.core.agent.crash_child URL WORKSPACE CRASH_AT
Events are counted at hook callbacks (model call start/end, tool start/finish, after each
checkpoint), right before and after every session save, and inside tool execution, so each N
is a distinct point of the scripted tool loop.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import Any, ClassVar

from desktop.core.agent.context import ContextBuilder
from desktop.core.agent.hooks import AgentHook, HookContext
from desktop.core.bus.queue import MessageBus
from desktop.core.config.schema import Config
from desktop.core.session.manager import SessionManager
from desktop.core.tools.base import Tool, ToolContext, ToolResult
from desktop.core.tools.registry import ToolRegistry
from tests.core.agent.conftest import make_provider, new_loop

COUNTER = {"n": 0, "crash_at": -1}


def tick(label: str) -> None:
    """Count an event; die at the chosen one."""
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


async def main() -> None:
    url, workspace = sys.argv[1], Path(sys.argv[2])
    COUNTER["crash_at"] = int(sys.argv[3])
    config = Config.model_validate({"agents": {"defaults": {"workspace": str(workspace)}}})
    tools = ToolRegistry()
    tools.register(Step())
    sessions = SessionManager(workspace)
    original_save = sessions.save

    def save(session: Any) -> Path:
        tick("before save")
        path = original_save(session)
        tick("after save")
        return path

    sessions.save = save  # type: ignore[method-assign]
    loop = new_loop(
        config, make_provider(url), MessageBus(), sessions, tools, ContextBuilder(workspace)
    )
    answer = await loop.process_direct("do the task", hook=Crasher("after-checkpoint"))
    print(f"ANSWER:{answer}")
    print(f"EVENTS:{COUNTER['n']}")


if __name__ == "__main__":
    asyncio.run(main())
