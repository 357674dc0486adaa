"""Approval before an MCP server is started for the first time, and the JSON import panel."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from desktop.core.config.schema import MCPServerConfig
from desktop.ui.i18n import tr
from desktop.ui.settings.mcp_entries import (
    EntryError,
    launch_summary,
    needs_approval,
    parse_servers,
    transport_of,
)
from desktop.ui.settings.widgets import InlineStatus, heading, hint


class ApprovalPanel(QWidget):
    """Shows exactly what will run, one entry per server, each with a tick box.

    Signals:
        approved(dict): ``{name: MCPServerConfig}`` of the ticked servers.
        cancelled(): nothing is saved or started.
    """

    approved = Signal(dict)
    cancelled = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.entries: dict[str, MCPServerConfig] = {}
        self.boxes: dict[str, QCheckBox] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.title = heading(tr("Approve before starting"), level=2)
        layout.addWidget(self.title)
        layout.addWidget(
            hint(
                tr(
                    "These programs will run on this computer with your user's rights, and "
                    "servers are contacted as listed. Only approve what you trust."
                )
            )
        )
        self.scroll_area = QScrollArea()
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.StyledPanel)
        self.list_widget = QWidget()
        self.list_layout = QVBoxLayout(self.list_widget)
        self.list_layout.setSpacing(10)
        self.scroll_area.setWidget(self.list_widget)
        layout.addWidget(self.scroll_area, 1)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        self.cancel = QPushButton(tr("Cancel"))
        self.cancel.setAccessibleName(tr("Cancel: do not save or start these servers"))
        self.cancel.clicked.connect(self.cancelled)
        self.approve = QPushButton(tr("Approve and start"))
        self.approve.setAccessibleName(tr("Approve and start the ticked servers"))
        self.approve.clicked.connect(self._approve)
        buttons.addWidget(self.cancel)
        buttons.addWidget(self.approve)
        layout.addLayout(buttons)

    def ask(
        self, entries: dict[str, MCPServerConfig], existing: dict[str, MCPServerConfig]
    ) -> None:
        """Show ``entries`` for approval (``existing``: what is configured now)."""
        self.entries = dict(entries)
        self.boxes.clear()
        while self.list_layout.count():
            item = self.list_layout.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        for name, config in entries.items():
            text = name
            if name in existing:
                text = tr("{server} (replaces the existing entry)").format(server=text)
            if transport_of(config) != "stdio":
                text = tr("{server} — an HTTP server; no program is started").format(server=text)
            elif not needs_approval(config, existing.get(name)):
                text = tr("{server} — command unchanged").format(server=text)
            box = QCheckBox(text)
            box.setChecked(True)
            box.setAccessibleName(tr("Approve MCP server {name}").format(name=name))
            box.toggled.connect(self._update_button)
            summary = QLabel(launch_summary(config, tr))
            summary.setFont(mono)
            summary.setWordWrap(True)
            summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            summary.setAccessibleName(tr("What MCP server {name} runs").format(name=name))
            summary.setContentsMargins(24, 0, 0, 0)
            self.boxes[name] = box
            self.list_layout.addWidget(box)
            self.list_layout.addWidget(summary)
        self.list_layout.addStretch(1)
        count = len(entries)
        self.title.setText(
            tr("Approve before starting")
            if count == 1
            else tr("Approve {count} servers before starting").format(count=count)
        )
        self._update_button()

    def _update_button(self, _checked: bool = False) -> None:
        self.approve.setEnabled(any(box.isChecked() for box in self.boxes.values()))

    def _approve(self) -> None:
        chosen = {name: self.entries[name] for name, box in self.boxes.items() if box.isChecked()}
        if chosen:
            self.approved.emit(chosen)


class ImportPanel(QWidget):
    """Paste or open a Claude-Desktop ``{"mcpServers": {...}}`` JSON.

    Signals:
        parsed(dict): ``{name: MCPServerConfig}`` read from the JSON.
        cancelled(): the person went back.
        fileChosen(str): a file to read (the page reads it in a thread and calls
            :meth:`set_text`).
    """

    parsed = Signal(dict)
    cancelled = Signal()
    fileChosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(heading(tr("Import MCP servers"), level=2))
        layout.addWidget(
            hint(
                tr(
                    'Paste the "mcpServers" JSON from Claude Desktop (claude_desktop_config.json) '
                    "or another app, or open such a file. You review every command next."
                )
            )
        )
        self.text = QPlainTextEdit()
        self.text.setAccessibleName(tr("MCP servers JSON"))
        self.text.setPlaceholderText(
            '{\n  "mcpServers": {\n    "time": {"command": "uvx", "args": ["mcp-server-time"]}\n  }\n}'
        )
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        layout.addWidget(self.text, 1)
        self.status = InlineStatus(accessible=tr("Import status"))
        layout.addWidget(self.status)
        buttons = QHBoxLayout()
        self.open_file = QPushButton(tr("Open file…"))
        self.open_file.setAccessibleName(tr("Open a JSON file with MCP servers"))
        self.open_file.clicked.connect(self._browse)
        buttons.addWidget(self.open_file)
        buttons.addStretch(1)
        self.cancel = QPushButton(tr("Cancel"))
        self.cancel.setAccessibleName(tr("Cancel the import"))
        self.cancel.clicked.connect(self.cancelled)
        self.next = QPushButton(tr("Review"))
        self.next.setAccessibleName(tr("Review the servers to import"))
        self.next.setDefault(True)
        self.next.clicked.connect(self.submit)
        buttons.addWidget(self.cancel)
        buttons.addWidget(self.next)
        layout.addLayout(buttons)
        self._dialog: QFileDialog | None = None

    def reset(self) -> None:
        """Empty the panel."""
        self.text.clear()
        self.status.clear()

    def set_text(self, text: str) -> None:
        """Show ``text`` (e.g. read from a file)."""
        self.text.setPlainText(text)
        self.status.clear()

    def submit(self) -> bool:
        """Parse the text; emit :attr:`parsed` or show what is wrong."""
        try:
            servers = parse_servers(self.text.toPlainText())
        except EntryError as exc:
            self.status.error(exc.words(tr))
            return False
        self.status.clear()
        self.parsed.emit(servers)
        return True

    def _browse(self) -> None:
        dialog = QFileDialog(self, tr("Open MCP servers JSON"))
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.setNameFilters([tr("JSON files (*.json)"), tr("All files (*)")])
        claude = Path.home() / ".config" / "Claude"
        if claude.is_dir():
            dialog.setDirectory(str(claude))
        dialog.fileSelected.connect(self.fileChosen)
        dialog.finished.connect(dialog.deleteLater)
        self._dialog = dialog
        dialog.open()
