"""A stand-in for the app in sandbox tests: a real process that runs ``exec`` tool calls.

Run as ``python -m tests.core.tools.sandbox_app SPEC.json``. The spec names a state folder,
the workspace, the ``tools.exec`` settings and the commands. With ``"launcher": true`` the
process starts a copy of itself (same environment) and waits for it, so the app has a
parent that holds the same secrets (the "grandparent" of the command).

The app writes ``app.pid`` (and the launcher ``launcher.pid``) into the state folder, runs
each command through the real :class:`ToolRegistry` (``{app_pid}`` and ``{launcher_pid}``
are filled in), and writes ``results.json``.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from desktop.core.config.schema import ExecToolConfig
from desktop.core.security.paths import default_protected_paths
from desktop.core.tools.base import ToolContext
from desktop.core.tools.registry import ToolRegistry
from desktop.core.tools.shell import ExecTool
from desktop.core.utils.redact import register_secret


async def _run(spec: dict[str, Any], state: Path) -> None:
    registry = ToolRegistry()
    registry.register(ExecTool(ExecToolConfig.model_validate(spec.get("exec", {}))))
    workspace = Path(spec["workspace"])
    config = Path(spec["config"]) if spec.get("config") else None
    ctx = ToolContext(
        workspace=workspace, protected_paths=default_protected_paths(workspace, config)
    )
    for secret in spec.get("register", []):
        register_secret(secret)
    launcher = (state / "launcher.pid").read_text() if (state / "launcher.pid").exists() else "0"
    results = []
    for command in spec["commands"]:
        text = command.replace("{app_pid}", str(os.getpid())).replace("{launcher_pid}", launcher)
        result = await registry.execute(
            "exec", {"command": text, "timeout": spec.get("timeout", 60)}, ctx
        )
        results.append({"command": text, "text": result.text, "error": result.is_error})
    tmp = state / "results.json.tmp"
    tmp.write_text(json.dumps(results))
    tmp.replace(state / "results.json")


def main() -> None:
    """Entry point (see the module docstring)."""
    spec_path = Path(sys.argv[1])
    spec = json.loads(spec_path.read_text())
    state = Path(spec["state"])
    if spec.get("launcher") and not os.environ.get("SANDBOX_APP_CHILD"):
        (state / "launcher.pid").write_text(str(os.getpid()))
        env = {**os.environ, "SANDBOX_APP_CHILD": "1"}
        sys.exit(subprocess.call([sys.executable, "-m", __spec__.name, str(spec_path)], env=env))
    (state / "app.pid").write_text(str(os.getpid()))
    asyncio.run(_run(spec, state))


if __name__ == "__main__":
    main()
