"""The spend governor's messages in the window's language (issue #25 §6).

The real runtime's governor, on the scripted model server, pauses Dream over its budget, warns
and then refuses a chat at its cap, and stops a runaway Dream run; the events it sends are shown
by the window's own :class:`BudgetPrompts` (banners) and the chat's error banner. Each message
keeps its English (the core tests compare it), is bracketed under the pseudo-locale (no English
outside ``⟦…⟧`` but the figures), and reads Chinese with ``zh_CN``. A walk over every budget
clause and warning the governor can word checks that the family stays marked.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from desktop.app import build_main_window
from desktop.core.bus.events import BudgetPaused, BudgetWarning, RunawayStopped, TurnFailed
from desktop.core.config.schema import Config
from desktop.core.usage import governor
from desktop.core.usage.governor import BudgetRefused
from desktop.core.utils.i18n import Phrase
from desktop.ui.bridge import CoreBridge
from desktop.ui.budget_prompts import BudgetPrompts, banner_key
from desktop.ui.chat.error_banner import ErrorBanner
from desktop.ui.i18n import install_language, localized
from desktop.ui.main_window import MainWindow
from tests.core.usage.test_governor import _config, _dream_script, _of, _runtime, _spent
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.ui.conftest import run_async
from tests.ui.i18n.pseudo import _english, pseudo_locale, untranslated

pytestmark = pytest.mark.usefixtures("qloop")


@pytest.fixture
def window(qtbot: QtBot) -> Iterator[MainWindow]:
    win = build_main_window()
    qtbot.addWidget(win)
    yield win
    win.allow_close()
    win.close()


def _prompts(window: MainWindow) -> BudgetPrompts:
    """The window's budget banners (answers go nowhere: the events were answered already)."""
    services: Any = SimpleNamespace(bridge=CoreBridge(), answer_budget=lambda *_: None)
    return BudgetPrompts(services, window)


def _paused(qtbot: QtBot, loop: asyncio.AbstractEventLoop, config: Config, server: Any) -> Any:
    """A real pause: Dream over its daily budget, asked, kept paused."""
    _spent(config, "dream", [6000, 6000, 6000])
    _dream_script(server)
    runtime, events = _runtime(
        config, server, {"sources": {"dream": {"dailyTokens": 20000}}}, ask=True
    )

    async def run() -> None:
        try:
            task = asyncio.ensure_future(runtime.memory.dream().run())
            while not _of(events, BudgetPaused):
                await asyncio.sleep(0.01)
            assert runtime.governor is not None
            runtime.governor.answer(_of(events, BudgetPaused)[0].request_id, "keep")
            await task
        finally:
            await runtime.stop()

    run_async(qtbot, loop, run(), 30_000)
    return _of(events, BudgetPaused)[0]


def _runaway(qtbot: QtBot, loop: asyncio.AbstractEventLoop, config: Config, server: Any) -> Any:
    """A real runaway stop: Dream uses 3× its usual tokens."""
    _spent(config, "dream", [1000, 1000, 1200])
    _dream_script(server, usage=(1400, 200))
    runtime, events = _runtime(
        config, server, {"runawayMultiple": 2, "runawayMinTokens": 0}, ask=True
    )

    async def run() -> None:
        try:
            await runtime.memory.dream().run()
        finally:
            await runtime.stop()

    run_async(qtbot, loop, run(), 30_000)
    return _of(events, RunawayStopped)[0]


def _chat_cap(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, config: Config, server: ScriptedOpenAIServer
) -> tuple[BudgetWarning, BudgetWarning, TurnFailed]:
    """A real chat warning at 85%, then the hard cap's refusal."""
    _spent(config, "chat", [850], session="desktop:x")
    server.default = Reply("Hi.", usage=(60, 40))
    budgets: dict[str, Any] = {"sources": {"chat": {"dailyTokens": 1000}}, "chatWarnAt": 0.8}
    runtime, events = _runtime(config, server, budgets, ask=True)

    async def run() -> None:
        try:
            await runtime.agent.process_direct("hello")
            await runtime.agent.process_direct("again")
            budgets["chatHardCap"] = True
            with pytest.raises(BudgetRefused):
                await runtime.agent.process_direct("and once more")
        finally:
            await runtime.stop()

    run_async(qtbot, loop, run(), 30_000)
    warning, cap = _of(events, BudgetWarning)
    return warning, cap, _of(events, TurnFailed)[0]


