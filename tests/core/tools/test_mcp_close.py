"""Closing MCP servers while they connect: nothing may start after a close, nothing is left.

Real stdio servers (the official ``mcp-server-time``, run through a small launcher script);
processes are checked through ``/proc``.
"""

from __future__ import annotations

import asyncio
import sys
import textwrap
from pathlib import Path

import pytest

from desktop.core.config.loader import load_config
from desktop.core.config.schema import MCPServerConfig
from desktop.core.tools.mcp import MCPManager
from desktop.core.tools.mcp import runtime as mcp_runtime
from desktop.core.tools.mcp.runtime import MCPRuntime
from desktop.core.tools.registry import ToolRegistry
from tests.conftest import write_config
from tests.core.tools.test_mcp import SDK_EXIT_WAIT, children_of_me, wait_for

pytestmark = [
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="process checks read /proc"),
    pytest.mark.timeout(120),
]

# Fails the first time it runs (it leaves a marker), serves the time server every time after.
SECOND_TIME_LUCKY = textwrap.dedent(
    """
    import runpy, sys
    from pathlib import Path

    marker = Path(sys.argv[1])
    if not marker.exists():
        marker.write_text("tried", encoding="utf-8")
        sys.exit("not yet: try again")
    sys.argv = ["mcp_server_time"]
    runpy.run_module("mcp_server_time", run_name="__main__")
    """
)


def _mcp_tasks() -> list[asyncio.Task[object]]:
    """Pending tasks running a connection's owner coroutine."""
    return [
        t
        for t in asyncio.all_tasks()
        if not t.done() and "ServerConnection._own" in repr(t.get_coro())
    ]


async def test_a_close_during_a_reconnect_stops_it_before_it_starts(tmp_path: Path) -> None:
    """The manager closes while a failed server is being connected again (the next turn, or
    Reconnect in Settings): the attempt must not go on to start the server afterwards."""
    script = tmp_path / "second_time_lucky.py"
    script.write_text(SECOND_TIME_LUCKY, encoding="utf-8")
    marker = tmp_path / "tried-once"
    config = MCPServerConfig(command=sys.executable, args=[str(script), str(marker)])
    manager = MCPManager({"lucky": config}, registry=ToolRegistry())
    await manager.ensure_connected()
    assert manager.status("lucky").state == "failed" and marker.exists()

    attempt = asyncio.ensure_future(manager.connect("lucky"))
    await asyncio.sleep(0)  # the attempt is under way (waiting for the last one's task)
    await manager.aclose()
    status = await attempt

    assert status.state != "connected"
    assert _mcp_tasks() == []
    # A leaked attempt would start the server a moment later: its task would be running the
    # launch already (no task is left, checked above), so a second still shows it under load.
    assert not await wait_for(lambda: bool(children_of_me(str(script))), timeout=1.0)
    assert manager.status("lucky").state != "connected"


async def test_a_close_while_connecting_does_not_wait_for_the_handshake(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server still starting is stopped at once, not after its handshake (or timeout)."""
    monkeypatch.setattr(SDK_EXIT_WAIT, 0.2)  # the server ignores its closed input: see there
    slow = tmp_path / "slow.py"
    slow.write_text("import sys, time\ntime.sleep(60)\n", encoding="utf-8")
    config = MCPServerConfig(command=sys.executable, args=[str(slow)])
    manager = MCPManager({"slow": config}, registry=ToolRegistry(), connect_timeout=60)
    attempt = asyncio.ensure_future(manager.connect("slow"))
    assert await wait_for(lambda: bool(children_of_me(str(slow))), timeout=10.0)
    loop = asyncio.get_running_loop()
    started = loop.time()
    await manager.aclose()
    took = loop.time() - started
    status = await attempt
    assert status.state != "connected"
    assert took < 8.0, f"closing a connecting server took {took:.1f} s"
    assert children_of_me(str(slow)) == []
    assert _mcp_tasks() == []


async def test_the_first_managers_asked_for_at_once_are_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two actions at once before the SDK is loaded (e.g. Reconnect and Enable in Settings)
    share one stand-in manager; a second one would be closed by nobody."""
    path = write_config(
        tmp_path / "config.json",
        {
            "agents": {"defaults": {"workspace": str(tmp_path / "ws")}},
            "tools": {"mcpServers": {"time": {"command": sys.executable, "args": ["-m", "x"]}}},
        },
    )
    runtime = MCPRuntime(load_config(path, environ={}), lambda: None, lambda _status: None)
    # As on the first use in a session: the SDK is imported in a thread, so the call waits.
    monkeypatch.delitem(sys.modules, "desktop.core.tools.mcp.connection")
    monkeypatch.setattr(mcp_runtime, "_sdk_loaded", False)
    try:
        first, second = await asyncio.gather(runtime.manager(), runtime.manager())
        assert first is second
    finally:
        await runtime.aclose()


async def test_a_closed_runtime_makes_no_new_manager(tmp_path: Path) -> None:
    path = write_config(
        tmp_path / "config.json", {"agents": {"defaults": {"workspace": str(tmp_path / "ws")}}}
    )
    runtime = MCPRuntime(load_config(path, environ={}), lambda: None, lambda _status: None)
    await runtime.manager()
    await runtime.aclose()
    with pytest.raises(RuntimeError, match="closed"):
        await runtime.manager()
    assert runtime.current() is None
