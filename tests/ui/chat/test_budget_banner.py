"""The app's own spend cap, refused in a chat: the banner points to Usage & budgets, never to the
provider (no "Add credit or switch provider")."""

from __future__ import annotations

import time

from pytestqt.qtbot import QtBot

from desktop.core.assembly import build_runtime, usage_place
from desktop.core.config.budgets import Budgets
from desktop.core.usage.ledger import UsageLedger
from desktop.core.usage.record import UsageRecord
from tests.core.agent.conftest import make_provider
from tests.ui.chat.conftest import ChatHarness, MakeChat
from tests.ui.conftest import run_async


def test_the_spend_cap_points_to_usage_and_budgets(make_chat: MakeChat, qtbot: QtBot) -> None:
    """Chat over a hard cap of 100 tokens a day (500 spent today): the turn is refused before
    any model call; the banner says so, offers "Usage & budgets" (section ``usage``) and gives
    no provider advice."""
    chat: ChatHarness = make_chat(ready=False)
    config = chat.services.config
    UsageLedger(usage_place(config)).extend(
        [UsageRecord(time=time.time(), source="chat", model="m", prompt_tokens=500)]
    )
    capped = Budgets.model_validate(
        {"sources": {"chat": {"dailyTokens": 100}}, "chatHardCap": True}
    )
    runtime = build_runtime(config, make_provider(chat.server.url), budgets=lambda: capped)
    run_async(qtbot, chat.loop, runtime.start())
    chat.services.set_runtime(runtime)
    chat.wait(lambda: chat.tab.pane.composer.edit.isEnabled())
    chat.send("hello")
    chat.idle()
    banner = chat.tab.pane.banner
    chat.wait(banner.isVisible)
    text = banner.label.text()
    assert banner.kind == "budget"
    assert "spend cap is reached" in text and "Usage & budgets" in text
    assert "credit" not in text.lower() and "provider" not in text.lower()
    assert banner.settings.isVisible() and banner.settings.text() == "Usage & budgets"
    with qtbot.waitSignal(chat.tab.openSettingsRequested) as signal:
        banner.settings.click()
    assert signal.args == ["usage"]
    assert chat.server.chat_requests() == [], "refused before any model call"
