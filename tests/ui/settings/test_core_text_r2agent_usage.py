"""The usage ledger's gap warnings on Settings › Usage in the window's language (issue #25 §6).

A real ledger, cut (one call lost: "changed outside the app") and deleted (two calls: "deleted
outside the app"); :func:`load_summary` finds the gaps against the checkpoint and
:func:`summary_html` shows them: the English as before, bracketed under the pseudo-locale but
for the figures, Chinese with ``zh_CN``.
"""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime
from pathlib import Path

from pytestqt.qtbot import QtBot

from desktop.core.config.budgets import Budgets
from desktop.core.config.loader import load_config
from desktop.core.usage.ledger import UsageLedger
from desktop.core.usage.record import UsageRecord
from desktop.core.usage.summary import UsageSummary, load_summary
from desktop.core.utils.i18n import Phrase
from desktop.ui.i18n import install_language
from desktop.ui.settings.usage_page import summary_html
from tests.conftest import write_config
from tests.core.usage.helpers import ledger_files, place_of
from tests.ui.i18n.pseudo import _english, pseudo_locale

NOW = datetime.now(UTC)


def _record(tokens: int) -> UsageRecord:
    return UsageRecord(time=time.time() - 1, source="chat", model="m", prompt_tokens=tokens)


def _summaries(tmp_path: Path) -> tuple[UsageSummary, UsageSummary]:
    """(one call lost from a cut ledger, two calls of a deleted one)."""
    found: list[UsageSummary] = []
    for name, cut in (("cut", True), ("deleted", False)):
        (tmp_path / name / "ws").mkdir(parents=True)
        config_path = write_config(
            tmp_path / name / "cfg" / "config.json",
            {"agents": {"defaults": {"workspace": str(tmp_path / name / "ws")}}},
        )
        place = place_of(load_config(config_path, environ={}))
        UsageLedger(place).extend([_record(100), _record(200)])
        [path] = ledger_files(place)
        if cut:
            path.write_bytes(path.read_bytes().splitlines(keepends=True)[0])
        else:
            path.unlink()
        found.append(load_summary(place, zone="UTC"))
    return found[0], found[1]


def _warnings(html: str) -> list[str]:
    return re.findall(r"<b>⚠ (.*?)</b>", html)


def test_ledger_gaps_are_shown_in_the_window_language(qtbot: QtBot, tmp_path: Path) -> None:
    cut, deleted = _summaries(tmp_path)
    month = NOW.strftime("%B %Y")
    # (a) the English as before.
    assert cut.warnings == [
        f"The usage ledger for {month} lost 1 call (200 tokens, $0.00): it was changed outside "
        "the app; they still count toward the budgets."
    ]
    assert deleted.warnings == [
        f"The usage ledger for {month} was deleted outside the app: its 2 calls (300 tokens, "
        "$0.00) still count toward the budgets."
    ]
    assert all(isinstance(w, Phrase) for w in cut.warnings + deleted.warnings)
    # (b) the pseudo-locale: the figures are all that is left outside the brackets.
    with pseudo_locale():
        shown = [w for s in (cut, deleted) for w in _warnings(summary_html(s, Budgets()))]
    assert len(shown) == 2
    assert [w for w in shown if _english(w, frozenset())] == []
    # (c) Chinese.
    try:
        install_language("zh_CN")
        [lost] = _warnings(summary_html(cut, Budgets()))
        [gone] = _warnings(summary_html(deleted, Budgets()))
    finally:
        install_language("en")
    label = f"{NOW.year}年{NOW.month}月"
    assert lost == (
        f"{label}的用量账本丢失了 1 次调用（200 个令牌，$0.00）：它在应用之外被修改；"
        "这些仍计入预算。"
    )
    assert (
        gone
        == f"{label}的用量账本在应用之外被删除：其中的 2 次调用（300 个令牌，$0.00）仍计入预算。"
    )
