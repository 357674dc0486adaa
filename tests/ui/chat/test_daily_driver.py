"""The chat's daily-driver features (issue 9 B): the model picker, regenerate, edit and resend,
automatic titles, export, search results that jump to the match. A real runtime on the
scripted server, real session files."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import pytest
from PySide6.QtGui import QGuiApplication

from desktop.core.session.manager import SessionManager
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.typed import present
from tests.ui.chat.conftest import ChatHarness, MakeChat, write_session
from tests.ui.conftest import run_async


def _answers(chat: ChatHarness) -> list[str]:
    return [i.text for i in chat.items() if i.kind == "assistant"]


# -- model picker -----------------------------------------------------------------------------
@pytest.fixture
def second_server() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer(Reply("Answer from B.")) as server:
        yield server


def test_picking_a_model_changes_this_chat_only_without_stopping_its_answer(
    make_chat: MakeChat, second_server: ScriptedOpenAIServer, memory_keyring: object, tmp_path: Path
) -> None:
    """Issue 21 item 3: the picker chooses the shown chat's model (kept in the chat); the
    default — Settings, new chats, the status bar of other chats — stays until "Make … the
    default"."""
    from desktop.ui.main_window import MainWindow

    chat: ChatHarness = make_chat(model="openai/scripted", provider="custom")
    window = MainWindow()
    chat.qtbot.addWidget(window)
    chat.tab.modelShown.connect(window.show_model)  # as install_tabs wires it
    window.set_status("ready — openai/scripted")
    chat.tab.refresh_model()
    config = chat.services.config
    config.providers.vllm.api_base = second_server.url
    picker = chat.tab.pane.picker
    assert "openai/scripted" in picker.text() and not picker.own
    chat.server.push(Reply("Slow answer from A. " * 6, chunk=3, delay=0.03))
    chat.send("first")
    first_chat = chat.tab.current
    chat.wait(lambda: any(i.kind == "assistant" and i.text for i in chat.items()))
    picker.modelChosen.emit("hosted_vllm/model-b", "vllm")
    chat.wait(lambda: "model-b" in picker.text() and picker.isEnabled())
    assert picker.own and "its own model" in picker.toolTip()
    # the status bar follows at once
    assert window.status_label.text() == "ready — hosted_vllm/model-b · vLLM (this chat)"
    chat.idle()
    assert _answers(chat)[-1].startswith("Slow answer from A.")  # not stopped, not moved
    chat.send("second")
    chat.idle()
    assert _answers(chat)[-1] == "Answer from B."
    assert not (tmp_path / "config.json").exists()  # the default was not saved over
    assert config.agents.defaults.model == "openai/scripted"  # the default did not change
    meta = (
        SessionManager(Path(config.agents.defaults.workspace), config_dir=tmp_path)
        .get_or_create(first_chat)
        .metadata
    )
    assert meta["desktop_model"] == {"model": "hosted_vllm/model-b", "provider": "vllm"}
    # a new chat uses the default
    chat.tab.new_chat()
    chat.wait(lambda: chat.tab.current != first_chat)
    chat.wait(lambda: "openai/scripted" in picker.text())
    assert not picker.own and window.status_label.text().startswith("ready — openai/scripted")
    chat.server.push(Reply("Answer from A again."))
    chat.send("third")
    chat.idle()
    assert _answers(chat) == ["Answer from A again."]
    # back in the first chat: its own model again
    chat.tab.open_session(first_chat)
    chat.wait(lambda: chat.tab.current == first_chat and "model-b" in picker.text())
    assert picker.recent[0] == {"model": "hosted_vllm/model-b", "provider": "vllm"}
    picker.menu().aboutToShow.emit()
    labels = [a.text() for a in picker.menu().actions()]
    assert any("model-b" in label for label in labels) and "Other model…" in labels
    assert "Make hosted_vllm/model-b the default for new chats" in labels
    # making it the default saves it, as Settings would show it
    picker.defaultRequested.emit()
    chat.wait(lambda: window.status_label.text() == "ready — hosted_vllm/model-b · vLLM")
    assert config.agents.defaults.model == "hosted_vllm/model-b" and not picker.own
    chat.wait(lambda: (tmp_path / "config.json").exists())
    saved = json.loads((tmp_path / "config.json").read_text())["agents"]["defaults"]
    assert (saved["model"], saved["provider"]) == ("hosted_vllm/model-b", "vllm")


