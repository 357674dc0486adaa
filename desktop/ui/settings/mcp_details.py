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
from desktop.ui.settings.mcp_entries import is_enabled, launch_summary, transport_of
from desktop.ui.settings.widgets import InlineStatus, heading

TRANSPORT_NAMES = {
    "stdio": "local command (stdio)",
    "sse": "HTTP (SSE)",
    "streamableHttp": "HTTP (streamable)",
}


def status_text(
    status: MCPServerStatus | None, *, enabled: bool = True, agent: bool = True
) -> tuple[str, str]:
    """``(kind, words)`` for a server's state; kind is ``ok``, ``error`` or ``info``."""
    if not enabled:
        return "info", "Disabled"
    if status is None or status.state == "idle":
        when = "at the agent's next turn" if agent else "when the agent starts (or press Connect)"
        return "info", f"Not connected yet: connects {when}"
    if status.state == "connecting":
        return "info", "Connecting…"
    if status.state == "connected":
        return (
            "ok",
            f"Connected with {status.tool_count} tool{'s' if status.tool_count != 1 else ''}",
        )
    if status.state == "disabled":
        return "info", "Disabled (no tools enabled)"
    return "error", f"Failed: {status.last_error or 'unknown error'}"


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
        self.summary.setAccessibleName("What the server runs")
        layout.addWidget(self.summary)
        self.status = InlineStatus(accessible="MCP server status")
        layout.addWidget(self.status)
        buttons = QHBoxLayout()
        self.edit = QPushButton("Edit…")
        self.edit.setAccessibleName("Edit this MCP server")
        self.toggle = QPushButton("Disable")
        self.toggle.setAccessibleName("Enable or disable this MCP server")
        self.reconnect = QPushButton("Reconnect")
        self.reconnect.setAccessibleName("Reconnect this MCP server")
        self.remove = QPushButton("Remove")
        self.remove.setAccessibleName("Remove this MCP server")
        self.sign_in = QPushButton("Sign in…")
        self.sign_in.setAccessibleName("Sign in to this MCP server in the browser")
        self.sign_out = QPushButton("Sign out")
        self.sign_out.setAccessibleName("Forget the sign-in of this MCP server")
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
        self.tools_label = QLabel("Tools")
        layout.addWidget(self.tools_label)
        self.tools = QListWidget()
        self.tools.setAccessibleName("Tools of this MCP server")
        self.tools.setMinimumHeight(70)
        layout.addWidget(self.tools, 1)
        self.stderr_toggle = QPushButton("Show stderr")
        self.stderr_toggle.setCheckable(True)
        self.stderr_toggle.setAccessibleName("Show the last lines the server wrote to stderr")
        self.stderr_toggle.toggled.connect(self._toggle_stderr)
        layout.addWidget(self.stderr_toggle, 0, Qt.AlignmentFlag.AlignLeft)
        self.stderr = QPlainTextEdit()
        self.stderr.setReadOnly(True)
        self.stderr.setAccessibleName("Server stderr")
        self.stderr.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.stderr.setPlaceholderText("Nothing written to stderr yet.")
        self.stderr.setMinimumHeight(80)
        self.stderr.hide()
        layout.addWidget(self.stderr, 1)

    def _toggle_stderr(self, shown: bool) -> None:
        self.stderr.setVisible(shown)
        self.stderr_toggle.setText("Hide stderr" if shown else "Show stderr")

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
        self.title.setText(f"{name}  ·  {TRANSPORT_NAMES.get(kind, 'incomplete entry')}")
        self.title.setAccessibleName(f"MCP server {name}")
        self.summary.setText(launch_summary(config))
        level, words = status_text(status, enabled=self.enabled, agent=agent)
        getattr(self.status, level)(words)
        self.toggle.setText("Disable" if self.enabled else "Enable")
        self.reconnect.setEnabled(self.enabled)
        connected = status is not None and status.state == "connected"
        self.reconnect.setText(
            "Reconnect" if connected or (status and status.state == "failed") else "Connect"
        )
        shown = [self.tools.item(row).text() for row in range(self.tools.count())]
        if shown != tools:
            self.tools.clear()
            self.tools.addItems(tools)
        self.tools_label.setText(f"Tools ({len(tools)})" if tools else "Tools (none yet)")
        is_stdio = kind == "stdio"
        oauth = config.auth == "oauth" and not is_stdio
        self.sign_in.setVisible(oauth)
        self.sign_out.setVisible(oauth)
        self.sign_in.setText("Sign in again…" if connected else "Sign in…")
        self.stderr_toggle.setVisible(is_stdio)
        self.stderr.setVisible(is_stdio and self.stderr_toggle.isChecked())
        tail = "\n".join(status.stderr_tail) if status is not None else ""
        if self.stderr.toPlainText() != tail:
            self.stderr.setPlainText(tail)
            self.stderr.verticalScrollBar().setValue(self.stderr.verticalScrollBar().maximum())
