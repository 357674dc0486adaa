"""The window frame in the pseudo locale: tabs, placeholders, status, every banner, the error
dialog, the tray's menu and tooltips and the reminder notifications show no untranslated text;
and in the real zh_CN translation they read Chinese."""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QPushButton
from pytestqt.qtbot import QtBot

from desktop.app import (
    SETUP_BANNER,
    _Onboarding,
    _switch_provider,
    build_main_window,
    install_tabs,
)
from desktop.core.bus.events import (
    BudgetPaused,
    BudgetWarning,
    DeliveryFailed,
    PairingRequested,
    ReminderDue,
    RunawayStopped,
)
from desktop.core.config.loader import load_config
from desktop.core.cron.service import CronService
from desktop.core.cron.types import CronSchedule
from desktop.ui.budget_prompts import BudgetPrompts
from desktop.ui.error_dialog import ErrorDialog
from desktop.ui.i18n import install_language, tr
from desktop.ui.notifications import Notifier, build_request
from desktop.ui.pairing_prompts import PairingPrompts
from desktop.ui.services import AppServices
from desktop.ui.shell import DesktopApp, sandbox_banner_text
from desktop.ui.single_instance import SingleInstance
from desktop.ui.startup import AgentStarter
from desktop.ui.theme import Theme
from desktop.ui.tray import Tray, format_when
from tests.conftest import custom_config, write_config
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.ui.conftest import run_async
from tests.ui.i18n.pseudo import _english, pseudo_locale, untranslated

pytestmark = pytest.mark.usefixtures("qloop", "memory_keyring")


def _config(tmp_path: Path, name: str, data: dict[str, object] | None = None) -> Path:
    return write_config(
        tmp_path / name / "config.json",
        data
        or {
            "agents": {
                "defaults": {
                    "model": "gpt-4o-mini",
                    "provider": "openai",
                    "workspace": str(tmp_path / "ws"),
                }
            }
        },
    )


def _english_in(texts: list[str], allow: list[str]) -> list[str]:
    """The texts (tooltips, notification fields) that show English wording outside ⟦…⟧."""
    return [text for text in texts if _english(text, frozenset(allow))]


