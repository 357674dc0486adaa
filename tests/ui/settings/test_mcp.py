"""MCP servers page against real servers: the official ``mcp-server-time`` over stdio."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from desktop.core.assembly import build_runtime
from desktop.ui.services import AppServices
from desktop.ui.settings import SettingsTab
from desktop.ui.settings.mcp_entries import EntryError, needs_approval, parse_servers
from desktop.ui.settings.mcp_page import MCPPage
from tests.core.agent.conftest import make_provider
from tests.core.tools.test_mcp import children_of_me
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.ui.conftest import run_async
from tests.ui.settings.conftest import on_disk

pytestmark = pytest.mark.timeout(180)

PYTHON = sys.executable
TIME_TOOLS = ["mcp_time_convert_time", "mcp_time_get_current_time"]


def mcp_page(tab: SettingsTab) -> MCPPage:
    tab.show_section("mcp")
    page = tab.page("mcp")
    assert isinstance(page, MCPPage)
    return page


def fill_time_server(page: MCPPage) -> None:
    page.add_button.click()
    assert page.mode.currentWidget() is page.editor
    page.editor.name.setText("time")
    page.editor.command.setText(PYTHON)
    page.editor.args.setText("-m mcp_server_time --local-timezone Europe/Berlin")


def test_adding_a_stdio_server_asks_for_approval_then_shows_status_and_tools(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    config_path: Path,
) -> None:
    """The exact command is shown first; nothing runs before approval; then connected + tools."""
    tab = make_tab()
    page = mcp_page(tab)
    assert page.empty.isVisibleTo(page)
    fill_time_server(page)
    page.editor.ok.click()
    assert page.mode.currentWidget() is page.approval
    summaries = [
        w.text()
        for w in page.approval.list_widget.findChildren(QLabel)
        if w.text().startswith("Runs:")
    ]
    assert summaries == [f"Runs: {PYTHON} -m mcp_server_time --local-timezone Europe/Berlin"]
    assert page.runtime.current() is None  # nothing launched, nothing saved yet
    assert "time" not in on_disk(config_path)["tools"].get("mcpServers", {})
    page.approval.approve.click()
    qtbot.waitUntil(
        lambda: (
            page.statuses.get("time") is not None and page.statuses["time"].state == "connected"
        ),
        timeout=60_000,
    )
    assert page.mode.currentWidget() is page.overview
    saved = on_disk(config_path)["tools"]["mcpServers"]["time"]
    assert saved["command"] == PYTHON and saved["args"] == [
        "-m",
        "mcp_server_time",
        "--local-timezone",
        "Europe/Berlin",
    ]
    assert saved.get("type") is None  # the transport is implied by "command"
    qtbot.waitUntil(lambda: page.details.tools.count() == 2)
    assert sorted(page.details.tools.item(i).text() for i in range(2)) == TIME_TOOLS
    assert page.details.status.text() == "Connected with 2 tools"
    assert "Connected with 2 tools" in page.list.item(0).text()
    # Reconnect restarts it and comes back connected.
    status = run_async(qtbot, qloop, page.reconnect("time"), 60_000)
    assert status is not None and status.state == "connected"
    # Disable stops it; enable connects again.
    assert run_async(qtbot, qloop, page.set_enabled("time", False), 60_000)
    assert on_disk(config_path)["tools"]["mcpServers"]["time"]["enabled"] is False
    assert page.details.status.text() == "Disabled" and page.details.toggle.text() == "Enable"
    assert page.runtime.tool_names("time") == []
    assert run_async(qtbot, qloop, page.set_enabled("time", True), 60_000)
    assert "enabled" not in on_disk(config_path)["tools"]["mcpServers"]["time"]
    qtbot.waitUntil(lambda: page.statuses["time"].state == "connected", timeout=60_000)


def test_cancelling_the_approval_saves_and_starts_nothing(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    config_path: Path,
) -> None:
    before = config_path.read_bytes()
    tab = make_tab()
    page = mcp_page(tab)
    fill_time_server(page)
    page.editor.ok.click()
    page.approval.cancel.click()
    assert page.mode.currentWidget() is page.overview
    assert config_path.read_bytes() == before
    assert page.runtime.current() is None
    assert children_of_me("mcp_server_time") == []


def test_editor_rejects_bad_input_inline(
    make_tab: Callable[[], SettingsTab], config_path: Path
) -> None:
    before = config_path.read_bytes()
    page = mcp_page(make_tab())
    page.add_button.click()
    page.editor.name.setText("bad name!")
    page.editor.ok.click()
    assert "Name" in page.editor.status.text() and page.mode.currentWidget() is page.editor
    page.editor.name.setText("x")
    page.editor.command.setText("")
    page.editor.ok.click()
    assert "Command" in page.editor.status.text()
    page.editor.transport.setCurrentIndex(page.editor.transport.findData("streamableHttp"))
    page.editor.url.setText("not a url")
    page.editor.ok.click()
    assert "URL" in page.editor.status.text()
    page.editor.url.setText("http://127.0.0.1:9/mcp")
    page.editor.headers.setPlainText("Authorization Bearer x")
    page.editor.ok.click()
    assert "Headers: line 1" in page.editor.status.text()
    assert config_path.read_bytes() == before


CLAUDE_JSON = {
    "mcpServers": {
        "time": {"command": PYTHON, "args": ["-m", "mcp_server_time"]},
        "broken": {
            "command": PYTHON,
            "args": [
                "-c",
                "import sys; print('boom: missing config', file=sys.stderr); sys.exit(3)",
            ],
        },
        "remote": {
            "url": "http://127.0.0.1:9/mcp",
            "headers": {"Authorization": "Bearer sk-remote-secret-123456"},
        },
    }
}


def test_claude_desktop_import_reviews_every_server_and_reports_failures(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    config_path: Path,
) -> None:
    """Pasted JSON → review with commands → approve two of three → live status, stderr tail."""
    tab = make_tab()
    page = mcp_page(tab)
    page.import_button.click()
    page.importer.text.setPlainText("{not json")
    page.importer.next.click()
    assert "Not valid JSON" in page.importer.status.text()
    page.importer.text.setPlainText(json.dumps(CLAUDE_JSON))
    page.importer.next.click()
    assert page.mode.currentWidget() is page.approval
    assert set(page.approval.boxes) == {"time", "broken", "remote"}
    page.approval.boxes["remote"].setChecked(False)
    page.approval.approve.click()
    qtbot.waitUntil(
        lambda: all(
            page.statuses.get(n) is not None and page.statuses[n].state in ("connected", "failed")
            for n in ("time", "broken")
        ),
        timeout=60_000,
    )
    servers = on_disk(config_path)["tools"]["mcpServers"]
    assert set(servers) == {"time", "broken"}
    assert page.statuses["time"].state == "connected"
    assert page.statuses["broken"].state == "failed"
    page.show_server("broken")
    assert page.details.status.kind == "error" and page.details.status.text().startswith("Failed:")
    page.details.stderr_toggle.click()
    qtbot.waitUntil(
        lambda: "boom: missing config" in page.details.stderr.toPlainText(), timeout=10_000
    )
    assert page.details.reconnect.text() == "Reconnect"
    # Remove and undo.
    assert run_async(qtbot, qloop, page.remove_server("broken"), 60_000)
    assert "broken" not in on_disk(config_path)["tools"]["mcpServers"]
    assert page.undo_button.isVisible()
    page.undo_button.click()
    qtbot.waitUntil(lambda: "broken" in on_disk(config_path)["tools"]["mcpServers"], timeout=30_000)
    # Closing the tab (as the app does on quit) stops every server the import started, even
    # with the undo's reconnect still under way.
    assert children_of_me("mcp_server_time")
    run_async(qtbot, qloop, tab.aclose(), 60_000)
    assert children_of_me("mcp_server_time") == []
    assert children_of_me("boom: missing config") == []
    assert not [t for t in asyncio.all_tasks(qloop) if "ServerConnection" in repr(t.get_coro())]


def test_closing_the_tab_while_imported_servers_connect_stops_them(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    config_path: Path,
    tmp_path: Path,
) -> None:
    """Approved servers still starting when the app quits are stopped, not left running."""
    slow = tmp_path / "slow_server.py"
    slow.write_text("import time\ntime.sleep(120)\n", encoding="utf-8")
    servers = {
        "time": {"command": PYTHON, "args": ["-m", "mcp_server_time"]},
        "slow": {"command": PYTHON, "args": [str(slow)]},
    }
    tab = make_tab()
    page = mcp_page(tab)
    page.import_button.click()
    page.importer.text.setPlainText(json.dumps({"mcpServers": servers}))
    page.importer.next.click()
    page.approval.approve.click()
    qtbot.waitUntil(lambda: bool(children_of_me(str(slow))), timeout=60_000)
    assert page.statuses["slow"].state == "connecting"
    started = qloop.time()
    run_async(qtbot, qloop, tab.aclose(), 60_000)
    took = qloop.time() - started
    assert took < 8, f"closing took {took:.1f} s"  # stopped, not waited out (up to 30 s)
    assert children_of_me(str(slow)) == [] and children_of_me("mcp_server_time") == []
    assert not [t for t in asyncio.all_tasks(qloop) if "ServerConnection" in repr(t.get_coro())]
    assert set(on_disk(config_path)["tools"]["mcpServers"]) == {"time", "slow"}  # kept


def test_server_added_in_settings_serves_the_running_agent(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    services: AppServices,
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """With a runtime built without MCP servers: the server joins the agent's tool registry."""
    runtime = build_runtime(services.config, make_provider(scripted_server.url))
    assert runtime.mcp.names() == []
    services.set_runtime(runtime)
    tab = make_tab()
    page = mcp_page(tab)
    assert "live from the running agent" in page.where.text()
    fill_time_server(page)
    page.editor.ok.click()
    page.approval.approve.click()
    qtbot.waitUntil(
        lambda: (
            page.statuses.get("time") is not None and page.statuses["time"].state == "connected"
        ),
        timeout=60_000,
    )
    assert runtime.mcp in runtime.agent.connectors
    assert set(TIME_TOOLS) <= set(runtime.tools.names())
    run_async(qtbot, qloop, runtime.stop(), 60_000)  # stopping the runtime stops the child
    assert runtime.mcp.status("time").state == "idle"