def test_a_model_that_cannot_be_used_changes_nothing(
    make_chat: MakeChat, memory_keyring: object
) -> None:
    chat: ChatHarness = make_chat()
    before = present(chat.services.runtime).provider.current
    chat.tab.pane.picker.modelChosen.emit("anthropic/claude-3-5-haiku-latest", "anthropic")
    chat.wait(lambda: chat.tab.panel.snackbar.isVisible())
    assert "Model not changed" in chat.tab.panel.snackbar.label.text()
    assert present(chat.services.runtime).provider.current is before


def test_other_model_form_lists_the_providers_models(
    make_chat: MakeChat, memory_keyring: object
) -> None:
    chat: ChatHarness = make_chat(provider="custom")
    chat.services.config.providers.custom.api_base = chat.server.url
    chat.tab.open_other_model()
    form = chat.tab.pane.other_model
    assert form.isVisible()
    form.provider.setCurrentIndex(form.provider.findData("custom"))
    chat.wait(lambda: form.model.count() > 0)
    assert form.model.itemText(0) == "scripted-model"


# -- regenerate, edit -------------------------------------------------------------------------
def _chats(workspace: Path) -> list[str]:
    return [s.key for s in SessionManager(workspace, config_dir=workspace.parent).summaries()]


def _switcher(chat: ChatHarness, row: int) -> tuple[int, int, int] | None:
    return cast("tuple[int, int, int] | None", chat.items()[row].fork)


def _click_link(chat: ChatHarness, row: int, href: str) -> None:
    """Click the link ``href`` drawn in ``row`` (a real mouse press and release)."""
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtTest import QTest

    view = chat.tab.pane.view
    view.reveal(row)
    view.visible_rows()
    layout = view.layout_of(row)
    top = view.row_rect(row).top()
    for part in layout.parts:
        rect = part.rect()
        y = rect.top() + 2
        while y < rect.bottom():
            x = rect.left() + 1
            while x < rect.right():
                local = QPointF(x - part.x, y - part.y)
                if part.doc.documentLayout().anchorAt(local) == href:
                    point = QPoint(int(x), int(top + y))
                    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
                    return
                x += 2
            y += 2
    raise AssertionError(f"no link {href} in row {row}")


def test_regenerate_keeps_both_answers_in_one_chat_with_a_switcher(
    make_chat: MakeChat, workspace: Path
) -> None:
    """Issue 21 item 5: no "(earlier version)" chat in the list; "‹ 2/2 ›" on the message."""
    chat: ChatHarness = make_chat()
    chat.server.push(Reply("First answer."), Reply("Second answer."))
    chat.send("hello")
    chat.idle()
    chat.tab.regenerate()
    chat.wait(lambda: _answers(chat) == ["Second answer."])
    chat.idle()
    assert [i.text for i in chat.items() if i.kind == "user"] == ["hello"]
    key = chat.tab.current
    live = SessionManager(workspace, config_dir=workspace.parent).get_or_create(key)
    assert [m["content"] for m in live.messages] == ["hello", "Second answer."]
    chat.tab.list_controller.refresh_soon()
    chat.wait(lambda: chat.tab.sessions.all_keys() == [key])
    assert _chats(workspace) == [key]  # one chat, no "(earlier version)" beside it
    assert _switcher(chat, 0) == (0, 2, 2)
    _click_link(chat, 0, "version:-1")  # ‹ : back to the first answer
    chat.wait(lambda: _answers(chat) == ["First answer."])
    assert _switcher(chat, 0) == (0, 1, 2)
    live = SessionManager(workspace, config_dir=workspace.parent).get_or_create(key)
    assert [m["content"] for m in live.messages] == ["hello", "First answer."]
    _click_link(chat, 0, "version:+1")
    chat.wait(lambda: _answers(chat) == ["Second answer."])
    # the last answer's menu offers it too, the person's message offers editing and versions
    view = chat.tab.pane.view
    rows = chat.items()
    labels = [label for label, _ in view.row_actions(len(rows) - 1)]
    assert "Regenerate answer" in labels
    user_labels = [label for label, _ in view.row_actions(0)]
    assert "Edit and resend…" in user_labels and "Show version 1 of 2" in user_labels


