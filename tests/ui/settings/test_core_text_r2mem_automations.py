"""Settings › Automations: the core's receipts and errors in the window's language (issue #25
§6, round 2).

Real receipts (in the runtime's receipt log, as runs leave them) fill the Last run column and
the Past runs list; real refusals of the core (an empty name, a system job's name, a job gone)
fill the status line. The pseudo locale shows them bracketed apart from data, zh_CN shows
Chinese, and the English is what it was. A last test walks every receipt outcome and detail
through :func:`describe_receipt`, so a new outcome or f-string there fails it.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from typing import get_args

from pytestqt.qtbot import QtBot

from desktop.core.assembly import build_runtime
from desktop.core.cron.receipts import Outcome, Receipt
from desktop.core.cron.spec import describe_receipt
from desktop.core.cron.types import CronSchedule
from desktop.core.utils.i18n import Phrase
from desktop.ui.i18n import install_language, localized
from desktop.ui.services import AppServices
from desktop.ui.settings import SettingsTab
from tests.core.agent.conftest import make_provider
from tests.core.cron.test_cron import FakeClock
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.typed import present
from tests.ui.conftest import run_async
from tests.ui.i18n.pseudo import _english, pseudo_locale
from tests.ui.settings.test_pseudo_locale_setC_automations import DATA, _open, check

NOW = "2026-05-01T10:00:00+00:00"
HOUR = 3_600_000
# Data on screen: places, a provider's own error text, times in their zone.
RECEIPT_DATA = ["desktop", "telegram", "the disk is full", "UTC"]


def receipts_for(job_id: str, start_ms: int) -> list[Receipt]:
    """A late delivery, a quiet one, a skipped run over budget shown on the desktop, a failure
    with its reason, and the person's answer to the first."""
    late = Receipt(
        job_id=job_id,
        outcome="delivered",
        at_ms=start_ms,
        due_at_ms=start_ms - 3 * HOUR,
        late=True,
        missed=4,
        delivered_to=("desktop", "telegram"),
    )
    return [
        late,
        Receipt(job_id, "done", start_ms + 60_000, run_id=late.id),
        Receipt(job_id, "delivered", start_ms + HOUR, delivered_to=("desktop",), quiet=True),
        Receipt(job_id, "skipped", start_ms + 2 * HOUR, cause="budget", delivered_to=("desktop",)),
        Receipt(job_id, "failed", start_ms + 3 * HOUR, reason="the disk is full"),
    ]


def test_receipts_and_refusals_are_shown_in_the_window_language(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    services: AppServices,
    scripted_server: ScriptedOpenAIServer,
) -> None:
    clock = FakeClock(NOW)
    runtime = build_runtime(services.config, make_provider(scripted_server.url), clock=clock)
    services.set_runtime(runtime)
    cron = runtime.cron
    tea = cron.add_job("tea", CronSchedule("every", every_ms=HOUR), message="Green tea")
    start = int(clock() * 1000) - 5 * HOUR
    for receipt in receipts_for(tea.id, start):
        cron.receipts.append(receipt)
    try:
        with pseudo_locale():
            page = _open(make_tab)
            qtbot.waitUntil(lambda: len(page.rows) >= 1, timeout=10_000)
            row = [r.id for r in page.rows].index(tea.id)
            english_row = page.rows[row]
            assert english_row.past[0].startswith("failed at ")  # the English as it was
            assert english_row.past[-1].endswith(
                "(late: due 2026-05-01 02:00 UTC, 4 runs missed); done by you at "
                "2026-05-01 05:01 UTC"
            )
            assert english_row.past[1] == (
                "skipped (over budget; its text shown on desktop) at 2026-05-01 07:00 UTC"
            )
            page.table.selectRow(row)
            qtbot.waitUntil(lambda: page.details.past.count() == 4)
            last = present(page.table.item(row, 4)).text()
            assert last.startswith("⟦") and "the disk is full" in last
            past = [page.details.past.item(i).text() for i in range(4)]
            assert any("⟦skipped⟧" in text and "⟦over budget⟧" in text for text in past), past
            allow = [*DATA, *RECEIPT_DATA]
            check(page, allow)
            # The core's refusals: an empty name, a system job's fixed name, a job gone.
            for job_id, name in (
                (tea.id, "   "),
                ("dream", "Dreams"),
                ("gone123", "x"),
            ):
                run_async(qtbot, qloop, page._rename(job_id, name))
                assert page.status.kind == "error"
                shown = page.status.text()
                assert shown.startswith("⟦Not renamed: ⟦"), shown
                assert not _english(shown, frozenset(["'dream'", "'gone123'"])), shown
        assert install_language("zh_CN") == "zh_CN"
        run_async(qtbot, qloop, page._rename(tea.id, ""))
        assert "名称不能为空" in page.status.text()
        run_async(qtbot, qloop, page.refresh())
        page.table.selectRow([r.id for r in page.rows].index(tea.id))
        qtbot.waitUntil(lambda: page.details.past.count() == 4)
        past = [page.details.past.item(i).text() for i in range(4)]
        assert past[1] == "已跳过（超出预算；其内容已在 desktop 显示），时间 2026-05-01 07:00 UTC"
        assert past[0] == "失败，时间 2026-05-01 08:00 UTC — the disk is full"
    finally:
        install_language("en")
        run_async(qtbot, qloop, runtime.stop(), 60_000)
        services.clear_runtime()


def test_every_receipt_outcome_and_detail_reads_translated(qtbot: QtBot) -> None:
    answers: list[Receipt | None] = [
        None,
        Receipt("j", "done", 2_000),
        Receipt("j", "snoozed", 2_000, reason="until 2026-05-01 10:40 UTC (job j)"),
    ]
    seen = 0
    with pseudo_locale():
        for outcome, quiet, places, late, missed, cause, answer in itertools.product(
            get_args(Outcome),
            (False, True),
            ((), ("desktop",)),
            (False, True),
            (0, 3),
            (None, "budget", "paused"),
            answers,
        ):
            run = Receipt(
                "j",
                outcome,
                1_000,
                due_at_ms=500,
                late=late,
                missed=missed,
                delivered_to=places,
                quiet=quiet,
                cause=cause,
                reason="the disk is full" if outcome == "failed" else None,
            )
            text = describe_receipt(run, answer, "UTC")
            assert isinstance(text, Phrase), text
            shown = localized(text)
            data = [*RECEIPT_DATA, "until 2026-05-01 10:40 UTC (job j)"]
            assert not _english(shown, frozenset(data)), (str(text), shown)
            seen += 1
    assert seen == len(get_args(Outcome)) * 2 * 2 * 2 * 2 * 3 * 3
