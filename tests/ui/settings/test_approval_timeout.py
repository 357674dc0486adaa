"""Settings → Tools & safety: how long an approval request waits, next to the approval mode.

The policy and gate are the real ones the app builds (``policy_from_prefs`` over a real
``desktop.json``; the gate as ``build_runtime`` makes it): saving the page changes the running
gate's timeout at once, without a restart.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from pytestqt.qtbot import QtBot

from desktop.core.agent.approval import ApprovalGate
from desktop.core.agent.approval_prefs import policy_from_prefs
from desktop.core.config.loader import load_config
from desktop.core.config.prefs import PrefsStore
from desktop.core.utils.tasks import TaskOwner
from desktop.ui.services import AppServices
from desktop.ui.settings.tools_page import ToolsPage
from tests.conftest import write_config
from tests.ui.conftest import run_async


def test_the_timeout_control_changes_the_running_gate(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, tmp_path: Path, memory_keyring: object
) -> None:
    """The spin box shows the saved minutes (10 by default); saving 3 makes the gate wait
    180 s, "Never" (0) makes it wait for ever; both land in desktop.json; the control is off
    while the mode is autonomous (nothing is asked then)."""
    workspace = tmp_path / "ws"
    config_path = write_config(
        tmp_path / "nanobot" / "config.json",
        {"agents": {"defaults": {"model": "gpt-4o-mini", "workspace": str(workspace)}}},
    )
    prefs_file = config_path.parent / "desktop.json"
    store = PrefsStore(prefs_file)
    owner = TaskOwner("prefs")
    policy = policy_from_prefs(store, owner)
    gate = ApprovalGate(policy)  # what build_runtime makes of the app's policy
    assert gate.timeout_s == 600
    services = AppServices(
        load_config(config_path),
        config_path,
        None,  # type: ignore[arg-type]  # no secret store: this test reads no key
        policy=policy,
        prefs=store,
    )
    page = ToolsPage(services)
    qtbot.addWidget(page)
    page.reload()
    page.show()
    spin = page.approval_timeout
    qtbot.waitUntil(lambda: page.ask.isChecked() and spin.value() == 10)
    assert spin.isEnabled() and spin.text() == "10 min"
    assert not page.dirty

    spin.setValue(3)
    assert page.dirty
    assert run_async(qtbot, qloop, page.save())
    assert gate.timeout_s == 180
    assert json.loads(prefs_file.read_text())["approvalTimeoutMinutes"] == 3

    spin.setValue(0)
    assert spin.text() == "Never"
    assert run_async(qtbot, qloop, page.save())
    assert gate.timeout_s is None
    assert json.loads(prefs_file.read_text())["approvalTimeoutMinutes"] is None
    qtbot.waitUntil(lambda: spin.value() == 0 and not page.dirty)

    page.autonomous.setChecked(True)
    assert not spin.isEnabled() and not page.approval_timeout_label.isEnabled()
    page.ask.setChecked(True)
    assert spin.isEnabled() and page.approval_timeout_label.isEnabled()
    run_async(qtbot, qloop, owner.aclose())
    page.cancel_tasks()
