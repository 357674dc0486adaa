"""A background run over budget asks the person in the window: the real runtime's governor
pauses Dream before its first call, the bridge turns ``BudgetPaused`` into a banner with Run
once / Raise / Keep paused, and the buttons answer the governor (Raise saves a higher budget in
``desktop.json`` first)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop.app import build_main_window
from desktop.core.assembly import build_runtime
from desktop.core.config.loader import load_config
from desktop.core.config.prefs import PrefsStore, load_prefs
from desktop.core.memory.store import MemoryStore
from desktop.core.usage.record import UsageRecord
from desktop.ui.budget_prompts import banner_key
from desktop.ui.main_window import MainWindow
from desktop.ui.notifications import Notifier
from desktop.ui.services import AppServices
from desktop.ui.shell import DesktopApp
from desktop.ui.single_instance import SingleInstance
from desktop.ui.theme import Theme
from tests.conftest import write_config
from tests.core.agent.conftest import make_provider
from tests.core.usage.helpers import ledger_of
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.ui.conftest import run_async

pytestmark = pytest.mark.usefixtures("qloop")


@pytest.fixture
def window(qtbot: QtBot) -> Iterator[MainWindow]:
    win = build_main_window()
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.allow_close()
    win.close()


def _route(body: dict[str, Any]) -> Reply:
    if not body.get("tools"):
        return Reply("[MEMORY] Ada lives in Lisbon")
    if body["messages"][-1]["role"] == "user":
        edit = {"path": "memory/MEMORY.md", "old_text": "- a\n", "new_text": "- a\n- Lisbon\n"}
        return Reply(tool_calls=[("edit_file", json.dumps(edit))])
    return Reply("Updated.")


def test_the_banner_asks_and_raise_saves_a_budget_the_run_fits_then_runs_it(
    qtbot: QtBot,
    qapp: QApplication,
    qloop: asyncio.AbstractEventLoop,
    tmp_path: Path,
    window: MainWindow,
    scripted_server: ScriptedOpenAIServer,
) -> None:
    workspace = tmp_path / "ws"
    config_path = write_config(
        tmp_path / "nanobot" / "config.json",
        {"agents": {"defaults": {"workspace": str(workspace), "timezone": "UTC"}}},
    )
    prefs_file = write_config(
        config_path.parent / "desktop.json",
        {"budgets": {"sources": {"dream": {"dailyTokens": 20000}}}},
    )
    ledger_of(load_config(config_path)).extend(
        UsageRecord(time=time.time() - 1, source="dream", model="m", prompt_tokens=6000, run=r)
        for r in ("a", "b", "c")
    )
    scripted_server.route = _route
    theme = Theme(qapp, "light")
    app = DesktopApp(
        qapp,
        window,
        theme,
        SingleInstance(config_path.parent),
        prefs_file=prefs_file,
        config_path=config_path,
    )
    app.notifier = Notifier(is_paused=lambda: False, window=window)
    prefs = PrefsStore(prefs_file)
    config = load_config(config_path)
    services = AppServices(config, config_path, None, prefs=prefs)  # type: ignore[arg-type]
    runtime = build_runtime(
        config,
        make_provider(scripted_server.url),
        budgets=lambda: prefs.prefs.budgets,
        ask_budgets=True,
    )
    services.set_runtime(runtime)
    app._on_config_loaded(services)
    (workspace / "memory" / "MEMORY.md").write_text("- a\n")
    MemoryStore(workspace).append_history("Ada moved to Lisbon.")
    try:
        # Keep paused.
        run = asyncio.ensure_future(runtime.memory.dream().run())
        qtbot.waitUntil(lambda: any(k.startswith("budget:") for k in window._banners))
        [key] = [k for k in window._banners if k.startswith("budget:")]
        banner = window.banner(key)
        assert banner is not None and banner.isVisible()
        assert banner.text() == (
            "Dream wants ~6,000 tokens; today's Dream budget is 20k and 18k are spent."
        )
        assert [b.text() for b in banner.buttons] == ["Run once", "Raise", "Keep paused"]
        banner.buttons[2].click()
        qtbot.waitUntil(run.done, timeout=30_000)
        assert run.result().status == "paused" and window.banner(key) is None
        assert scripted_server.chat_requests() == []

        # Dismiss is an answer too (keep paused): the run does not wait for nobody.
        run = asyncio.ensure_future(runtime.memory.dream().run())
        qtbot.waitUntil(lambda: any(k.startswith("budget:") for k in window._banners))
        [key] = [k for k in window._banners if k.startswith("budget:")]
        banner = window.banner(key)
        assert banner is not None
        banner.dismiss()
        qtbot.waitUntil(run.done, timeout=30_000)
        assert run.result().status == "paused" and scripted_server.chat_requests() == []

        # Raise: 18k spent + ~6k wanted → the Dream budget becomes 40k, saved; the run goes.
        run = asyncio.ensure_future(runtime.memory.dream().run())
        qtbot.waitUntil(lambda: any(k.startswith("budget:") for k in window._banners))
        [key] = [k for k in window._banners if k.startswith("budget:")]
        banner = window.banner(key)
        assert banner is not None
        banner.buttons[1].click()
        qtbot.waitUntil(run.done, timeout=30_000)
        assert run.result().status == "changed", run.result()
        assert load_prefs(prefs_file).budgets.sources["dream"].daily_tokens == 40000
        assert window.banner(key) is None and key == banner_key(key.split(":", 1)[1])
        assert len(scripted_server.chat_requests()) == 3
    finally:
        run_async(qtbot, qloop, runtime.stop())
        run_async(qtbot, qloop, services.aclose_tabs())
        services.clear_runtime()
        run_async(qtbot, qloop, app.notifier.aclose())
        theme.setParent(None)