def test_parse_servers_shapes_and_errors() -> None:
    """Claude Desktop, bare mapping and whole-config shapes; clear errors otherwise."""
    entry = {"command": "uvx", "args": ["mcp-server-time"]}
    for text in (
        json.dumps({"mcpServers": {"t": entry}}),
        json.dumps({"t": entry}),
        json.dumps({"tools": {"mcpServers": {"t": entry}}}),
    ):
        assert list(parse_servers(text)) == ["t"]
    for bad, words in (
        ("", "Paste"),
        ("[]", "JSON object"),
        ('{"mcpServers": {}}', "No servers"),
        ('{"mcpServers": {"a b": {"command": "x"}}}', "Server name"),
        ('{"mcpServers": {"t": {"args": []}}}', "needs a 'command'"),
        ('{"mcpServers": {"t": {"command": "x", "toolTimeout": 0}}}', "toolTimeout"),
    ):
        with pytest.raises(EntryError, match=words):
            parse_servers(bad)
    servers = parse_servers(json.dumps({"mcpServers": {"t": entry}}))
    changed = servers["t"].model_copy(update={"args": ["other"]})
    assert needs_approval(servers["t"], None) and needs_approval(changed, servers["t"])
    assert not needs_approval(servers["t"].model_copy(update={"tool_timeout": 99}), servers["t"])


