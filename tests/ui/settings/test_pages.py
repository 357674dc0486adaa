"""Agent, Tools, Dream, Appearance and Channels pages; config file safety; navigation."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtWidgets import QCheckBox
from pytestqt.qtbot import QtBot

from desktop.core.config.loader import load_config
from desktop.core.config.prefs_peek import prefs_path
from desktop.core.config.secret_fields import inject_stored_secrets
from desktop.core.config.secrets import SecretStore
from desktop.ui.services import AppServices
from desktop.ui.settings import SECTIONS, SettingsTab, autostart
from desktop.ui.settings.agent_page import AgentPage
from desktop.ui.settings.appearance_page import AppearancePage
from desktop.ui.settings.channels_page import ChannelsPage
from desktop.ui.settings.dream_page import DreamPage
from desktop.ui.settings.providers_page import ProvidersPage
from desktop.ui.settings.tools_page import ToolsPage
from desktop.ui.settings.widgets import LinesEdit
from tests.fakes.memory_keyring import MemoryKeyring
from tests.typed import present
from tests.ui.conftest import run_async
from tests.ui.settings.conftest import UNKNOWN, on_disk
from tests.ui.settings.pages import page_of, spin, widget_as

TOKEN = "123456:telegram-secret-token-value"


def contains(data: object, subset: object) -> bool:
    """Whether ``subset`` is contained in ``data`` (dicts recursively)."""
    if isinstance(subset, dict):
        return isinstance(data, dict) and all(
            k in data and contains(data[k], v) for k, v in subset.items()
        )
    return data == subset


def test_every_section_opens_and_show_section_navigates(
    make_tab: Callable[[], SettingsTab], qtbot: QtBot
) -> None:
    """Each named section is reachable; details select a provider or channel."""
    tab = make_tab()
    for name in SECTIONS:
        tab.show_section(name)
        assert tab.current_section() == name
        assert tab.stack.currentWidget() is tab.page(name)
    tab.show_section("providers/anthropic")
    assert (
        page_of(tab, "providers", ProvidersPage).list.currentItem().text().startswith("Anthropic")
    )
    tab.show_section("channels:slack")
    assert page_of(tab, "channels", ChannelsPage).list.currentItem().text() == "Slack"
    tab.show_section("nonsense")
    assert tab.current_section() == "channels"


def test_agent_page_validates_then_saves_keeping_unknown_keys(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    services: AppServices,
    config_path: Path,
) -> None:
    """A bad timezone: inline error, file and config untouched. A good one: saved, extras kept."""
    tab = make_tab()
    tab.show_section("agent")
    page = page_of(tab, "agent", AgentPage)
    before = config_path.read_bytes()
    page.timezone.setText("Mars/Olympus_Mons")
    spin(page.max_tokens).setValue(4096)
    page._edited()
    assert present(page.save_button).isEnabled()
    assert not run_async(qtbot, qloop, page.save())
    assert (
        page.status.kind == "error"
        and "Timezone" in page.status.text()
        and "Mars/Olympus_Mons" in page.status.text()
    )
    assert config_path.read_bytes() == before
    assert services.config.agents.defaults.max_tokens == 8192  # nothing applied
    assert page.timezone.text() == "Mars/Olympus_Mons"  # nothing lost
    page.timezone.setText("Europe/Berlin")
    spin(page.context_window).setValue(32_768)
    spin(page.iterations).setValue(42)
    assert run_async(qtbot, qloop, page.save())
    data = on_disk(config_path)
    d = data["agents"]["defaults"]
    assert (d["timezone"], d["maxTokens"], d["contextWindowTokens"], d["maxToolIterations"]) == (
        "Europe/Berlin",
        4096,
        32_768,
        42,
    )
    assert contains(data, UNKNOWN)
    assert not present(page.save_button).isEnabled()
    # max tokens must stay below the context window
    spin(page.max_tokens).setValue(40_000)
    assert not run_async(qtbot, qloop, page.save())
    assert "smaller than the context window" in page.status.text()


def test_open_existing_workspace_syncs_templates_without_overwriting(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    config_path: Path,
    tmp_path: Path,
) -> None:
    """An existing nanobot workspace is recognised; missing templates added, SOUL.md kept."""
    ws = tmp_path / "old-nanobot-ws"
    (ws / "sessions").mkdir(parents=True)
    (ws / "sessions" / "telegram_42.jsonl").write_text("{}\n")
    (ws / "SOUL.md").write_text("my own soul\n")
    tab = make_tab()
    tab.show_section("agent")
    page = page_of(tab, "agent", AgentPage)
    page.workspace.edit.setText(str(ws))
    page.workspace._changed()
    qtbot.waitUntil(lambda: page.workspace.kind == "existing")
    assert "1 saved chat" in page.workspace.about.text()
    assert run_async(qtbot, qloop, page.save())
    assert on_disk(config_path)["agents"]["defaults"]["workspace"] == str(ws)
    assert (ws / "SOUL.md").read_text() == "my own soul\n"
    assert (ws / "AGENTS.md").is_file() and (ws / "memory" / "MEMORY.md").is_file()
    assert "after a restart" in page.status.text()
    # A file is not a workspace.
    page.workspace.edit.setText(str(ws / "SOUL.md"))
    page.workspace._changed()
    qtbot.waitUntil(lambda: page.workspace.kind == "invalid")
    assert not run_async(qtbot, qloop, page.save())
    assert on_disk(config_path)["agents"]["defaults"]["workspace"] == str(ws)


def test_malformed_config_file_is_never_overwritten(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    services: AppServices,
    config_path: Path,
) -> None:
    """The file broke after loading: saving shows the error, leaves the bytes, undoes the change."""
    tab = make_tab()
    broken = b'{"agents": {"defaults": {"model": "gpt-4o-mini",,}}\n'
    config_path.write_bytes(broken)
    tab.show_section("dream")
    page = page_of(tab, "dream", DreamPage)
    spin(page.interval).setValue(7)
    assert not run_async(qtbot, qloop, page.save())
    assert config_path.read_bytes() == broken
    assert (
        page.status.kind == "error"
        and "invalid JSON" in page.status.text()
        and "line 1" in page.status.text()
    )
    assert services.config.agents.defaults.dream.interval_h == 2  # undone in memory too
    assert spin(page.interval).value() == 7  # the input is kept
    assert tab.banner.isVisibleTo(tab) and "never overwrites" in tab.banner_text.text()
    config_path.write_text(json.dumps({"agents": {"defaults": {"model": "x"}}}))
    assert run_async(qtbot, qloop, tab.check_config_file())
    assert not tab.banner.isVisibleTo(tab)
    assert run_async(qtbot, qloop, page.save())
    assert on_disk(config_path)["agents"]["defaults"]["dream"]["intervalH"] == 7


def test_malformed_file_at_start_shows_the_banner(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    services: AppServices,
    config_path: Path,
) -> None:
    """Opening Settings while the file is broken: the banner explains it at once."""
    config_path.write_text("[1, 2")
    tab = SettingsTab(services)
    qtbot.addWidget(tab)
    tab.show()
    qtbot.waitUntil(lambda: tab.banner.isVisible())
    assert "cannot be read" in tab.banner_text.text()


def test_tools_page_patterns_search_and_approval_mode(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    services: AppServices,
    config_path: Path,
    memory_keyring: MemoryKeyring,
) -> None:
    """Invalid regex refused; patterns, timeout, search saved; approval mode in desktop.json;
    the search key in the keyring only."""
    tab = make_tab()
    tab.show_section("tools")
    page = page_of(tab, "tools", ToolsPage)
    qtbot.waitUntil(lambda: page.ask.isChecked())
    before = config_path.read_bytes()
    page.deny.setPlainText("rm -rf (")
    assert not run_async(qtbot, qloop, page.save())
    assert "Deny patterns: line 1" in page.status.text()
    assert config_path.read_bytes() == before
    page.deny.setPlainText(r"\bgit push\b")
    page.allow.setPlainText(r"^rm -rf \./build$")
    spin(page.timeout).setValue(120)
    page.restrict.setChecked(True)
    page.autonomous.setChecked(True)
    page.search_provider.setCurrentIndex(page.search_provider.findData("brave"))
    assert run_async(qtbot, qloop, page.save())
    tools = on_disk(config_path)["tools"]
    assert tools["exec"]["denyPatterns"] == [r"\bgit push\b"]
    assert tools["exec"]["allowPatterns"] == [r"^rm -rf \./build$"]
    assert tools["exec"]["timeout"] == 120 and tools["restrictToWorkspace"] is True
    assert tools["exec"]["futureFlag"] is True
    assert tools["web"]["search"]["provider"] == "brave"
    prefs = json.loads((config_path.parent / "desktop.json").read_text())
    assert prefs["approvalMode"] == "autonomous"
    key = "BSA-brave-search-key-0123456789"
    page.search_key.edit.setText(key)
    assert run_async(qtbot, qloop, page.search_key.save())
    assert memory_keyring.store[(services.secrets.service, "tools.web.search.apiKey")] == key
    assert services.config.tools.web.search.api_key == key  # in effect for the web tool
    assert key not in config_path.read_text()
    assert on_disk(config_path)["tools"]["web"]["search"]["apiKey"] == ""


def test_dream_and_heartbeat_round_trip(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    config_path: Path,
) -> None:
    """Dream and heartbeat values land in their nanobot keys (Dream's own limits, which
    nanobot does not know, in desktop.json) and load back."""
    tab = make_tab()
    tab.show_section("dream")
    page = page_of(tab, "dream", DreamPage)
    spin(page.interval).setValue(6)
    spin(page.batch).setValue(50)
    spin(page.iterations).setValue(3)
    spin(page.budget).setValue(20_000)
    page.beat_enabled.setChecked(False)
    spin(page.beat_interval).setValue(600)
    assert run_async(qtbot, qloop, page.save())
    data = on_disk(config_path)
    assert data["agents"]["defaults"]["dream"]["intervalH"] == 6
    dream = on_disk(prefs_path(config_path))["configExtras"]["agents"]["defaults"]["dream"]
    assert (dream["maxBatchSize"], dream["maxIterations"], dream["tokenBudget"]) == (50, 3, 20_000)
    assert data["gateway"]["heartbeat"] == {"enabled": False, "intervalS": 600}
    assert not page.beat_interval.isEnabled()
    reloaded = load_config(config_path)
    assert reloaded.agents.defaults.dream.interval_h == 6
    assert reloaded.agents.defaults.dream.max_batch_size == 50


def test_dream_review_setting_lives_in_desktop_json(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    config_path: Path,
) -> None:
    """ "Review Dream changes before they land" goes to desktop.json, never to config.json
    (nanobot reads config.json and refuses keys it does not know)."""
    tab = make_tab()
    tab.show_section("dream")
    page = page_of(tab, "dream", DreamPage)
    qtbot.waitUntil(lambda: page.review.isEnabled())
    assert not page.review.isChecked()
    page.review.setChecked(True)
    assert page.dirty
    assert run_async(qtbot, qloop, page.save())
    prefs = json.loads((config_path.parent / "desktop.json").read_text())
    assert prefs["reviewDream"] is True
    assert "reviewDream" not in json.dumps(on_disk(config_path))
    page.reload()
    qtbot.waitUntil(lambda: page.review.isChecked() and not page.dirty)


def test_appearance_close_to_tray_and_start_at_login(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    config_path: Path,
    isolated_env: Path,
) -> None:
    """Preferences go to desktop.json (not config.json); start at login writes/removes the entry."""
    if not autostart.supported():
        pytest.skip("XDG autostart is Linux-only")
    tab = make_tab()
    tab.show_section("appearance")
    page = page_of(tab, "appearance", AppearancePage)
    qtbot.waitUntil(lambda: page.theme_buttons["system"].isChecked())
    before = config_path.read_bytes()
    page.theme_buttons["dark"].setChecked(True)
    page.close_to_tray.setChecked(False)
    page.start_at_login.setChecked(True)
    with qtbot.waitSignal(tab.appearanceChanged) as signal:
        assert run_async(qtbot, qloop, page.save())
    assert signal.args == ["dark"]
    prefs = json.loads((config_path.parent / "desktop.json").read_text())
    assert (prefs["appearance"], prefs["closeToTray"], prefs["startAtLogin"]) == (
        "dark",
        False,
        True,
    )
    assert config_path.read_bytes() == before
    entry = isolated_env / ".config" / "autostart" / "nanobot-desktop.desktop"
    text = entry.read_text()
    assert "Exec=" in text and "nanobot-desktop" in text
    page.start_at_login.setChecked(False)
    assert run_async(qtbot, qloop, page.save())
    assert not entry.exists()


def test_channels_form_round_trips_and_tokens_go_to_the_keyring(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    services: AppServices,
    config_path: Path,
    memory_keyring: MemoryKeyring,
    keyring_service: str,
) -> None:
    """Enable + allowFrom + option saved; token in the keyring (never the file); unknown keys kept;
    after a restart the stored token is back in effect."""
    tab = make_tab()
    tab.show_section("channels/telegram")
    page = page_of(tab, "channels", ChannelsPage)
    form = page.form("telegram")
    assert "not running yet" in form.status.text()
    assert "futureChannelKey" in form.extras.text()
    widget_as(form.controls["enabled"], QCheckBox).setChecked(True)
    widget_as(form.controls["allow_from"], LinesEdit).setPlainText("alice\n 12345 \n\n")
    widget_as(form.controls["reply_to_message"], QCheckBox).setChecked(True)
    page.send_tool_hints.setChecked(True)
    assert run_async(qtbot, qloop, page.save())
    form.keys["token"].edit.setText(TOKEN)
    assert run_async(qtbot, qloop, form.keys["token"].save())
    telegram = on_disk(config_path)["channels"]["telegram"]
    assert telegram["enabled"] is True and telegram["allowFrom"] == ["alice", "12345"]
    assert telegram["replyToMessage"] is True and telegram["futureChannelKey"] == "x"
    assert telegram["token"] == "" and TOKEN not in config_path.read_text()
    assert on_disk(config_path)["channels"]["sendToolHints"] is True
    assert memory_keyring.store[(keyring_service, "channels.telegram.token")] == TOKEN
    # Another page saves: the token stays off the disk.
    tab.show_section("dream")
    dream = page_of(tab, "dream", DreamPage)
    spin(dream.batch).setValue(33)
    assert run_async(qtbot, qloop, dream.save())
    assert TOKEN not in config_path.read_text()
    # A fresh start: injected from the keyring into memory only.
    fresh = load_config(config_path)
    assert fresh.channels.telegram.token == ""
    loaded = run_async(qtbot, qloop, inject_stored_secrets(fresh, SecretStore(keyring_service)))
    assert loaded == ["channels.telegram.token"]
    assert fresh.channels.telegram.token == TOKEN
    again = AppServices(fresh, config_path, SecretStore(keyring_service))
    run_async(qtbot, qloop, again.save_config())
    assert TOKEN not in config_path.read_text()


def test_plaintext_channel_secret_moves_to_the_keyring(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    memory_keyring: MemoryKeyring,
    tmp_path: Path,
    keyring_service: str,
) -> None:
    """A nanobot config with a plaintext token: shown as plaintext; saving moves it."""
    from tests.conftest import write_config

    path = write_config(
        tmp_path / "c" / "config.json",
        {
            "agents": {"defaults": {"workspace": str(tmp_path / "ws")}},
            "channels": {"discord": {"enabled": True, "token": "discord-plaintext-token-123"}},
        },
    )
    services = AppServices(load_config(path), path, SecretStore(keyring_service))
    tab = SettingsTab(services)
    qtbot.addWidget(tab)
    tab.show_section("channels/discord")
    key = page_of(tab, "channels", ChannelsPage).form("discord").keys["token"]
    qtbot.waitUntil(lambda: "plaintext" in key.source_label.text())
    key.edit.setText("discord-plaintext-token-123")
    assert run_async(qtbot, qloop, key.save())
    assert on_disk(path)["channels"]["discord"]["token"] == ""
    assert on_disk(path)["channels"]["discord"]["enabled"] is True
    qtbot.waitUntil(lambda: "OS keyring" in key.source_label.text())


def test_channel_form_keeps_large_numbers_and_optional_choices(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    config_path: Path,
) -> None:
    """Saving a channel form never changes what it did not touch: a 20 MB limit stays 20 MB
    (spin boxes stopped at 1,000,000), an optional choice stays unset."""
    tab = make_tab()
    tab.show_section("channels/matrix")
    page = page_of(tab, "channels", ChannelsPage)
    form = page.form("matrix")
    widget_as(form.controls["enabled"], QCheckBox).setChecked(True)
    assert run_async(qtbot, qloop, page.save())
    matrix = on_disk(config_path)["channels"]["matrix"]
    assert matrix["maxMediaBytes"] == 20_971_520
    email_form = page.form("email")
    widget_as(email_form.controls["enabled"], QCheckBox).setChecked(False)
    assert run_async(qtbot, qloop, page.save())
    assert on_disk(config_path)["channels"]["email"].get("postAction") is None
