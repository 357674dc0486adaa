"""The approval prompt's buttons are reachable by keyboard (issue 9 C): Tab from the shown
arguments goes on to the buttons instead of being swallowed by the text box."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QPushButton, QWidget
from pytestqt.qtbot import QtBot

from desktop.core.agent.approval import ApprovalRequest, Decision
from desktop.ui.chat.approval_prompt import ApprovalPrompt
from tests.typed import present


def test_tab_reaches_every_button_and_space_decides(qtbot: QtBot) -> None:
    host = QWidget()
    qtbot.addWidget(host)
    prompt = ApprovalPrompt(host)
    host.resize(700, 300)
    host.show()
    host.activateWindow()
    qtbot.waitUntil(host.isActiveWindow)
    request = ApprovalRequest(
        "desktop:a", "call_0", "exec", {"command": "ls\nmore"}, "runs a shell command"
    )
    prompt.show_request(request)
    prompt.arguments.setFocus()
    qtbot.waitUntil(prompt.arguments.hasFocus)
    reached: list[str] = []
    for _ in range(len(prompt.buttons)):
        QTest.keyClick(present(QApplication.focusWidget()), Qt.Key.Key_Tab)
        focused = QApplication.focusWidget()
        assert isinstance(focused, QPushButton), f"Tab went to {focused!r}"
        reached.append(focused.text())
    assert reached == [b.text() for b in prompt.buttons.values()]
    with qtbot.waitSignal(prompt.decided) as decided:
        QTest.keyClick(present(QApplication.focusWidget()), Qt.Key.Key_Space)
    assert decided.args[1] is Decision.ALWAYS
