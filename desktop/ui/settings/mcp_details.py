"""The details of one MCP server: what it runs, live status, tools, stderr tail, actions."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.config.schema import MCPServerConfig
from desktop.core.tools.mcp import MCPServerStatus
from desktop.ui.i18n import QT_TR_NOOP, tr
from desktop.ui.settings.mcp_entries import is_enabled, launch_summary, transport_of
from desktop.ui.settings.widgets import InlineStatus, heading

TRANSPORT_NAMES = {
    "stdio": QT_TR_NOOP("local command (stdio)"),
    "sse": QT_TR_NOOP("HTTP (SSE)"),
    "streamableHttp": QT_TR_NOOP("HTTP (streamable)"),
}


def status_text(
    status: MCPServerStatus | None, *, enabled: bool = True, agent: bool = True
) -> tuple[str, str]:
    """``(kind, words)`` for a server's state; kind is ``ok``, ``error`` or ``info``."""
    if not enabled:
        return "info", tr("Disabled")
    if status is None or status.state == "idle":
        if agent:
            return "info", tr("Not connected yet: connects at the agent's next turn")
        return "info", tr("Not connected yet: connects when the agent starts (or press Connect)")
    if status.state == "connecting":
        return "info", tr("Connecting…")
    if status.state == "connected":
        if status.tool_count == 1:
            return "ok", tr("Connected with 1 tool")
        return "ok", tr("Connected with {count} tools").format(count=status.tool_count)
    if status.state == "disabled":
        return "info", tr("Disabled (no tools enabled)")
    return "error", tr("Failed: {error}").format(error=status.last_error or tr("unknown error"))


class ServerDetails(QWidget):
    """Status, tools and stderr of the selected server, with its actions.

    Signals:
        editRequested(str), removeRequested(str), reconnectRequested(str),
        enableRequested(str, bool), signInRequested(str), signOutRequested(str): the action
            buttons, with the server name.
    """

    editRequested = Signal(str)
    removeRequested = Signal(str)
    reconnectRequested = Signal(str)
    enableRequested = Signal(str, bool)
    signInRequested = Signal(str)
    signOutRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.name = ""
        self.enabled = True
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 0, 0, 0)
        layout.setSpacing(6)
        self.title = heading("", level=2)
        layout.addWidget(self.title)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary.setAccessibleName(tr("What the server runs"))
        layout.addWidget(self.summary)
        self.status = InlineStatus(accessible=tr("MCP server status"))
        layout.addWidget(self.status)
        buttons = QHBoxLayout()
        self.edit = QPushButton(tr("Edit…"))
        self.edit.setAccessibleName(tr("Edit this MCP server"))
        self.toggle = QPushButton(tr("Disable"))
        self.toggle.setAccessibleName(tr("Enable or disable this MCP server"))
        self.reconnect = QPushButton(tr("Reconnect"))
        self.reconnect.setAccessibleName(tr("Reconnect this MCP server"))
        self.remove = QPushButton(tr("Remove"))
        self.remove.setAccessibleName(tr("Remove this MCP server"))
        self.sign_in = QPushButton(tr("Sign in…"))
        self.sign_in.setAccessibleName(tr("Sign in to this MCP server in the browser"))
        self.sign_out = QPushButton(tr("Sign out"))
        self.sign_out.setAccessibleName(tr("Forget the sign-in of this MCP server"))
        for button in (self.edit, self.toggle, self.reconnect, self.sign_in, self.sign_out):
            buttons.addWidget(button)
        buttons.addWidget(self.remove)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self.edit.clicked.connect(lambda: self.editRequested.emit(self.name))
        self.remove.clicked.connect(lambda: self.removeRequested.emit(self.name))
        self.reconnect.clicked.connect(lambda: self.reconnectRequested.emit(self.name))
        self.toggle.clicked.connect(lambda: self.enableRequested.emit(self.name, not self.enabled))
        self.sign_in.clicked.connect(lambda: self.signInRequested.emit(self.name))
        self.sign_out.clicked.connect(lambda: self.signOutRequested.emit(self.name))
        self.tools_label = QLabel(tr("Tools"))
        layout.addWidget(self.tools_label)
        self.tools = QListWidget()
        self.tools.setAccessibleName(tr("Tools of this MCP server"))
        self.tools.setMinimumHeight(70)
        layout.addWidget(self.tools, 1)
        self.stderr_toggle = QPushButton(tr("Show stderr"))
        self.stderr_toggle.setCheckable(True)
        self.stderr_toggle.setAccessibleName(tr("Show the last lines the server wrote to stderr"))
        self.stderr_toggle.toggled.connect(self._toggle_stderr)
        layout.addWidget(self.stderr_toggle, 0, Qt.AlignmentFlag.AlignLeft)
        self.stderr = QPlainTextEdit()
        self.stderr.setReadOnly(True)
        self.stderr.setAccessibleName(tr("Server stderr"))
        self.stderr.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.stderr.setPlaceholderText(tr("Nothing written to stderr yet."))
        self.stderr.setMinimumHeight(80)
        self.stderr.hide()
        layout.addWidget(self.stderr, 1)

    def _toggle_stderr(self, shown: bool) -> None:
        self.stderr.setVisible(shown)
        self.stderr_toggle.setText(tr("Hide stderr") if shown else tr("Show stderr"))

    def show_server(
        self,
        name: str,
        config: MCPServerConfig,
        status: MCPServerStatus | None,
        tools: list[str],
        *,
        agent: bool,
    ) -> None:
        """Show server ``name``."""
        self.name = name
        self.enabled = is_enabled(config)
        kind = transport_of(config)
        transport = TRANSPORT_NAMES.get(kind, QT_TR_NOOP("incomplete entry"))
        self.title.setText(name + "  ·  " + tr(transport))
        self.title.setAccessibleName(tr("MCP server {name}").format(name=name))
        self.summary.setText(launch_summary(config, tr))
        level, words = status_text(status, enabled=self.enabled, agent=agent)
        getattr(self.status, level)(words)
        self.toggle.setText(tr("Disable") if self.enabled else tr("Enable"))
        self.reconnect.setEnabled(self.enabled)
        connected = status is not None and status.state == "connected"
        self.reconnect.setText(
            tr("Reconnect") if connected or (status and status.state == "failed") else tr("Connect")
        )
        shown = [self.tools.item(row).text() for row in range(self.tools.count())]
        if shown != tools:
            self.tools.clear()
            self.tools.addItems(tools)
        self.tools_label.setText(
            tr("Tools ({count})").format(count=len(tools)) if tools else tr("Tools (none yet)")
        )
        is_stdio = kind == "stdio"
        oauth = config.auth == "oauth" and not is_stdio
        self.sign_in.setVisible(oauth)
        self.sign_out.setVisible(oauth)
        self.sign_in.setText(tr("Sign in again…") if connected else tr("Sign in…"))
        self.stderr_toggle.setVisible(is_stdio)
        self.stderr.setVisible(is_stdio and self.stderr_toggle.isChecked())
        tail = "\n".join(status.stderr_tail) if status is not None else ""
        if self.stderr.toPlainText() != tail:
            self.stderr.setPlainText(tail)
            self.stderr.verticalScrollBar().setValue(self.stderr.verticalScrollBar().maximum())
