"""Config edits by dotted path: all or nothing, validated, undoable, saved to a real file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop.core.config.edit import ChangeError, apply_changes, get_value
from desktop.core.config.loader import load_config, save_config
from desktop.core.config.schema import MCPServerConfig
from tests.conftest import write_config


def _file(tmp_path: Path) -> Path:
    return write_config(
        tmp_path / "config.json",
        {
            "agents": {"defaults": {"maxTokens": 1000, "workspace": str(tmp_path / "ws")}},
            "tools": {"mcpServers": {"time": {"command": "mcp-server-time"}}},
            "somethingNew": {"keep": True},
        },
    )


def test_changes_round_trip_through_the_file(tmp_path: Path) -> None:
    """Applied changes are saved camelCase; unknown keys stay; a reload sees the new values."""
    path = _file(tmp_path)
    config = load_config(path, environ={})
    apply_changes(
        config,
        {
            "agents.defaults.max_tokens": 2048,
            "agents.defaults.temperature": 0.5,
            "tools.restrict_to_workspace": True,
            "tools.mcp_servers": {
                "time": MCPServerConfig(command="mcp-server-time"),
                "clock": MCPServerConfig(command="mcp-server-time", tool_timeout=5),
            },
        },
    )
    save_config(config, path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["agents"]["defaults"]["maxTokens"] == 2048
    assert data["tools"]["restrictToWorkspace"] is True
    assert data["tools"]["mcpServers"]["clock"]["toolTimeout"] == 5
    assert data["somethingNew"] == {"keep": True}
    again = load_config(path, environ={})
    assert get_value(again, "agents.defaults.max_tokens") == 2048
    assert get_value(again, "agents.defaults.temperature") == 0.5
    assert get_value(again, "tools.mcp_servers.clock").tool_timeout == 5
    assert get_value(again, "tools.mcp_servers.time").command == "mcp-server-time"


def test_a_refused_value_leaves_nothing_applied(tmp_path: Path) -> None:
    """A later invalid value undoes the earlier ones; the file is not touched."""
    path = _file(tmp_path)
    config = load_config(path, environ={})
    with pytest.raises(ChangeError) as caught:
        apply_changes(
            config,
            {"agents.defaults.max_tokens": 4096, "agents.defaults.temperature": 9.0},
        )
    assert caught.value.path == "agents.defaults.temperature"
    assert "less than or equal to 2" in caught.value.reason
    assert not caught.value.reason.startswith("Value error")
    assert config.agents.defaults.max_tokens == 1000
    save_config(config, path)
    assert json.loads(path.read_text(encoding="utf-8"))["agents"]["defaults"]["maxTokens"] == 1000


def test_undo_restores_the_previous_values_when_a_save_fails(tmp_path: Path) -> None:
    """The returned undo puts old values back (what a page does when the file cannot be written)."""
    path = _file(tmp_path)
    config = load_config(path, environ={})
    undo = apply_changes(
        config, {"agents.defaults.max_tokens": 3000, "tools.mcp_servers.time": MCPServerConfig()}
    )
    path.write_text("{ not json", encoding="utf-8")
    with pytest.raises(Exception):  # noqa: B017 - the loader's ConfigError; the file is kept
        save_config(config, path)
    undo()
    assert config.agents.defaults.max_tokens == 1000
    assert config.tools.mcp_servers["time"].command == "mcp-server-time"
    assert path.read_text(encoding="utf-8") == "{ not json"
