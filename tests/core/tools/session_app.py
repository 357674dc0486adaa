"""A stand-in for the app in exec-session tests: a real process that keeps a session open.

Run as ``python -m tests.core.tools.session_app SPEC.json``. The spec names a state folder,
the workspace, the ``tools.exec`` settings, the command that starts the session and the
input sent to it. The app starts the session through the real ``exec`` (``yield_time_ms``)
and ``exec_session`` tools, writes ``app.pid`` and the two results into ``results.json``,
and then waits (for the test to ``kill -9`` it).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from desktop.core.config.schema import ExecToolConfig
from desktop.core.tools.base import ToolContext
from desktop.core.tools.registry import ToolRegistry
from desktop.core.tools.shell import exec_tools
from desktop.core.tools.shell_sessions import ExecSessions
from desktop.core.utils.tasks import TaskOwner


async def _run(spec: dict[str, Any], state: Path) -> None:
    owner = TaskOwner("session-app")
    registry = ToolRegistry()
    config = ExecToolConfig.model_validate(spec.get("exec", {}))
    for tool in exec_tools(config, sessions=ExecSessions(owner)):
        registry.register(tool)
    ctx = ToolContext(workspace=Path(spec["workspace"]))
    (state / "app.pid").write_text(str(os.getpid()))
    # Neither call waits: the test waits for what the input starts (by its processes).
    started = await registry.execute(
        "exec", {"command": spec["command"], "yield_time_ms": 0, "timeout": 600}, ctx
    )
    sid = started.text.split("[session_id=", 1)[1][:12]
    arguments = {"session_id": sid, "input": spec["input"], "timeout_ms": 0}
    sent = await registry.execute("exec_session", arguments, ctx)
    tmp = state / "results.json.tmp"
    tmp.write_text(json.dumps([started.text, sent.text]))
    tmp.replace(state / "results.json")
    await asyncio.Event().wait()  # until killed


def main() -> None:
    """Entry point (see the module docstring)."""
    spec = json.loads(Path(sys.argv[1]).read_text())
    asyncio.run(_run(spec, Path(spec["state"])))


if __name__ == "__main__":
    main()