def test_edit_and_resend_forks_the_conversation(make_chat: MakeChat, workspace: Path) -> None:
    chat: ChatHarness = make_chat()
    chat.server.push(Reply("About cats."), Reply("About dogs."), Reply("About birds."))
    chat.send("tell me about cats")
    chat.idle()
    chat.send("and dogs")
    chat.idle()
    chat.tab.start_edit(0)
    composer = chat.tab.pane.composer
    assert composer.text() == "tell me about cats" and chat.tab.pane.editing.isVisible()
    chat.send("tell me about birds")
    chat.wait(lambda: _answers(chat) == ["About birds."])
    chat.idle()
    assert not chat.tab.pane.editing.isVisible()
    assert [i.text for i in chat.items() if i.kind == "user"] == ["tell me about birds"]
    live = SessionManager(workspace, config_dir=workspace.parent).get_or_create(chat.tab.current)
    assert [m["content"] for m in live.messages] == ["tell me about birds", "About birds."]
    assert _chats(workspace) == [chat.tab.current]
    # the keyboard switches too: Left on the message shows the conversation as it was
    view = chat.tab.pane.view
    view.setFocus()
    chat.wait(view.hasFocus)
    view.set_current_row(0)
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    QTest.keyClick(view, Qt.Key.Key_Left)
    chat.wait(
        lambda: (
            [i.text for i in chat.items() if i.kind == "user"]
            == [
                "tell me about cats",
                "and dogs",
            ]
        )
    )
    assert _answers(chat) == ["About cats.", "About dogs."]
    assert _switcher(chat, 0) == (0, 1, 2)


def test_an_edited_first_message_gives_the_chat_a_new_title(
    make_chat: MakeChat, workspace: Path
) -> None:
    """Issue 21 item 5: the subject changed, so the chat is titled again (one entry)."""
    chat: ChatHarness = make_chat(auto_titles=True)
    chat.server.push(Reply("About cats."), Reply("Cat facts"), Reply("About birds."))
    chat.server.push(Reply("Bird facts"))
    chat.send("tell me about cats")
    chat.idle()
    key = chat.tab.current
    chat.wait(lambda: present(chat.tab.sessions.entry(key)).title == "Cat facts")
    chat.tab.start_edit(0)
    chat.send("tell me about birds")
    chat.wait(lambda: _answers(chat) == ["About birds."])
    chat.idle()
    chat.wait(lambda: present(chat.tab.sessions.entry(key)).title == "Bird facts")
    assert chat.tab.pane._full_title == "Bird facts"
    assert _chats(workspace) == [key]


def test_up_in_an_empty_composer_edits_the_last_message(make_chat: MakeChat) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    chat: ChatHarness = make_chat()
    chat.send("typo mesage")
    chat.idle()
    edit = chat.tab.pane.composer.edit
    edit.setFocus()
    QTest.keyClick(edit, Qt.Key.Key_Up)
    assert edit.toPlainText() == "typo mesage" and chat.tab.pane.editing.isVisible()
    chat.tab.pane.editing.cancel.click()
    assert not chat.tab.pane.editing.isVisible()


# -- titles -----------------------------------------------------------------------------------
def test_a_new_chat_gets_a_title_from_its_first_exchange(
    make_chat: MakeChat, workspace: Path
) -> None:
    chat: ChatHarness = make_chat(auto_titles=True)
    chat.server.push(Reply("Lisbon in May is lovely."), Reply("Title: Lisbon trip in May"))
    chat.send("plan a trip to Lisbon in May")
    chat.idle()
    key = chat.tab.current
    chat.wait(lambda: present(chat.tab.sessions.entry(key)).title == "Lisbon trip in May")
    assert chat.tab.pane.title.toolTip() == "Lisbon trip in May"
    title_call = chat.requests()[-1]
    assert (title_call["max_tokens"] <= 32 and "stream" not in title_call) or not title_call[
        "stream"
    ]
    assert (
        SessionManager(workspace, config_dir=workspace.parent).get_or_create(key).metadata["title"]
        == "Lisbon trip in May"
    )


