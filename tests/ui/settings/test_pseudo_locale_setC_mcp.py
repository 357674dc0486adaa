"""Settings › MCP servers in the pseudo locale: the overview (empty, servers in every state),
the form (new, a preset, an error), the import panel (each kind of bad JSON), the approval
step and Undo remove; every text went through the translation system. In zh_CN it reads
Chinese."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from desktop.core.config.schema import MCPServerConfig
from desktop.core.tools.mcp import MCPServerStatus
from desktop.core.tools.mcp.presets import PRESETS
from desktop.ui.i18n import install_language
from desktop.ui.settings import SettingsTab
from desktop.ui.settings.mcp_page import MCPPage
from tests.ui.conftest import run_async
from tests.ui.i18n.pseudo import pseudo_locale, untranslated

TIME: dict[str, Any] = {
    "command": "uvx",
    "args": ["mcp-server-time"],
    "env": {"TZ": "UTC", "API_TOKEN": "x"},
}
WEB_URL = "https://mcp.example.com/mcp"
WEB: dict[str, Any] = {"url": WEB_URL, "headers": {"X-Trace": "1"}}
# What the test puts on screen: server names, commands, URLs, tool names, errors of servers.
DATA = [
    "uvx mcp-server-time",
    "mcp-server-time",
    "TZ=UTC",
    "API_TOKEN",
    "X-Trace",
    "get_current_time",
    "convert_time",
    "connection refused",
    "time",
    "web",
    "off",
]
# The presets' command lines and addresses and the brands among their names (the core's data;
# their ``<…>`` placeholders are typed over by the person), and the import's JSON example.
PRESET_DATA = [
    *(re.sub(r"<[^>]+>", " ", preset.where) for preset in PRESETS),  # as the check reads them
    *(preset.docs_url for preset in PRESETS),
    *("Git", "Playwright", "GitHub", "Notion", "Linear", "Microsoft Learn", "Exa"),
    *("Node.js", "uv"),
    '{\n  "mcpServers": {\n    "time": {"command": "uvx", "args": ["mcp-server-time"]}\n  }\n}',
]
DATA += PRESET_DATA


SERVERS = {"time": TIME, "web": WEB, "off": {**TIME, "enabled": False}}


@pytest.fixture
def config_data(config_data: dict[str, Any], request: pytest.FixtureRequest) -> dict[str, Any]:
    """Two servers configured (stdio and HTTP) and one switched off (or, parametrized
    indirectly, the servers given)."""
    config_data.setdefault("tools", {})["mcpServers"] = getattr(request, "param", SERVERS)
    return config_data


def lists(page: MCPPage) -> list[QWidget]:
    """The page's list widgets: ``untranslated`` cannot read a list model's header
    (``tests/ui/i18n/pseudo.py`` calls ``columnCount()`` without the parent a
    ``QAbstractListModel`` needs), so the tests check their items themselves: the servers'
    names and states (below) and the tools' names (data)."""
    return [page.list, page.details.tools]


def _page(make_tab: Callable[[], SettingsTab]) -> MCPPage:
    tab = make_tab()
    tab.show_section("mcp")
    page = tab.page("mcp")
    assert isinstance(page, MCPPage)
    return page


