"""Settings → Tools & safety lists what runs without asking; each allowance is revocable
(issue 9 B). The policy is the real one, kept in a real desktop.json."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from pytestqt.qtbot import QtBot

from desktop.core.agent.approval import ApprovalPolicy
from desktop.core.agent.approval_prefs import policy_from_prefs
from desktop.core.config.prefs import PrefsStore
from desktop.core.config.schema import Config
from desktop.core.utils.tasks import TaskOwner
from desktop.ui.services import AppServices
from desktop.ui.settings.tools_page import ToolsPage
from tests.ui.chat.conftest import write_session
from tests.ui.conftest import run_async


def test_allowances_are_listed_and_revocable(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    prefs_path = tmp_path / "desktop.json"
    prefs_path.write_text(json.dumps({"alwaysAllowedTools": ["exec", "web_fetch"]}))
    store = PrefsStore(prefs_path)
    owner = TaskOwner("prefs")
    policy: ApprovalPolicy = policy_from_prefs(store, owner)
    policy.allow_for_session("desktop:trip", "write_file")
    workspace = tmp_path / "ws"
    write_session(workspace, "desktop:trip", [{"role": "user", "content": "plan"}], title="Trip")
    config = Config.model_validate({"agents": {"defaults": {"workspace": str(workspace)}}})
    services = AppServices(config, tmp_path / "config.json", None, policy=policy, prefs=store)  # type: ignore[arg-type]
    page = ToolsPage(services)
    qtbot.addWidget(page)
    page.show()
    from desktop.ui.settings.allowances import AllowancesBox

    box = page.findChild(AllowancesBox)
    assert box is not None
    qtbot.waitUntil(lambda: ("desktop:trip", "write_file") in box.revoke_buttons)
    assert set(box.revoke_buttons) == {
        ("*", "exec"),
        ("*", "web_fetch"),
        ("desktop:trip", "write_file"),
    }
    qtbot.waitUntil(
        lambda: "Trip" in box.revoke_buttons[("desktop:trip", "write_file")].accessibleName()
    )

    box.revoke_buttons[("*", "exec")].click()
    assert not policy.is_allowed("desktop:other", "exec")
    qtbot.waitUntil(
        lambda: json.loads(prefs_path.read_text())["alwaysAllowedTools"] == ["web_fetch"]
    )
    box.revoke_buttons[("desktop:trip", "write_file")].click()
    assert not policy.is_allowed("desktop:trip", "write_file")
    assert set(box.revoke_buttons) == {("*", "web_fetch")}
    assert box.chats_empty.isVisibleTo(box)
    run_async(qtbot, qloop, owner.aclose())
    page.cancel_tasks()
