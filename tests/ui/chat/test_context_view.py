"""The chat's context view: the meter opens a per-round chart of what the provider reported
(real turns on the scripted server through LiteLLM, read back from the usage ledger), and
"Compact now" runs ``/compact`` and shows the compaction when it lands."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from desktop.ui.chat.context_dialog import ContextView
from tests.fakes.openai_server import Reply
from tests.typed import present
from tests.ui.chat.conftest import ChatHarness, MakeChat


def _numbers(view: ContextView) -> list[tuple[int, int, int]]:
    return [(r.prompt_tokens, r.completion_tokens, r.cached_tokens) for r in view.context.rounds]


def test_the_meter_opens_each_round_as_reported_and_compact_now_marks_it(
    make_chat: MakeChat,
    qtbot: QtBot,
) -> None:
    chat: ChatHarness = make_chat(context_window_tokens=32768)
    chat.server.push(
        Reply(tool_calls=[("list_dir", "{}")], usage=(1200, 40)),
        Reply("Two files here.", usage=(1500, 25), cached=1024),
        Reply("Porto it is.", usage=(2100, 30), cached=1408),
    )
    chat.send("What is in the folder?")
    chat.idle()
    chat.send("Pick a city for me.")
    chat.idle()
    bar = chat.tab.pane.usage
    chat.wait(bar.meter.isVisible)

    qtbot.mouseClick(bar.meter, Qt.MouseButton.LeftButton)
    views = chat.tab.context_views
    chat.wait(lambda: views.view is not None and views.view.loads > 0 and views.view.isVisible())
    view = views.view
    assert view is not None
    assert _numbers(view) == [(1200, 40, 0), (1500, 25, 1024), (2100, 30, 1408)]
    assert view.window_tokens == 32768 and view.chart.window_tokens == 32768
    assert not view.context.compactions  # (not `== ()`: mypy would narrow it to an empty tuple)
    assert "3 round(s)" in view.summary.text() and "2,100 of 32,768" in view.summary.text()
    assert "cache hits in 2 round(s), 2,432 tokens" in view.summary.text()
    assert view.chart.describe().startswith("3 round(s); last input 2,100 of 32,768")

    chat.server.push(Reply("- Listed the folder; chose Porto.", usage=(900, 60)))
    qtbot.mouseClick(view.compact_button, Qt.MouseButton.LeftButton)
    assert not view.compact_button.isEnabled()
    chat.wait(lambda: len(view.context.compactions) == 1 and view.compact_button.isEnabled())
    assert view.context.compactions[0].after == 3 and view.context.compactions[0].tokens == 960
    assert chat.items()[-1].kind == "command" and chat.items()[-1].text == "Context compacted."
    composer = chat.tab.pane.composer
    chat.wait(lambda: not composer.busy)  # the command's turn is over: nothing to guide
    assert not composer.edit.placeholderText().startswith("Guide"), composer.edit.placeholderText()

    # The view follows the chat: a turn after the compaction lands after the mark.
    chat.server.push(Reply("Hello again.", usage=(700, 12), cached=512))
    chat.send("Hi again")
    chat.idle()
    chat.wait(lambda: len(view.context.rounds) == 4)
    assert _numbers(view)[-1] == (700, 12, 512)
    assert view.context.compactions[0].after == 3
    assert "compacted 1×" in view.summary.text()
    assert not view.chart.grab().isNull()  # drawn with the compaction mark

    view.close()
    chat.wait(lambda: views.view is None)
    bar.meter.setFocus()
    qtbot.keyClick(bar.meter, Qt.Key.Key_Return)  # the keyboard opens it too
    chat.wait(lambda: views.view is not None and views.view.loads > 0)
    reopened = present(views.view)
    assert len(reopened.context.rounds) == 4
    reopened.close()


def test_a_long_chat_shows_its_latest_rounds_and_the_marks_among_them(qtbot: QtBot) -> None:
    """More rounds than fit: the chart draws the latest ones (and says so); a compaction
    among them is placed by its round, one before them is not drawn."""
    from desktop.core.usage.rounds import Compaction, Round, SessionContext
    from desktop.ui.chat.context_chart import ContextChart

    rounds = tuple(Round(float(n), "m", 1000 + n, 50, cached_tokens=n) for n in range(300))
    context = SessionContext("k", rounds, (Compaction(1.5, 2), Compaction(299.5, 299)))
    chart = ContextChart()
    qtbot.addWidget(chart)
    chart.resize(600, 300)
    chart.set_data(context, 4096)
    chart.show()
    qtbot.waitExposed(chart)
    image = chart.grab().toImage()
    assert not image.isNull()
    assert 0 < chart.first < 300 - 30  # at least 30 of the latest drawn, not all 300
    assert chart._bars[-1][1] == 299 and chart._bars[0][1] == chart.first
    assert chart.describe() == (
        "300 round(s); last input 1,299 of 4,096 tokens, output 50; 2 compaction(s)"
    )


def test_a_chat_from_an_earlier_run_shows_its_meter_and_rounds_from_the_ledger(
    make_chat: MakeChat,
    workspace: Path,
    qtbot: QtBot,
) -> None:
    """A chat whose turns ran before this window started (its calls in the real ledger file)
    shows its context meter when opened, and the view lists those rounds and the compaction."""
    import time

    from desktop.core.usage.record import UsageRecord
    from tests.core.usage.helpers import ledger_of
    from tests.ui.chat.conftest import write_session

    write_session(
        workspace,
        "telegram:7",
        [{"role": "user", "content": "Plan a day."}, {"role": "assistant", "content": "Go."}],
    )
    chat: ChatHarness = make_chat(context_window_tokens=32768)
    now = time.time() - 600
    ledger = ledger_of(chat.services.config)
    for n, (source, prompt, cached) in enumerate(
        [("chat", 4000, 0), ("chat", 5200, 3900), ("consolidation", 6000, 0), ("chat", 2400, 0)]
    ):
        ledger.append(
            UsageRecord(
                time=now + n,
                source=source,
                model="m",
                prompt_tokens=prompt,
                completion_tokens=80,
                cached_tokens=cached,
                session="telegram:7",
            )
        )
    bar = chat.tab.pane.usage
    assert bar.isHidden()  # the new chat shown at start has no rounds
    chat.wait(lambda: "telegram:7" in chat.tab.sessions.shown_keys())
    chat.tab.open_session("telegram:7")
    chat.wait(bar.meter.isVisible)
    assert bar.meter.value() == round(100 * 2400 / 32768)
    qtbot.mouseClick(bar.meter, Qt.MouseButton.LeftButton)
    views = chat.tab.context_views
    chat.wait(lambda: views.view is not None and views.view.loads > 0)
    view = views.view
    assert view is not None and view.key == "telegram:7"
    assert _numbers(view) == [(4000, 80, 0), (5200, 80, 3900), (2400, 80, 0)]
    assert [(c.after, c.tokens) for c in view.context.compactions] == [(2, 6080)]
    view.close()
