"""The composition root plugs the real tabs in and wires them to the window and preferences."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from PySide6.QtCore import SIGNAL
from pytestqt.qtbot import QtBot

from desktop.app import build_main_window, install_tabs
from desktop.core.agent.approval_prefs import policy_from_prefs
from desktop.core.config.prefs import PrefsStore
from desktop.core.config.schema import Config
from desktop.core.config.secrets import SecretStore
from desktop.core.utils.tasks import TaskOwner
from desktop.ui.chat.chat_tab import ChatTab
from desktop.ui.memory import MemoryTab
from desktop.ui.services import AppServices
from desktop.ui.settings import SettingsTab
from desktop.ui.skills import SkillsTab
from tests.ui.conftest import run_async


def test_real_tabs_are_wired(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, tmp_path: Path, memory_keyring: object
) -> None:
    prefs_path = tmp_path / "desktop.json"
    prefs_path.write_text(
        json.dumps({"approvalMode": "autonomous", "alwaysAllowedTools": ["exec"]})
    )
    config = Config.model_validate({"agents": {"defaults": {"workspace": str(tmp_path / "ws")}}})
    (tmp_path / "ws").mkdir()
    store = PrefsStore(prefs_path)
    owner = TaskOwner("prefs")
    services = AppServices(
        config,
        tmp_path / "config.json",
        SecretStore(),
        policy=policy_from_prefs(store, owner),
        prefs=store,
    )
    window = build_main_window()
    qtbot.addWidget(window)
    install_tabs(window, services)
    chat = window.tab("chat")
    assert isinstance(chat, ChatTab)
    assert isinstance(window.tab("settings"), SettingsTab)
    assert isinstance(window.tab("skills"), SkillsTab)
    assert isinstance(window.tab("memory"), MemoryTab)
    policy = services.policy
    assert policy.mode == "autonomous" and policy.always_allowed == {"exec"}
    tabs: list[object] = [
        window.tab("chat"),
        window.tab("settings"),
        window.tab("skills"),
        window.tab("memory"),
    ]
    assert services.closables[:4] == tabs
    # the approval mode follows the preference, and policy changes are saved to desktop.json
    store.update(approval_mode="ask")
    assert policy.mode == "ask"  # type: ignore[comparison-overlap]  # mypy keeps the narrowing above
    policy.allow_always("mcp_time_get_current_time")
    qtbot.waitUntil(
        lambda: (
            json.loads(prefs_path.read_text()).get("alwaysAllowedTools")
            == ["exec", "mcp_time_get_current_time"]
        ),
        timeout=5_000,
    )
    # the window's requests (Ctrl+N, Ctrl+K, Esc, a clicked reminder) reach the chat tab
    for signal in (
        "newChatRequested()",
        "searchRequested()",
        "stopRequested()",
        "openSessionRequested(QString)",
        "shuttingDown()",
    ):
        assert window.receivers(SIGNAL(signal)) >= 1, signal
    # the status bar names the shown chat's model (issue 21 item 3)
    assert chat.receivers(SIGNAL("modelShown(QString)")) >= 1
    window.openSessionRequested.emit("desktop:from-a-reminder")
    qtbot.waitUntil(lambda: chat.current == "desktop:from-a-reminder", timeout=5000)
    run_async(qtbot, qloop, services.aclose_tabs())
    run_async(qtbot, qloop, owner.aclose())