def test_editing_renames_and_only_new_commands_need_approval(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    services: AppServices,
    config_path: Path,
) -> None:
    """An HTTP entry is renamed without approval; a changed stdio command asks again."""
    from desktop.core.config.schema import MCPServerConfig

    services.config.tools.mcp_servers = {
        "remote": MCPServerConfig(url="http://127.0.0.1:9/mcp"),
        "tool": MCPServerConfig(command="definitely-not-installed-xyz", enabled_tools=[]),
    }
    run_async(qtbot, qloop, services.save_config())
    page = mcp_page(make_tab())
    page.edit_server("remote")
    assert page.editor.url.text() == "http://127.0.0.1:9/mcp"
    page.editor.name.setText("remote2")
    page.editor.timeout.setValue(99)
    page.editor.ok.click()
    qtbot.waitUntil(
        lambda: "remote2" in on_disk(config_path)["tools"]["mcpServers"], timeout=30_000
    )
    servers = on_disk(config_path)["tools"]["mcpServers"]
    assert "remote" not in servers and servers["remote2"]["toolTimeout"] == 99
    page.edit_server("tool")
    page.editor.name.setText("tool")
    page.editor.args.setText("--flag 'two words'")
    page.editor.ok.click()
    assert page.mode.currentWidget() is page.approval
    assert any(
        "definitely-not-installed-xyz --flag 'two words'" in label.text()
        for label in page.approval.list_widget.findChildren(QLabel)
    )
    page.approval.cancel.click()
    assert on_disk(config_path)["tools"]["mcpServers"]["tool"]["args"] == []


def test_the_status_refresh_ticks_only_while_the_page_is_shown(
    make_tab: Callable[[], SettingsTab], qtbot: QtBot
) -> None:
    """A configured server is selected when the page loads (at start-up, with the agent): its
    details refresh every second while the page is visible, and nothing ticks while it is
    hidden (before: a 1 s timer ran for the app's whole life once any MCP server existed)."""
    from desktop.core.config.schema import MCPServerConfig

    tab = make_tab()
    page = tab.page("mcp")
    assert isinstance(page, MCPPage)
    config = MCPServerConfig.model_validate({"command": PYTHON, "enabled": False})
    tab.services.config.tools.mcp_servers["idle"] = config
    page.load()
    assert page.current_name() == "idle" and not page.isVisible()
    assert not page._refresh_timer.isActive()
    tab.show_section("mcp")
    qtbot.waitUntil(page.isVisible)
    assert page._refresh_timer.isActive()
    tab.show_section("providers")
    qtbot.waitUntil(lambda: not page.isVisible())
    assert not page._refresh_timer.isActive()
