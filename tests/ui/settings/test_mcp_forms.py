"""The MCP server form: credential headers kept in the keyring; presets fill the form."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.config.mcp_headers import keyring_name
from desktop.core.tools.mcp.oauth import keyring_name as oauth_keyring_name
from desktop.core.tools.mcp.presets import PRESETS
from desktop.ui.services import AppServices
from desktop.ui.settings import SettingsTab
from desktop.ui.settings.mcp_editor import KEPT
from desktop.ui.settings.mcp_page import MCPPage
from tests.core.tools.test_mcp import HTTPServer
from tests.core.tools.test_mcp_headers import API_KEY, TOKEN, gated  # noqa: F401 - a fixture
from tests.core.tools.test_mcp_oauth import Browser, secured  # noqa: F401 - a fixture
from tests.fakes.memory_keyring import MemoryKeyring
from tests.ui.conftest import run_async
from tests.ui.settings.conftest import on_disk

pytestmark = pytest.mark.timeout(180)


def mcp_page(tab: SettingsTab) -> MCPPage:
    tab.show_section("mcp")
    page = tab.page("mcp")
    assert isinstance(page, MCPPage)
    return page


def test_credential_headers_go_to_the_keyring_and_stay_hidden_in_the_form(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    config_path: Path,
    services: AppServices,
    memory_keyring: MemoryKeyring,
    gated: HTTPServer,  # noqa: F811 - the fixture imported above
) -> None:
    page = mcp_page(make_tab())
    page.add_button.click()
    editor = page.editor
    editor.name.setText("gated")
    editor.transport.setCurrentIndex(editor.transport.findData("streamableHttp"))
    editor.url.setText(gated.url)
    editor.headers.set_lines([f"Authorization: {TOKEN}", f"X-Api-Key: {API_KEY}", "X-Trace: 1"])
    editor.ok.click()  # an HTTP server needs no approval: saved and connected at once
    qtbot.waitUntil(
        lambda: (
            page.statuses.get("gated") is not None and page.statuses["gated"].state == "connected"
        ),
        timeout=60_000,
    )
    assert "Authorization, X-Api-Key kept in the OS keyring" in page.status.text()
    saved = on_disk(config_path)["tools"]["mcpServers"]["gated"]
    assert saved["headers"] == {"Authorization": "", "X-Api-Key": "", "X-Trace": "1"}
    service = services.secrets.service
    assert memory_keyring.store == {
        (service, keyring_name("gated", "Authorization")): TOKEN,
        (service, keyring_name("gated", "X-Api-Key")): API_KEY,
    }

    # Editing shows the credential masked; leaving it as is keeps the value.
    page.edit_server("gated")
    assert editor.headers.lines() == [f"Authorization: {KEPT}", f"X-Api-Key: {KEPT}", "X-Trace: 1"]
    editor.timeout.setValue(45)
    editor.ok.click()
    qtbot.waitUntil(lambda: page.mode.currentWidget() is page.overview, timeout=30_000)
    qtbot.waitUntil(lambda: page.statuses["gated"].state == "connected", timeout=60_000)
    assert services.config.tools.mcp_servers["gated"].headers["Authorization"] == TOKEN
    assert on_disk(config_path)["tools"]["mcpServers"]["gated"]["headers"]["Authorization"] == ""

    # Dropping a header removes its keyring entry; removing the server removes the rest.
    page.edit_server("gated")
    editor.headers.set_lines([f"Authorization: {KEPT}", f"X-Api-Key: {KEPT}"])
    editor.ok.click()
    qtbot.waitUntil(lambda: page.mode.currentWidget() is page.overview, timeout=30_000)
    assert run_async(qtbot, qloop, page.remove_server("gated"), 30_000)
    assert memory_keyring.store == {}
    # Undo puts the server back, its credentials into the keyring again.
    assert run_async(qtbot, qloop, page._undo_remove(), 60_000) is None
    assert set(memory_keyring.store) == {
        (service, keyring_name("gated", "Authorization")),
        (service, keyring_name("gated", "X-Api-Key")),
    }


def test_presets_fill_the_form_and_placeholders_must_be_replaced(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    config_path: Path,
    memory_keyring: MemoryKeyring,
    gated: HTTPServer,  # noqa: F811 - the fixture imported above
) -> None:
    page = mcp_page(make_tab())
    page.add_button.click()
    editor = page.editor
    assert editor.preset.isVisibleTo(editor) and not editor.preset_info.isVisibleTo(editor)
    assert [editor.preset.itemData(i) for i in range(editor.preset.count())] == [
        "",
        *(preset.name for preset in PRESETS),
    ]

    editor.preset.setCurrentIndex(editor.preset.findData("time"))
    assert (editor.name.text(), editor.transport.currentData()) == ("time", "stdio")
    assert (editor.command.text(), editor.args.text()) == ("uvx", "mcp-server-time")
    assert editor.command.isVisibleTo(editor) and not editor.url.isVisibleTo(editor)
    info = editor.preset_info.text()
    assert editor.preset_info.isVisibleTo(editor)
    assert "Runs: uvx mcp-server-time" in info and "Needs: uv (the uvx command)." in info

    editor.preset.setCurrentIndex(editor.preset.findData("github"))
    assert (editor.name.text(), editor.transport.currentData()) == ("github", "streamableHttp")
    assert editor.url.text() == "https://api.githubcopilot.com/mcp/"
    assert editor.headers.lines() == ["Authorization: Bearer <GitHub personal access token>"]
    assert "Needs: a GitHub personal access token (kept in the OS keyring)." in (
        editor.preset_info.text()
    )
    assert "Replace each <…> with your own value." in editor.preset_info.text()
    editor.ok.click()  # the placeholder is still there: refused, nothing saved
    assert page.mode.currentWidget() is editor
    assert editor.status.text() == (
        "Headers: replace <GitHub personal access token> with your own value. Nothing was saved."
    )
    assert "mcpServers" not in on_disk(config_path).get("tools", {})

    # Typed in (pointed at the local server here), it saves and connects; the token goes to
    # the keyring.
    editor.url.setText(gated.url)
    editor.headers.set_lines([f"Authorization: {TOKEN}", f"X-Api-Key: {API_KEY}"])
    editor.ok.click()
    qtbot.waitUntil(
        lambda: (
            page.statuses.get("github") is not None and page.statuses["github"].state == "connected"
        ),
        timeout=60_000,
    )
    assert on_disk(config_path)["tools"]["mcpServers"]["github"]["headers"]["Authorization"] == ""
    assert TOKEN in memory_keyring.store.values()

    # A taken name gets a suffix; "Nothing" empties the form again; editing shows no presets.
    page.add_button.click()
    editor.preset.setCurrentIndex(editor.preset.findData("github"))
    assert editor.name.text() == "github-2"
    editor.preset.setCurrentIndex(0)
    assert (editor.name.text(), editor.url.text(), editor.command.text()) == ("", "", "")
    assert not editor.preset_info.isVisibleTo(editor)
    editor.cancel.click()
    page.edit_server("github")
    assert not editor.preset.isVisibleTo(editor)


def test_oauth_server_signs_in_from_the_page(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    config_path: Path,
    services: AppServices,
    memory_keyring: MemoryKeyring,
    secured: HTTPServer,  # noqa: F811 - the fixture imported above
) -> None:
    page = mcp_page(make_tab())
    page.add_button.click()
    editor = page.editor
    editor.preset.setCurrentIndex(editor.preset.findData("notion"))
    assert editor.oauth.isChecked() and "sign in in the browser" in editor.preset_info.text()
    editor.url.setText(secured.url)
    editor.ok.click()
    qtbot.waitUntil(
        lambda: (
            page.statuses.get("notion") is not None and page.statuses["notion"].state == "failed"
        ),
        timeout=60_000,
    )
    assert on_disk(config_path)["tools"]["mcpServers"]["notion"]["auth"] == "oauth"
    assert "needs you to sign in" in page.details.status.text()
    assert page.details.sign_in.isVisibleTo(page) and page.details.sign_in.text() == "Sign in…"

    browser = Browser()
    page.open_url = browser
    assert run_async(qtbot, qloop, page.sign_in("notion"), 60_000)
    assert len(browser.opened) == 1
    qtbot.waitUntil(lambda: page.statuses["notion"].state == "connected", timeout=60_000)
    assert page.details.sign_in.text() == "Sign in again…"
    assert (services.secrets.service, oauth_keyring_name("notion")) in memory_keyring.store
    assert "at-" not in config_path.read_text(encoding="utf-8")

    assert run_async(qtbot, qloop, page.sign_out("notion"), 60_000)
    assert (services.secrets.service, oauth_keyring_name("notion")) not in memory_keyring.store
