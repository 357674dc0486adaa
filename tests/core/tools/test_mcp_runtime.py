"""MCPRuntime: which manager a front end talks to, against the real ``mcp-server-time``.

Before the agent runs, a stand-in manager of its own connects the configured servers (status
and tools for the Settings page); once the agent's manager exists, the stand-in is closed (its
server process ends) and the configured servers are attached to the agent's manager.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from desktop.core.config.loader import load_config
from desktop.core.tools.mcp import MCPManager, MCPServerStatus
from desktop.core.tools.mcp.runtime import MCPRuntime, preload_sdk
from desktop.core.tools.registry import ToolRegistry
from tests.conftest import write_config
from tests.core.tools.test_mcp import alive, children_of_me

pytestmark = [
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="process checks read /proc"),
    pytest.mark.timeout(120),
]

TIME_TOOLS = ["mcp_time_convert_time", "mcp_time_get_current_time"]


def _config_file(tmp_path: Path) -> Path:
    return write_config(
        tmp_path / "config.json",
        {
            "agents": {"defaults": {"workspace": str(tmp_path / "ws")}},
            "tools": {
                "mcpServers": {
                    "time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]}
                }
            },
        },
    )


async def test_stand_in_manager_then_the_agents(tmp_path: Path) -> None:
    """The stand-in serves status and tools; the agent's manager takes over the servers."""
    config = load_config(_config_file(tmp_path), environ={})
    agent: list[MCPManager] = []
    seen: list[MCPServerStatus] = []
    runtime = MCPRuntime(config, lambda: agent[0] if agent else None, seen.append)
    assert not runtime.agent_managed
    assert runtime.current() is None and runtime.peek_statuses() == {}
    agent_registry = ToolRegistry()
    agent_manager = MCPManager({}, registry=agent_registry)
    try:
        stand_in = await runtime.manager()
        assert runtime.current() is stand_in and await runtime.manager() is stand_in
        assert stand_in.names() == ["time"]
        await stand_in.ensure_connected()
        assert runtime.peek_statuses()["time"].state == "connected"
        assert sorted(runtime.tool_names("time")) == TIME_TOOLS
        assert runtime.tool_names("absent") == []
        assert any(s.name == "time" and s.state == "connected" for s in seen)
        pids = children_of_me("mcp_server_time")
        assert len(pids) == 1

        agent.append(agent_manager)  # the runtime is ready
        assert runtime.agent_managed
        manager = await runtime.manager()
        assert manager is agent_manager and runtime.current() is agent_manager
        assert not any(alive(pid) for pid in pids)  # the stand-in's server ended
        assert agent_manager.names() == ["time"]  # the configured entry is attached
        seen.clear()
        await agent_manager.ensure_connected()
        assert set(TIME_TOOLS) <= set(agent_registry.names())  # tools for the next turn
        assert any(s.name == "time" and s.state == "connected" for s in seen)  # listener moved
        assert runtime.peek_statuses()["time"].state == "connected"

        await runtime.aclose()  # the agent's manager is the agent's to close
        assert runtime.current() is None
        assert agent_manager.status("time").state == "connected"
        seen.clear()
        await agent_manager.reconnect("time")
        assert seen == []  # no longer listening
    finally:
        await agent_manager.aclose()
    assert children_of_me("mcp_server_time") == []


async def test_aclose_ends_the_stand_in_servers(tmp_path: Path) -> None:
    config = load_config(_config_file(tmp_path), environ={})
    runtime = MCPRuntime(config, lambda: None, lambda _status: None)
    manager = await runtime.manager()
    await manager.ensure_connected()
    pids = children_of_me("mcp_server_time")
    assert len(pids) == 1
    await runtime.aclose()
    assert not any(alive(pid) for pid in pids)
    assert manager.status("time").state == "idle"


async def test_preload_sdk_imports_the_connection_module() -> None:
    await preload_sdk()
    assert "desktop.core.tools.mcp.connection" in sys.modules