def test_the_mcp_page_shows_no_untranslated_text(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    tmp_path: Path,
) -> None:
    with pseudo_locale():
        page = _page(make_tab)
        qtbot.waitUntil(lambda: page.list.count() == 3)
        # The list's items are data and words: each status in brackets after the name.
        for row in range(page.list.count()):
            name, _, words = page.list.item(row).text().partition("\n")
            found = untranslated(page, [*DATA, name], skip=lists(page))
            assert found == [], "\n".join(found)
            assert words.startswith("⟦") and words.endswith("⟧"), words
        # The selected server in every state it can be in.
        config = MCPServerConfig.model_validate(TIME)
        states = (
            MCPServerStatus("time", "stdio", "connecting"),
            MCPServerStatus("time", "stdio", "connected", tool_count=1),
            MCPServerStatus("time", "stdio", "connected", tool_count=2),
            MCPServerStatus("time", "stdio", "failed", last_error="connection refused"),
            MCPServerStatus("time", "stdio", "failed"),
            MCPServerStatus("time", "stdio", "disabled"),
            None,
        )
        for status in states:
            for agent in (True, False):
                tools = ["get_current_time", "convert_time"] if status else []
                page.details.show_server("time", config, status, tools, agent=agent)
                page.details.stderr_toggle.setChecked(status is None)
                assert untranslated(page, DATA, skip=lists(page)) == [], status
        web = MCPServerConfig.model_validate({**WEB, "auth": "oauth"})
        page.details.show_server("web", web, None, [], agent=True)
        assert untranslated(page, [*DATA, WEB_URL], skip=lists(page)) == []
        page.details.show_server("broken", MCPServerConfig(), None, [], agent=True)
        assert untranslated(page, [*DATA, "broken"], skip=lists(page)) == []

        # The form: a new server, then each preset, then each kind of error.
        page.add_button.click()
        assert untranslated(page.editor, DATA) == []
        for preset in PRESETS:
            page.editor.use_preset(preset.name)
            data = [*preset.entry.headers, *preset.entry.headers.values()]
            assert untranslated(page.editor, [*DATA, *data]) == [], preset.name
        page.editor.use_preset("")
        errors = (
            ("bad name!", "stdio", "", ""),
            ("time", "stdio", "uvx", ""),  # taken
            ("new", "stdio", "", ""),
            ("new", "stdio", "uvx", "'unclosed"),
            ("new", "stdio", "uvx", "<your folder>"),
            ("new", "streamableHttp", "", ""),
        )
        for name, transport, command, args in errors:
            editor = page.editor
            editor.name.setText(name)
            editor.transport.setCurrentIndex(editor.transport.findData(transport))
            editor.command.setText(command)
            editor.args.setText(args)
            editor.ok.click()
            assert editor.status.text(), name
            data = [name, command, args, "uvx", "<your folder>", "'bad name!'", "'time'"]
            assert untranslated(page.editor, [*DATA, *data]) == [], editor.status.text()
        page.edit_server("web")
        assert untranslated(page.editor, [*DATA, WEB_URL, "X-Trace: 1"]) == []
        page.editor.cancel.click()

        # The import panel: every kind of bad JSON, a file that cannot be read.
        page.import_button.click()
        bad = (
            "",
            "{",
            "[]",
            '{"mcpServers": {}}',
            '{"mcpServers": {"a b": {"command": "x"}}}',
            '{"mcpServers": {"t": 1}}',
            '{"mcpServers": {"t": {"args": []}}}',
            '{"mcpServers": {"t": {"command": "x", "toolTimeout": "soon"}}}',
        )
        for text in bad:
            page.importer.set_text(text)
            assert not page.importer.submit()
            # The JSON parser's and the schema's own words are their data, not ours.
            shown = page.importer.status.text()
            detail = shown.split(": ", 2)[-1] if "{detail}" not in shown else ""
            data = [text, "'a b'", "'t'", "toolTimeout", detail.rstrip(".⟧")]
            assert untranslated(page.importer, [*DATA, *data]) == [], shown
        missing = tmp_path / "missing.json"
        run_async(qtbot, qloop, page._read_file(str(missing)))
        error = page.importer.status.text().split(": ", 1)[-1]
        assert untranslated(page.importer, [*DATA, str(missing), error.rstrip("⟧")]) == []

        # The approval step: a new stdio server, a replaced one, an HTTP one.
        page.importer.set_text(
            '{"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]},'
            ' "fresh": {"command": "uvx", "args": ["mcp-server-time"]},'
            ' "site": {"url": "https://mcp.example.com/mcp"}}}'
        )
        assert page.importer.submit()
        assert page.mode.currentWidget() is page.approval
        allow = [*DATA, "fresh", "site", WEB_URL]
        assert untranslated(page.approval, allow) == []
        page.approval.ask({"fresh": MCPServerConfig.model_validate(TIME)}, {})
        assert untranslated(page.approval, allow) == []
        page.approval.cancel.click()

        # Removing a server offers Undo; the page says what it did.
        assert run_async(qtbot, qloop, page.remove_server("off"))
        assert page.undo_button.isVisibleTo(page)
        assert untranslated(page, allow, skip=lists(page)) == []


@pytest.mark.parametrize("config_data", [{}], indirect=True)
def test_the_empty_mcp_page_shows_no_untranslated_text(
    make_tab: Callable[[], SettingsTab], qtbot: QtBot
) -> None:
    with pseudo_locale():
        page = _page(make_tab)
        qtbot.waitUntil(lambda: page.empty.isVisibleTo(page))
        assert untranslated(page, PRESET_DATA, skip=lists(page)) == []


def test_the_mcp_page_reads_chinese_in_zh_cn(
    make_tab: Callable[[], SettingsTab], qtbot: QtBot
) -> None:
    try:
        assert install_language("zh_CN") == "zh_CN"
        page = _page(make_tab)
        qtbot.waitUntil(lambda: page.list.count() == 3)
        assert page.add_button.text() == "添加服务器…"
        assert page.details.edit.text() == "编辑…"
        assert "尚未连接" in page.list.item(1).text()
        assert page.details.summary.text().startswith("运行：uvx mcp-server-time")
    finally:
        install_language("en")
