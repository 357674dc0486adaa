"""Settings › Automations: stored receipt reasons and a system job's refusal in the window's
language (issue #25 §6 leftovers).

A receipt keeps its reason as English text in ``cron/receipts.jsonl`` (nanobot's format; old
files too). The window reads back the reasons that are ours — a snooze written by the real
:func:`snooze`, a budget refusal as an older run stored it, the same for a reminder whose text
reached no one — as the phrases they were, and shows them in its language; the stored line is
not touched, and a reason that is not ours (a provider's error) stays as it is. Removing a
system job is refused with a phrase too.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.assembly import build_runtime
from desktop.core.bus.events import ReminderDue
from desktop.core.cron.receipts import Receipt
from desktop.core.cron.service import CronService, ProtectedJobError
from desktop.core.cron.snooze import snooze
from desktop.core.cron.types import CronSchedule
from desktop.ui.i18n import install_language, localized
from desktop.ui.services import AppServices
from desktop.ui.settings import SettingsTab
from tests.core.agent.conftest import make_provider
from tests.core.cron.test_cron import FakeClock
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.ui.conftest import run_async
from tests.ui.i18n.pseudo import _english, pseudo_locale
from tests.ui.settings.test_pseudo_locale_setC_automations import DATA, _open

NOW = "2026-05-01T10:00:00+00:00"
HOUR = 3_600_000
PAUSED = (
    "Paused by the budget: Cron wants ~12k tokens; today's overall budget is 50k and 51k are spent."
)
NOBODY = (
    "Paused by the budget: Cron wants to run; this month's cron budget is $5 and $5.20 is "
    "spent; its own text reached no one: no channel is connected."
)
DREAM = (
    "Dream did not run: Paused by the budget: Dream wants ~3k tokens; today's dream budget is "
    "10k and 12k are spent."
)
PENDING = (
    "Dream did not run: its last proposal is still waiting for your review (Memory tab → Dream "
    "review). Accept or reject it first."
)
THEIRS = "the disk is full"


def test_stored_reasons_are_read_back_in_the_window_language(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    services: AppServices,
    scripted_server: ScriptedOpenAIServer,
) -> None:
    clock = FakeClock(NOW)
    runtime = build_runtime(services.config, make_provider(scripted_server.url), clock=clock)
    services.set_runtime(runtime)
    try:
        _check_reasons(make_tab, qtbot, runtime.cron)
    finally:
        install_language("en")
        run_async(qtbot, qloop, runtime.stop(), 60_000)
        services.clear_runtime()


def _check_reasons(make_tab: Callable[[], SettingsTab], qtbot: QtBot, cron: CronService) -> None:
    tea = cron.add_job("tea", CronSchedule("every", every_ms=HOUR), message="Green tea")
    start = int(cron.clock() * 1000) - 5 * HOUR
    first = Receipt(tea.id, "delivered", start, delivered_to=("desktop",))
    for receipt in (
        first,
        Receipt(tea.id, "skipped", start + HOUR, cause="budget", reason=PAUSED),
        Receipt(tea.id, "skipped", start + 2 * HOUR, cause="budget", reason=NOBODY),
        Receipt(tea.id, "failed", start + 3 * HOUR, reason=THEIRS),
        Receipt(tea.id, "skipped", start + 3 * HOUR + 1, cause="budget", reason=DREAM),
        Receipt(tea.id, "skipped", start + 3 * HOUR + 2, cause="paused", reason=PENDING),
    ):
        cron.receipts.append(receipt)
    due = ReminderDue("desktop:direct", tea.id, "tea", "Time for tea", run_id=first.id)
    snooze(cron, due, "10m")
    log = cron.receipts.path(tea.id)
    stored = log.read_text(encoding="utf-8")
    lines = [json.loads(line) for line in stored.splitlines()]
    until = next(line["reason"] for line in lines if line.get("outcome") == "snoozed")
    assert until.startswith("until 2026-05-01 10:10 UTC (job ")  # as before
    page = _open(make_tab)
    qtbot.waitUntil(lambda: tea.id in [r.id for r in page.rows], timeout=10_000)
    row = next(r for r in page.rows if r.id == tea.id)
    english = [str(run) for run in row.past]
    assert any(text.endswith(" — " + PAUSED) for text in english), english
    assert any(text.endswith(" — " + NOBODY) for text in english), english
    assert any(text.endswith(" — " + DREAM) for text in english), english
    assert any(text.endswith(" — " + PENDING) for text in english), english
    assert any(text.endswith(" " + until) for text in english), english
    data = [*DATA, THEIRS, "desktop", "no channel is connected"]
    with pseudo_locale():
        shown = [localized(run) for run in row.past]
        for text in shown:
            assert not _english(text, frozenset(data)), text
        assert any("⟦until 2026-05-01 10:10 UTC (job " in text for text in shown), shown
        assert any(f" — {THEIRS}" in text for text in shown), shown
    install_language("zh_CN")
    shown = [localized(run) for run in row.past]
    assert any("因预算暂停：计划任务需要约 12k 个令牌" in text for text in shown), shown
    assert any("推迟到 2026-05-01 10:10 UTC（任务 " in text for text in shown), shown
    assert any("梦境整理未运行：因预算暂停：" in text for text in shown), shown
    assert any("其本身的内容没有送达任何人：no channel is connected。" in text for text in shown)
    install_language("en")
    assert log.read_text(encoding="utf-8") == stored  # nothing rewritten


def test_removing_a_system_job_is_refused_in_the_window_language(
    services: AppServices, scripted_server: ScriptedOpenAIServer
) -> None:
    runtime = build_runtime(services.config, make_provider(scripted_server.url))
    with pytest.raises(ProtectedJobError) as refused:
        runtime.cron.remove_job("dream")
    english = "'dream' is a system job and cannot be removed; disable it in the settings instead"
    assert str(refused.value) == english
    with pseudo_locale():
        assert not _english(localized(refused.value), frozenset(["'dream'"]))
    try:
        install_language("zh_CN")
        assert localized(refused.value) == "'dream' 是系统任务，不能删除；请改为在设置中停用它"
    finally:
        install_language("en")


def test_a_damaged_queue_of_job_edits_is_told_in_the_window_language(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    services: AppServices,
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """nanobot's ``action.jsonl`` with lines that cannot be used: the queue is set aside as
    before, and Settings › Automations now says so (it only went to the log)."""
    runtime = build_runtime(services.config, make_provider(scripted_server.url))
    services.set_runtime(runtime)
    queue = runtime.cron.store_path.parent / "action.jsonl"
    lines = ["not json", json.dumps({"action": "del", "params": {"job_id": "gone"}})]
    queue.parent.mkdir(parents=True, exist_ok=True)
    queue.write_text("\n".join(lines) + "\n", encoding="utf-8")
    try:
        with pseudo_locale():
            page = _open(make_tab)
            qtbot.waitUntil(lambda: page.status.text() != "", timeout=10_000)
            shown = page.status.text()
            warning = runtime.cron.warning
            assert warning is not None
            assert warning.startswith(
                f"{queue}: line 1 is not JSON; the queue was kept as action.jsonl.corrupt-"
            )  # the English, as logged before
            kept = warning.rsplit(" ", 1)[1]
            assert "⟦line 1 is not JSON⟧" in shown, shown
            assert not _english(shown, frozenset([str(queue), kept])), shown
        install_language("zh_CN")
        assert "第 1 行不是 JSON" in localized(warning), localized(warning)
    finally:
        install_language("en")
        run_async(qtbot, qloop, runtime.stop(), 60_000)
        services.clear_runtime()


def test_a_linked_jobs_file_is_told_in_the_window_language(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    services: AppServices,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
) -> None:
    """``jobs.json`` is a symbolic link (the app never follows one to its own files): it is
    moved aside, the scheduler starts empty, and the page says why in the window's language."""
    runtime = build_runtime(services.config, make_provider(scripted_server.url))
    services.set_runtime(runtime)
    jobs = runtime.cron.store_path
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text('{"version": 1, "jobs": []}', encoding="utf-8")
    jobs.parent.mkdir(parents=True, exist_ok=True)
    jobs.unlink(missing_ok=True)
    jobs.symlink_to(elsewhere)
    try:
        with pseudo_locale():
            page = _open(make_tab)
            qtbot.waitUntil(lambda: page.status.text() != "", timeout=10_000)
            shown = page.status.text()
            warning = runtime.cron.warning
            assert warning is not None
            assert warning.startswith(
                f"The scheduled jobs file {jobs} could not be read (it is a symbolic link (the "
                "app does not follow links to or inside its own files); it was moved to "
            ), warning  # the English, as logged before
            moved = warning.split("it was moved to ", 1)[1].split(")", 1)[0]
            assert "⟦is a symbolic link (the app does not" in shown, shown
            assert not _english(shown, frozenset([str(jobs), moved])), shown
        install_language("zh_CN")
        assert "是符号链接" in localized(warning), localized(warning)
    finally:
        install_language("en")
        run_async(qtbot, qloop, runtime.stop(), 60_000)
        services.clear_runtime()