# -- export -----------------------------------------------------------------------------------
def test_export_through_the_file_dialog(make_chat: MakeChat, tmp_path: Path) -> None:
    chat: ChatHarness = make_chat()
    chat.server.push(Reply("Here is `code`."))
    chat.send("show code")
    chat.idle()
    chat.wait(lambda: not present(chat.tab.sessions.entry(chat.tab.current)).draft)
    chat.tab.export("md")
    dialog = chat.tab._export_dialog
    chat.wait(dialog.isVisible)  # opened with open(): no nested event loop
    target = tmp_path / "out.md"
    dialog.fileSelected.emit(str(target))
    chat.wait(target.exists)
    text = target.read_text()
    assert text.startswith("# show code") and "Here is `code`." in text
    dialog.close()
    path = tmp_path / "out.json"
    assert run_async(chat.qtbot, chat.loop, chat.tab.export_to(chat.tab.current, "json", path))
    assert [m["role"] for m in json.loads(path.read_text())["messages"]] == ["user", "assistant"]


# -- search -----------------------------------------------------------------------------------
def test_search_shows_snippets_and_jumps_to_the_match(make_chat: MakeChat, workspace: Path) -> None:
    filler = [
        m
        for i in range(30)
        for m in (
            {"role": "user", "content": f"question {i}"},
            {"role": "assistant", "content": f"answer {i} " * 30},
        )
    ]
    messages = [*filler, {"role": "user", "content": "where is the marmalade jar?"}]
    messages.append({"role": "assistant", "content": "The marmalade is on the top shelf."})
    write_session(workspace, "desktop:pantry", messages, title="Kitchen")
    write_session(workspace, "desktop:other", [{"role": "user", "content": "unrelated"}])
    chat: ChatHarness = make_chat(ready=False)
    panel = chat.tab.panel
    chat.wait(lambda: "desktop:pantry" in chat.tab.sessions.all_keys())
    panel.search.setText("MARMALADE")
    model = chat.tab.sessions
    chat.wait(lambda: model.hit("desktop:pantry") is not None)
    assert model.shown_keys() == ["desktop:pantry"]
    hit = model.hit("desktop:pantry")
    assert hit is not None and hit.message_index == 60
    assert hit.snippet[hit.start : hit.start + hit.length] == "marmalade"
    panel.search.returnPressed.emit()
    chat.wait(lambda: chat.tab.current == "desktop:pantry" and chat.items())
    view = chat.tab.pane.view
    chat.wait(lambda: view.current_row() >= 0)
    row = view.current_row()
    assert chat.items()[row].message_index == 60
    assert view.selected_text().casefold() == "marmalade"
    assert row in view.visible_rows()


# -- keyboard ---------------------------------------------------------------------------------
def test_everything_in_a_message_is_reachable_by_keyboard(make_chat: MakeChat) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    chat: ChatHarness = make_chat()
    chat.server.push(
        Reply(tool_calls=[("read_file", json.dumps({"path": "nothing.txt"}))]),
        Reply("Use:\n\n```python\nprint('hi')\n```\n\nor\n\n```sh\necho hi\n```"),
    )
    chat.send("how?")
    chat.idle()
    view = chat.tab.pane.view
    view.setFocus()
    chat.wait(view.hasFocus)
    kinds = chat.kinds()
    assert view.current_row() == len(kinds) - 1  # focus lands on the newest message
    labels = [label for label, _ in view.row_actions(view.current_row())]
    assert labels[:3] == ["Copy message", "Copy code block 1", "Copy code block 2"]
    dict(view.row_actions(view.current_row()))["Copy code block 2"]()
    assert QGuiApplication.clipboard().text() == "echo hi"
    card = kinds.index("tool")
    while view.current_row() > card:
        QTest.keyClick(view, Qt.Key.Key_Up)
    assert chat.items()[card].expanded is False
    QTest.keyClick(view, Qt.Key.Key_Return)
    assert chat.items()[card].expanded is True
    QTest.keyClick(view, Qt.Key.Key_Space)
    assert chat.items()[card].expanded is False
    QTest.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert "read_file" in QGuiApplication.clipboard().text()


def test_a_search_hit_in_the_open_chat_jumps_too(make_chat: MakeChat) -> None:
    """Rows of a turn that just ran are live (not read from disk): the jump still lands."""
    chat: ChatHarness = make_chat()
    chat.server.push(Reply("Keep the quince paste cool."))
    chat.send("where does the quince paste go?")
    chat.idle()
    panel = chat.tab.panel
    panel.search.setText("quince paste cool")
    chat.wait(lambda: chat.tab.sessions.hit(chat.tab.current) is not None)
    panel.search.returnPressed.emit()
    view = chat.tab.pane.view
    chat.wait(lambda: view.selected_text() == "quince paste cool")
    assert chat.items()[view.current_row()].kind == "assistant"
