"""A chat's project folder and access mode in the window (issue #25 §1).

A real ChatTab and runtime on the scripted model server (the real LiteLLM path). Only the OS
folder chooser is replaced (:attr:`ProjectController.choose`, its seam): the menu, the saving,
the turn and the reading back are the real ones.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QStandardItemModel
from pytestqt.qtbot import QtBot

from desktop.core.session.project import WORKSPACE_SCOPE
from desktop.ui.chat.project_bar import FULL_REFUSED, NO_PROJECT
from tests.fakes.openai_server import Reply
from tests.ui.chat.conftest import ChatHarness, MakeChat
from tests.ui.conftest import run_async


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "shop-app"
    project.mkdir()
    (project / "AGENTS.md").write_text("SHOP-APP-RULES\n", encoding="utf-8")
    (project / "todo.txt").write_text("ship the cart page\n", encoding="utf-8")
    return project


def _tool_texts(chat: ChatHarness) -> list[str]:
    return [
        str(m.get("content"))
        for body in chat.requests()
        for m in body["messages"]
        if m.get("role") == "tool"
    ]


def test_a_chosen_project_is_shown_used_and_kept_across_reopening_and_restart(
    make_chat: MakeChat,
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    tmp_path: Path,
) -> None:
    project = _project(tmp_path)
    chat: ChatHarness = make_chat()
    tab = chat.tab
    bar = tab.projects.bar
    asked: list[str] = []

    def chooser(parent: object, caption: str, start: str) -> str:
        asked.append(caption)
        return str(project)

    tab.projects.choose = chooser
    key = tab.current
    chat.wait(lambda: tab.projects.scope_of(key) is not None)
    assert NO_PROJECT in bar.folder.text()
    assert bar.mode.currentData() == "full"  # Settings allow it: the default, as today

    bar.choose_action.trigger()  # "Choose project folder…" in the project button's menu
    chat.wait(lambda: "shop-app" in bar.folder.text())
    assert asked and bar.folder.toolTip() == str(project.resolve())
    assert bar.clear_action.isEnabled()
    # The file preview opens relative paths from the project too.
    assert tab.preview.base() == project.resolve()

    # The access mode by keyboard: focus the box, arrow up to Restricted.
    assert bar.mode.focusPolicy() & Qt.FocusPolicy.TabFocus
    assert bar.folder.focusPolicy() & Qt.FocusPolicy.TabFocus
    bar.mode.setFocus()
    qtbot.keyClick(bar.mode, Qt.Key.Key_Up)
    chat.wait(lambda: (s := tab.projects.scope_of(key)) is not None and s.mode == "restricted")
    assert bar.mode.currentText() == "Restricted"

    # A new chat's choice is saved with its first message, and the turn works in the project.
    call = json.dumps({"path": "todo.txt"})
    chat.server.push(Reply(tool_calls=[("read_file", call)]), Reply("The cart page."))
    chat.send("What is on my list?")
    chat.wait(lambda: chat.items() and chat.items()[-1].text == "The cart page.")
    chat.idle()
    assert any("ship the cart page" in t for t in _tool_texts(chat))
    system = str(chat.requests()[0]["messages"][0]["content"])
    assert "SHOP-APP-RULES" in system
    path = chat.agent.sessions.path_for(key)
    header = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert header["metadata"][WORKSPACE_SCOPE] == {
        "project_path": str(project.resolve()),
        "access_mode": "restricted",
    }

    # Away and back: the header shows it again.
    tab.new_chat()
    chat.wait(lambda: tab.current != key)
    other = tab.current
    chat.wait(lambda: tab.projects.scope_of(other) is not None)
    assert NO_PROJECT in bar.folder.text()
    assert tab.preview.base() == Path(chat.services.workspace).resolve()
    tab.open_session(key)
    chat.wait(lambda: tab.current == key and "shop-app" in bar.folder.text())
    assert bar.mode.currentData() == "restricted"

    # A restart: a new tab and runtime on the same config and workspace.
    run_async(qtbot, qloop, tab.aclose())
    assert chat.services.runtime is not None
    run_async(qtbot, qloop, chat.services.runtime.stop())
    again: ChatHarness = make_chat()
    again.tab.open_session(key)
    again_bar = again.tab.projects.bar
    again.wait(lambda: again.tab.current == key and "shop-app" in again_bar.folder.text())
    assert again_bar.folder.toolTip() == str(project.resolve())
    assert again_bar.mode.currentData() == "restricted"

    # Clear: back to the workspace, saved.
    again_bar.clear_action.trigger()
    again.wait(lambda: NO_PROJECT in again_bar.folder.text())  # shown at once, then saved:

    def saved_folder() -> str:
        head = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
        return str(head["metadata"][WORKSPACE_SCOPE]["project_path"])

    again.wait(lambda: saved_folder() == str(Path(again.services.workspace).resolve()))


def test_full_access_cannot_be_picked_when_settings_restrict_tools(
    make_chat: MakeChat,
    qtbot: QtBot,
    tmp_path: Path,
) -> None:
    chat: ChatHarness = make_chat()
    tab, bar = chat.tab, chat.tab.projects.bar
    key = tab.current
    chat.wait(lambda: tab.projects.scope_of(key) is not None)
    assert not bar.note.isVisible()
    chat.services.config.tools.restrict_to_workspace = True
    chat.services.configChanged.emit()
    chat.wait(lambda: bar.note.isVisible())
    assert bar.note.text() == FULL_REFUSED
    assert bar.mode.currentData() == "restricted"
    model = bar.mode.model()
    assert isinstance(model, QStandardItemModel)
    full = model.item(bar.mode.findData("full"))
    assert full is not None and not full.isEnabled()
    bar.mode.setFocus()
    qtbot.keyClick(bar.mode, Qt.Key.Key_Down)  # the disabled item is skipped
    assert bar.mode.currentData() == "restricted"
    tab.projects.set_mode("full")  # and asked for directly, it is refused too
    scope = tab.projects.scope_of(key)
    assert scope is not None and scope.mode == "restricted" and not scope.full_allowed


def test_a_folder_that_is_gone_is_refused_with_a_reason_and_changes_nothing(
    make_chat: MakeChat,
    tmp_path: Path,
) -> None:
    project = _project(tmp_path)
    chat: ChatHarness = make_chat()
    tab, bar = chat.tab, chat.tab.projects.bar
    key = tab.current
    chat.wait(lambda: tab.projects.scope_of(key) is not None)
    tab.projects.choose = lambda *_: str(project)
    bar.choose_action.trigger()
    chat.wait(lambda: "shop-app" in bar.folder.text())
    tab.projects.choose = lambda *_: str(tmp_path / "deleted meanwhile")
    bar.choose_action.trigger()
    chat.wait(lambda: bar.problem.isVisible())
    assert "does not exist" in bar.problem.text()
    assert "shop-app" in bar.folder.text()
    scope = tab.projects.scope_of(key)
    assert scope is not None and scope.project == project.resolve()
    tab.projects.choose = lambda *_: ""  # cancelled: nothing happens
    bar.choose_action.trigger()
    assert "shop-app" in bar.folder.text()
