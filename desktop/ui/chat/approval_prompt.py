"""The in-chat approval prompt: the full call, and four answers."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.agent.approval import ApprovalRequest, Decision
from desktop.ui.i18n import QT_TR_NOOP, localized, tr

MAX_LINES = 10
ANSWERS: tuple[tuple[Decision, str], ...] = (  # marked; shown through tr()
    (Decision.DENY, QT_TR_NOOP("Deny")),
    (Decision.ALLOW_ONCE, QT_TR_NOOP("Allow once")),
    (Decision.ALLOW_SESSION, QT_TR_NOOP("Allow for this chat")),
    (Decision.ALWAYS, QT_TR_NOOP("Always allow this tool")),
)


def format_arguments(arguments: dict[str, Any]) -> str:
    """Every argument, readable: ``key: value``; multi-line text as it is, indented."""
    lines: list[str] = []
    for key, value in arguments.items():
        if isinstance(value, str) and "\n" in value:
            lines.append(f"{key}:")
            lines.extend(f"    {line}" for line in value.splitlines())
        elif isinstance(value, str):
            lines.append(f"{key}: {value}")
        else:
            lines.append(f"{key}: {json.dumps(value, ensure_ascii=False)}")
    return "\n".join(lines) or tr("(no arguments)")


class ApprovalPrompt(QFrame):
    """Asks whether a tool call may run. Answering emits :attr:`decided`; nothing blocks.

    Signals:
        decided(object, object): the :class:`ApprovalRequest` and the :class:`Decision`.
    """

    decided = Signal(object, object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("approvalPrompt")
        self.setAccessibleName(tr("Approval needed"))
        self.setStyleSheet(
            "#approvalPrompt { border: 1px solid rgba(210, 153, 34, 0.8); border-radius: 8px;"
            " background: rgba(210, 153, 34, 0.10); }"
        )
        self.request: ApprovalRequest | None = None
        self.title = QLabel(self)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        font = QFont(self.title.font())
        font.setBold(True)
        self.title.setFont(font)
        self.reason = QLabel(self)
        self.reason.setWordWrap(True)
        self.reason.setTextFormat(Qt.TextFormat.PlainText)
        self.arguments = QPlainTextEdit(self)
        self.arguments.setReadOnly(True)
        self.arguments.setAccessibleName(tr("Tool arguments"))
        self.arguments.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.arguments.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.arguments.setTabChangesFocus(True)  # Tab goes on to the buttons
        self.queue_label = QLabel(self)
        buttons = QHBoxLayout()
        buttons.addWidget(self.queue_label, 1)
        self.buttons: dict[Decision, QPushButton] = {}
        for decision, english in ANSWERS:
            text = tr(english)
            button = QPushButton(text, self)
            button.setAccessibleName(text)
            button.setAutoDefault(False)
            button.clicked.connect(lambda _=False, d=decision: self._decide(d))
            buttons.addWidget(button)
            self.buttons[decision] = button
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.addWidget(self.title)
        layout.addWidget(self.reason)
        layout.addWidget(self.arguments)
        layout.addLayout(buttons)
        self.hide()

    def show_request(self, request: ApprovalRequest, waiting: int = 0) -> None:
        """Show ``request`` (``waiting``: how many more are queued in this chat)."""
        self.request = request
        self.title.setText(tr("Allow {tool}?").format(tool=request.tool))
        self.reason.setText(
            tr("The agent wants to use {tool}: it {reason}.").format(
                tool=request.tool, reason=localized(request.reason)
            )
        )
        text = format_arguments(request.arguments)
        self.arguments.setPlainText(text)
        lines = min(MAX_LINES, max(1, text.count("\n") + 1))
        metrics = self.arguments.fontMetrics()
        margins = self.arguments.contentsMargins()
        self.arguments.setFixedHeight(
            lines * metrics.lineSpacing()
            + margins.top()
            + margins.bottom()
            + 2 * int(self.arguments.document().documentMargin())
            + 4
        )
        self.queue_label.setText(
            tr("{count} more waiting").format(count=waiting) if waiting else ""
        )
        self.show()

    def _decide(self, decision: Decision) -> None:
        request = self.request
        if request is None:
            return
        self.request = None
        self.hide()
        self.decided.emit(request, decision)