def _banner_texts(window: MainWindow) -> list[str]:
    return [b.text() for b in window._banners.values()]


def test_budget_pause_runaway_and_chat_cap_are_shown_in_the_window_language(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    tmp_path: Path,
    window: MainWindow,
    scripted_server: ScriptedOpenAIServer,
) -> None:
    for name in "abc":
        (tmp_path / name).mkdir()
    # (One ledger for the three: the chat first, before Dream's calls count.)
    warning, cap, failed = _chat_cap(qtbot, qloop, _config(tmp_path / "c"), scripted_server)
    paused = _paused(qtbot, qloop, _config(tmp_path / "a"), scripted_server)
    stopped = _runaway(qtbot, qloop, _config(tmp_path / "b"), scripted_server)
    # (a) the English is what it was (logs, the CLI and the channels see it).
    assert paused.message == (
        "Dream wants ~6,000 tokens; today's Dream budget is 20k and 18k are spent"
    )
    assert stopped.message == "Stopped a dream run: it used 3,200 tokens, 3× its usual 1,000."
    assert warning.message == "85% of the chat token budget for today is spent."
    assert (
        failed.message
        == cap.message
        == (
            "The spend cap is reached: today's Chat budget is 1,000 and 1,050 are spent. "
            "Raise it in Settings › Usage & budgets."
        )
    )
    errors = ErrorBanner()
    qtbot.addWidget(errors)

    def show_all() -> None:
        prompts = _prompts(window)
        prompts.on_paused(paused)
        prompts.on_runaway(stopped)
        prompts.on_warning(warning)
        errors.show_error(failed.error_kind, failed.message, failed.details)
        prompts.deleteLater()

    # (b) the pseudo-locale: every word went through the translation system.
    with pseudo_locale():
        show_all()
        shown = [*_banner_texts(window), errors.label.text()]
        assert len(shown) == 4
        assert [t for t in shown if _english(t, frozenset())] == []
        assert untranslated(window._banners[banner_key(paused.request_id)]) == []
    # (c) Chinese.
    try:
        install_language("zh_CN")
        show_all()
        by_key = {k: b.text() for k, b in window._banners.items()}
        assert by_key[banner_key(paused.request_id)] == (
            "梦境整理需要约 6,000 个令牌；今天的梦境整理预算为 20k，已用 18k。"
        )
        assert by_key[f"runaway:{stopped.run}"] == (
            "已停止一次梦境整理运行：它用了 3,200 个令牌，是平常 1,000 的 3 倍。"
        )
        assert by_key["budget-warning:chat"] == "今天的聊天令牌预算已用 85%。"
        assert errors.label.text().startswith(
            "已达到花费上限：今天的聊天预算为 1,000，已用 1,050。"
        )
    finally:
        install_language("en")


def _over(scope: str, period: str, tokens: bool) -> Any:
    spent = governor._Spend(tokens=1234, usd=1.5)
    limit_tokens, limit_usd = (2000, None) if tokens else (None, 2.0)
    return governor._Over(scope, period, spent, limit_tokens, limit_usd)  # type: ignore[arg-type]


def test_every_budget_message_the_governor_words_is_a_phrase_shown_translated(
    qtbot: QtBot,
) -> None:
    """The whole family: every source, scope, period, unit and estimate the governor can put
    into a pause, a warning, a cap or a runaway stop (a new f-string here fails this)."""
    from desktop.core.config.budgets import SOURCES

    texts: list[str] = []
    for source, overall, period, tokens, estimate in itertools.product(
        SOURCES, (False, True), ("day", "month"), (False, True), (0, 6000)
    ):
        over = _over("overall" if overall else source, period, tokens)
        texts.append(governor._describe(source, over, estimate))
        texts.append(governor._paused(governor._describe(source, over, estimate)))
        texts.append(governor._warning(0.85, over.scope, tokens, period == "day"))
    assert all(isinstance(t, Phrase) for t in texts)
    with pseudo_locale():
        left = {t: _english(localized(t), frozenset()) for t in texts}
    assert {t: w for t, w in left.items() if w} == {}