def test_the_window_its_status_and_banners_show_no_untranslated_text(
    qtbot: QtBot, qapp: QApplication, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    """Tabs and placeholders; the start-up's statuses (a real start without a key, a broken
    settings file); every banner the frame shows (agent, settings file, delivery, sandbox,
    setup, model switch, budget, pairing, reminder)."""
    with pseudo_locale():
        window = build_main_window()
        qtbot.addWidget(window)
        window.show()
        assert untranslated(window) == []
        path = _config(tmp_path, "nokey")
        app = DesktopApp(
            qapp, window, Theme(qapp, "light"), SingleInstance(path.parent), prefs_file=path
        )
        starter = app.starter = AgentStarter(path)
        shown: list[list[str]] = []
        starter.status.connect(window.set_status)
        starter.status.connect(lambda _text: shown.append(untranslated(window)))
        starter.agentFailed.connect(app._on_agent_failed)
        with qtbot.waitSignal(starter.agentFailed, timeout=20_000) as failed:
            starter.start()
        assert failed.args[0].startswith("⟦No API key for OpenAI.")  # the core's template
        assert window.banner("agent") is not None
        assert shown and all(found == [] for found in shown), shown
        assert untranslated(window) == []
        window.set_status("ready — openai/gpt-4o-mini")
        assert window.status_label.text() == "⟦ready — openai/gpt-4o-mini⟧"
        run_async(qtbot, qloop, starter.stop())

        broken = tmp_path / "broken" / "config.json"
        broken.parent.mkdir()
        broken.write_text('{"agents": ')
        other = AgentStarter(broken)
        other.status.connect(window.set_status)
        app.starter = other
        other.configFailed.connect(app._on_config_failed)
        with qtbot.waitSignal(other.configFailed, timeout=10_000):
            other.start()
        assert window.banner("config") is not None
        assert untranslated(window) == []

        app._on_delivery_failed(DeliveryFailed("telegram", "42", "the chat is gone", "Hello"))
        assert untranslated(window, allow=["the chat is gone"]) == []
        app._on_delivery_failed(DeliveryFailed("telegram", "42", "the chat is gone"))
        assert untranslated(window, allow=["the chat is gone"]) == []
        for refused in (False, True):
            window.show_banner("sandbox", sandbox_banner_text(refused, "bwrap is missing"))
            assert untranslated(window, allow=["bwrap is missing"]) == []

        services = AppServices(load_config(path), path, None)  # type: ignore[arg-type]
        onboarding = _Onboarding(window, services)
        onboarding.open()
        wizard = onboarding.wizard
        assert wizard is not None and wizard.windowTitle() == "⟦Welcome to nanobot Desktop⟧"
        wizard.skip()
        banner = window.banner("setup")
        assert banner is not None and banner.text() == f"⟦{SETUP_BANNER}⟧"
        # The closed setup assistant stays a child of the window: its own test checks it (its
        # provider list is a QListWidget, which untranslated() cannot walk: see the report).
        assert untranslated(window, skip=[wizard]) == []
        run_async(qtbot, qloop, onboarding.tasks.aclose())

        class NoModel:
            async def use_model(self, *_args: object) -> None:
                raise LookupError("no key for that model")

        services.runtime = NoModel()  # type: ignore[assignment]  # one layer: the banner
        run_async(qtbot, qloop, _switch_provider(window, services))
        services.runtime = None
        assert window.banner("switch") is not None
        assert untranslated(window, skip=[wizard], allow=["no key for that model"]) == []

        notifier = Notifier(is_paused=lambda: True, window=window)
        budgets = BudgetPrompts(services, window, notifications=None)  # banners, not D-Bus
        pairing = PairingPrompts(services, window)
        money = "Chat budget reached"
        bridge = services.bridge
        bridge.budgetPaused.emit(
            BudgetPaused("r1", "cron", "j", 10, 5, 0.1, 10, None, "cron", "day", money)
        )
        bridge.budgetPaused.emit(
            BudgetPaused("r2", "cron", "j", 10, 5, 0.1, 10, None, "cron", "day", money, False)
        )
        bridge.budgetWarning.emit(BudgetWarning("chat", "chat", "day", money))
        bridge.runawayStopped.emit(RunawayStopped("cron", "run1", "j", 100, 10, money))
        bridge.pairingRequested.emit(PairingRequested("telegram", "4249|zoe", "ABCD", 0.0))
        notifier.on_reminder(
            ReminderDue("desktop:1", "job", "Stretch", "Time to stand up", source="cron")
        )
        for key in ("budget:r1", "budget:r2", "pairing:ABCD", "reminder"):
            assert window.banner(key) is not None, key
        allow = [money, "zoe", "ABCD", "Stretch", "Time to stand up"]
        assert untranslated(window, skip=[wizard], allow=allow) == []
        run_async(qtbot, qloop, pairing._answer("NOPE", True))  # no such code: a banner says so
        assert window.banner("pairing:NOPE") is not None
        assert untranslated(window, skip=[wizard], allow=allow) == []
        for closable in (budgets, pairing, notifier):
            run_async(qtbot, qloop, closable.aclose())
        window.allow_close()
        window.close()


def test_the_error_dialog_shows_no_untranslated_text(qtbot: QtBot, tmp_path: Path) -> None:
    """The dialog, its details open, and after more errors (one and several)."""
    with pseudo_locale():
        dialog = ErrorDialog("ValueError: bad", "Traceback …", tmp_path / "desktop.log")
        qtbot.addWidget(dialog)
        dialog.show()
        assert untranslated(dialog, allow=["ValueError: bad"], skip=[dialog.details]) == []
        for _ in range(2):
            dialog.add_one_more()
            assert untranslated(dialog, allow=["ValueError: bad"], skip=[dialog.details]) == []
        assert dialog.where.text().count("⟦") == 2


def test_the_tray_menu_tooltips_and_notifications_show_no_untranslated_text(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    """The menu with reminders, a pairing request and a Dream review; each tooltip state; the
    reminder notification and its answers; the times of the menu's reminders."""
    with pseudo_locale():
        tray = Tray()
        try:
            assert untranslated(tray.menu) == []
            cron = CronService(tmp_path / "ws" / "cron" / "jobs.json", on_job=_no_job)
            now = dt.datetime.now().astimezone()
            names = []
            for days in (0, 1, 3):
                at = now + dt.timedelta(days=days, minutes=5)
                name = f"stretch-{days}"
                names.append(name)
                cron.add_job(
                    name, CronSchedule("at", at_ms=int(at.timestamp() * 1000)), message="hi"
                )
            tray.cron = cron
            run_async(qtbot, qloop, tray.refresh_reminders())
            tray.set_pairing_requests({"ABCD": "zoe (4249)"})
            tray.set_dream_review(2)
            assert len(tray.action_texts()) >= 12
            assert untranslated(tray.menu, allow=[*names, "zoe", "ABCD"]) == []
            tray.cron = None
            tray.refresh_menu()
            tray.cron = CronService(tmp_path / "empty" / "jobs.json", on_job=_no_job)
            run_async(qtbot, qloop, tray.refresh_reminders())  # "No upcoming reminders"
            assert "⟦No upcoming reminders⟧" in tray.action_texts()
            assert untranslated(tray.menu, allow=["zoe", "ABCD"]) == []
            tray.cron = None
            when = [
                format_when(now + dt.timedelta(days=days), now) for days in (1, 2, 3, 4, 5, 6, 7)
            ]
            assert _english_in(when, []) == []

            tray.set_dream_review(0)
            tray.set_pairing_requests({})
            tips = [tray.icon.toolTip()]
            tray.set_working("t1", True)
            tips.append(tray.icon.toolTip())
            for count in (1, 2):
                tray.set_dream_review(count)
                tips.append(tray.icon.toolTip())
            for state, reason in (("error", "network down"), ("unavailable", "")):
                tray.set_channel_problem("telegram", None)
                tray._channel_status(_status("telegram", state, reason))
                tips.append(tray.icon.toolTip())
            tray._channel_status(_status("slack", "error", "", login="qr"))
            tips.append(tray.icon.toolTip())
            tray._channel_status(_status("email", "error", ""))
            tips.append(tray.icon.toolTip())
            for count in (1, 2):
                tray.set_unread(count)
                tips.append(tray.icon.toolTip())
            tray.set_channel_problem("slack", None)
            tray.set_channel_problem("email", None)
            tips.append(tray.icon.toolTip())
            for count in (1, 3):
                tray.set_waiting_approvals(count)
                tips.append(tray.icon.toolTip())
            allow = ["telegram", "slack", "email", "network down"]
            assert len(set(tips)) >= 12
            assert _english_in(tips, allow) == []
        finally:
            tray.close()

        event = ReminderDue("desktop:1", "job", "Stretch", "Time to stand up", source="cron")
        for item in (event, ReminderDue("desktop:1", "job", "", "", source="cron")):
            request = build_request(item)
            texts = [request.summary, request.body, *request.actions[1::2]]
            assert _english_in(texts, ["Stretch", "Time to stand up"]) == []


def test_the_window_and_the_tray_read_chinese_in_zh_cn(qtbot: QtBot, tmp_path: Path) -> None:
    """The real translation: tab names, the status, a banner's buttons, the tray's menu."""
    try:
        assert install_language("zh_CN") == "zh_CN"
        window = build_main_window()
        qtbot.addWidget(window)
        tabs = [window.tabs.tabText(i) for i in range(window.tabs.count())]
        assert tabs == ["聊天", "设置", "技能", "记忆"]
        assert window.status_label.text() == "正在连接…"
        window.set_status("ready — openai/gpt-4o-mini")
        assert window.status_label.text() == "就绪 — openai/gpt-4o-mini"
        window.set_status("ready — custom/local · Custom (OpenAI-compatible)")
        assert window.status_label.text() == "就绪 — custom/local · 自定义（OpenAI 兼容）"
        banner = window.show_banner(
            "setup", tr(SETUP_BANNER), actions=[(tr("Set up now"), lambda: None)]
        )
        assert banner.text().startswith("nanobot Desktop 尚未设置")
        assert [b.text() for b in banner.buttons] == ["立即设置"]
        assert "关闭" in [b.text() for b in banner.findChildren(QPushButton)]
        tray = Tray()
        try:
            assert tray.action_texts() == ["显示 nanobot", "新建聊天", "", "暂停提醒", "", "退出"]
            now = dt.datetime(2026, 6, 1, 9, 0)  # a Monday
            assert format_when(dt.datetime(2026, 6, 4, 14, 30), now) == "6月4日 周四 14:30"
        finally:
            tray.close()
        window.allow_close()
        window.close()
    finally:
        install_language("en")


async def _no_job(_job: object) -> None:
    return None


def _status(channel: str, state: str, reason: str, *, login: str = ""):  # type: ignore[no-untyped-def]
    from desktop.core.bus.events import ChannelStatusChanged

    return ChannelStatusChanged(channel, state, reason, login_code=login)


def test_a_running_agent_its_status_and_the_reconnect_banner_are_translated(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    tmp_path: Path,
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """The real start-up on the scripted server: the "ready" status; a setting wired in at start
    changed: the "reconnect" banner (the tabs are other areas': only the frame is checked)."""
    with pseudo_locale():
        path = custom_config(tmp_path, scripted_server.url, model="model-a")
        starter = AgentStarter(path)
        window = build_main_window()
        qtbot.addWidget(window)
        try:
            starter.status.connect(window.set_status)
            starter.configLoaded.connect(lambda services: install_tabs(window, services))
            starter.start()
            qtbot.waitUntil(
                lambda: bool(starter.services is not None and starter.services.runtime),
                timeout=20_000,
            )
            services = starter.services
            assert services is not None
            qtbot.waitUntil(lambda: "ready" in window.status_label.text())
            assert untranslated(window.status_label, allow=["model-a"]) == []
            assert untranslated(window.tabs.tabBar()) == []
            services.config.tools.exec.timeout = 7  # baked into the exec tool at start
            run_async(qtbot, qloop, services.save_config())
            qtbot.waitUntil(lambda: window.banner("restart") is not None, timeout=5_000)
            banner = window.banner("restart")
            assert banner is not None and untranslated(banner) == []
        finally:
            if starter.services is not None:
                run_async(qtbot, qloop, starter.services.aclose_tabs())
            run_async(qtbot, qloop, starter.stop(), timeout_ms=20_000)
            window.allow_close()
            window.close()


@pytest.mark.parametrize(
    ("defaults", "start"),
    [
        (
            {"model": "m", "provider": "opnai"},
            "⟦unknown provider 'opnai' in agents.defaults.provider (known: ",
        ),
        ({"model": "openai-codex/gpt-5"}, "⟦Not signed in to "),
    ],
)
def test_no_provider_for_the_model_is_said_in_the_window_language(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    tmp_path: Path,
    defaults: dict[str, str],
    start: str,
) -> None:
    """The core's "unknown provider" and "not signed in" messages (marked templates with their
    values) reach the agent banner translated; the names in them stay as they are."""
    path = _config(tmp_path, "unknown", {"agents": {"defaults": {**defaults, "workspace": "ws"}}})
    with pseudo_locale():
        starter = AgentStarter(path)
        with qtbot.waitSignal(starter.agentFailed, timeout=20_000) as failed:
            starter.start()
        run_async(qtbot, qloop, starter.stop())
    message = failed.args[0]
    assert message.startswith(start) and message.endswith("⟧"), message
    assert message.count("⟦") == 1
