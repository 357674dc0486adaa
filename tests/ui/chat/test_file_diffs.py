"""File changes in tool cards (issue 25 §3): a real turn through the scripted model server in
which the model calls ``edit_file`` and ``write_file``; the tools run on real files and the
cards show the diff they made, in each of the three modes of Settings → Appearance."""

from __future__ import annotations

import json
from pathlib import Path

from desktop.ui.chat.accessible import row_text
from desktop.ui.chat.items import ChatItem
from desktop.ui.settings.appearance_page import AppearancePage
from tests.fakes.openai_server import Reply
from tests.ui.chat.conftest import ChatHarness
from tests.ui.conftest import run_async


def _call(name: str, **arguments: object) -> Reply:
    return Reply(tool_calls=[(name, json.dumps(arguments))])


def _card_text(chat: ChatHarness, card: ChatItem) -> str:
    """What the card shows now, as plain text (its laid-out document)."""
    view = chat.tab.pane.view
    row = chat.items().index(card)
    return "\n".join(p.doc.toPlainText() for p in view.layout_of(row).parts)


def _edit_turn(chat: ChatHarness, workspace: Path) -> tuple[ChatItem, ChatItem]:
    """One turn: the model edits notes.txt, then creates plan.md; both tools really run."""
    (workspace / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    chat.server.push(
        _call("edit_file", path="notes.txt", old_text="beta", new_text="BETA\ndelta"),
        _call("write_file", path="plan.md", content="# Plan\n\n- ship it\n"),
        Reply("Done: see `notes.txt` and `plan.md`."),
    )
    chat.send("tidy my notes")
    chat.idle()
    assert (workspace / "notes.txt").read_text() == "alpha\nBETA\ndelta\ngamma\n"
    assert (workspace / "plan.md").exists()
    edit, write = (i for i in chat.items() if i.kind == "tool")
    return edit, write


def test_cards_show_the_change_in_each_mode(make_chat, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    chat: ChatHarness = make_chat()
    edit, write = _edit_turn(chat, workspace)
    view = chat.tab.pane.view
    (workspace / "notes.txt").write_text(
        "changed later on disk\n"
    )  # the card keeps what the tool did

    view.set_diff_mode("inline")
    shown = _card_text(chat, edit)
    assert "-beta" in shown and "+BETA" in shown and "+delta" in shown
    assert "changed later" not in shown
    assert "+# Plan" in _card_text(chat, write) and "plan.md (new file)" in _card_text(chat, write)

    view.set_diff_mode("summary")
    shown = _card_text(chat, edit)
    assert "notes.txt" in shown and "+2" in shown and "−1" in shown
    assert "+BETA" not in shown

    view.set_diff_mode("collapsed")
    shown = _card_text(chat, edit)
    assert "+BETA" not in shown and "+2" not in shown
    view.toggle(chat.items().index(edit))  # opening the card shows the diff
    assert "+BETA" in _card_text(chat, edit)

    assert "+BETA" in edit.plain_text()  # "Copy message" copies the change too
    # A screen reader hears what changed on a closed card.
    assert (
        row_text(write)
        == "Tool write_file, succeeded: write_file, changed plan.md: 3 lines added, 0 removed"
    )


def test_the_setting_switches_the_mode_of_the_open_chat(make_chat, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    chat: ChatHarness = make_chat()
    edit, _write = _edit_turn(chat, workspace)
    view = chat.tab.pane.view
    chat.wait(lambda: chat.services.prefs is not None)  # the pane read desktop.json
    assert view.diff_mode == "inline"
    page = AppearancePage(chat.services)  # Settings → Appearance, on the same preferences
    chat.qtbot.addWidget(page)
    page.load()
    chat.wait(lambda: page.diff_buttons["inline"].isChecked())
    page.diff_buttons["summary"].click()
    assert page.dirty
    assert run_async(chat.qtbot, chat.loop, page.save())
    assert view.diff_mode == "summary"
    assert "+BETA" not in _card_text(chat, edit)
    saved = json.loads((workspace.parent / "desktop.json").read_text())
    assert saved["diffDisplay"] == "summary"


def test_a_large_change_is_cut_with_a_count(make_chat, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    chat: ChatHarness = make_chat()
    content = "".join(f"row {i}\n" for i in range(300))
    chat.server.push(_call("write_file", path="big.txt", content=content), Reply("Written."))
    chat.send("write a big file")
    chat.idle()
    (card,) = (i for i in chat.items() if i.kind == "tool")
    chat.tab.pane.view.set_diff_mode("inline")
    shown = _card_text(chat, card)
    assert "+row 0" in shown and "+row 299" not in shown
    assert "more lines — open the card to see them" in shown
