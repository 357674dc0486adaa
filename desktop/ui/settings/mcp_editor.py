"""The form that adds or edits one MCP server entry."""

from __future__ import annotations

import shlex
from typing import Any

from pydantic import ValidationError
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop.core.config.edit import ChangeError, explain
from desktop.core.config.mcp_headers import is_secret_header
from desktop.core.config.schema import MCPServerConfig
from desktop.core.tools.mcp.presets import PRESETS, find_preset, placeholders
from desktop.ui.settings.mcp_entries import check_name, transport_of
from desktop.ui.settings.widgets import (
    InlineStatus,
    LinesEdit,
    check_url,
    format_mapping,
    heading,
    hint,
    parse_mapping,
)

KEPT = "••••••••"  # a credential header's value, not shown; left as is, it stays unchanged

TRANSPORTS = (
    ("stdio", "Local command (stdio)"),
    ("streamableHttp", "HTTP (streamable)"),
    ("sse", "HTTP (SSE)"),
)


class MCPEditor(QWidget):
    """Name, transport, command + arguments + environment or URL + headers, timeout, tools.

    Signals:
        submitted(str, object, str): ``(name, MCPServerConfig, original name or "")``.
        cancelled(): the person went back without saving.
    """

    submitted = Signal(str, object, str)
    cancelled = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.original = ""
        self.base: MCPServerConfig | None = None
        self.taken: set[str] = set()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.title = heading("Add an MCP server", level=2)
        layout.addWidget(self.title)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        self.name = QLineEdit()
        self.name.setAccessibleName("Server name")
        self.name.setPlaceholderText("e.g. time")
        self.transport = QComboBox()
        self.transport.setAccessibleName("Transport")
        for value, label in TRANSPORTS:
            self.transport.addItem(label, value)
        self.command = QLineEdit()
        self.command.setAccessibleName("Command")
        self.command.setPlaceholderText("e.g. uvx")
        self.args = QLineEdit()
        self.args.setAccessibleName("Arguments")
        self.args.setPlaceholderText("e.g. mcp-server-time --local-timezone Europe/Berlin")
        self.env = LinesEdit(
            placeholder="NAME=value (one per line)", rows=2, accessible="Environment variables"
        )
        self.url = QLineEdit()
        self.url.setAccessibleName("Server URL")
        self.url.setPlaceholderText("https://example.com/mcp")
        self.headers = LinesEdit(
            placeholder="Header-Name: value (one per line), e.g. Authorization: Bearer …",
            rows=2,
            accessible="HTTP headers",
        )
        self.timeout = QSpinBox()
        self.timeout.setRange(1, 3600)
        self.timeout.setSuffix(" s")
        self.timeout.setAccessibleName("Tool timeout in seconds")
        self.tools = QLineEdit()
        self.tools.setAccessibleName("Enabled tools")
        self.tools.setPlaceholderText("* (all), or names separated by commas")
        self.preset = QComboBox()
        self.preset.setAccessibleName("Start from a well-known server")
        self.preset.addItem("Nothing — an empty form", "")
        for preset in PRESETS:
            self.preset.addItem(f"{preset.title} — {preset.where}", preset.name)
        self.preset.currentIndexChanged.connect(
            lambda _i: self.use_preset(str(self.preset.currentData() or ""))
        )
        self.preset_info = hint("")
        self.preset_info.setAccessibleName("What the chosen server needs")
        self.preset_info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.preset_info.hide()
        chooser = QWidget()
        column = QVBoxLayout(chooser)
        column.setContentsMargins(0, 0, 0, 8)
        column.setSpacing(4)
        column.addWidget(self.preset)
        column.addWidget(self.preset_info)
        self.chooser = chooser
        form.addRow("Start from", chooser)
        form.addRow("Name", self.name)
        form.addRow("Transport", self.transport)
        self._stdio_rows = [
            ("Command", self.command),
            ("Arguments", self.args),
            ("Environment", self.env),
        ]
        self.oauth = QCheckBox("Sign in with OAuth in the browser (tokens in the OS keyring)")
        self.oauth.setAccessibleName("Sign in with OAuth")
        self._http_rows = [("URL", self.url), ("Headers", self.headers), ("Sign-in", self.oauth)]
        for label, widget in self._stdio_rows + self._http_rows:
            form.addRow(label, widget)
        form.addRow("Tool timeout", self.timeout)
        form.addRow("Enabled tools", self.tools)
        self.form = form
        layout.addLayout(form)
        layout.addWidget(
            hint(
                "A stdio server is a program on this computer: you approve its exact command "
                "before it is started for the first time. Credential headers (Authorization, "
                "API keys, tokens) are kept in the OS keyring, not in config.json."
            )
        )
        self.status = InlineStatus(accessible="MCP server form status")
        layout.addWidget(self.status)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        self.cancel = QPushButton("Cancel")
        self.cancel.setAccessibleName("Cancel editing the MCP server")
        self.cancel.clicked.connect(self.cancelled)
        self.ok = QPushButton("Continue")
        self.ok.setAccessibleName("Save the MCP server")
        self.ok.setDefault(True)
        self.ok.clicked.connect(self._submit)
        buttons.addWidget(self.cancel)
        buttons.addWidget(self.ok)
        layout.addLayout(buttons)
        layout.addStretch(1)
        self.transport.currentIndexChanged.connect(self._transport_changed)

    def _transport_changed(self, _index: int = 0) -> None:
        stdio = self.transport.currentData() == "stdio"
        for _label, widget in self._stdio_rows:
            self.form.setRowVisible(widget, stdio)
        for _label, widget in self._http_rows:
            self.form.setRowVisible(widget, not stdio)

    def edit(self, name: str, config: MCPServerConfig | None, taken: set[str]) -> None:
        """Fill the form for ``name`` (``config`` ``None`` for a new server)."""
        self.original = name if config is not None else ""
        self.base = config
        self.taken = taken - {name}
        self.title.setText(f"Edit MCP server “{name}”" if config else "Add an MCP server")
        self.title.setAccessibleName(self.title.text())
        self.form.setRowVisible(self.chooser, config is None)  # presets start new servers
        self.preset.blockSignals(True)
        self.preset.setCurrentIndex(0)
        self.preset.blockSignals(False)
        self.preset_info.hide()
        self._fill(name, config or MCPServerConfig(), mask=True)
        self.name.setFocus()

    def _fill(self, name: str, entry: MCPServerConfig, *, mask: bool) -> None:
        """Put ``entry`` into the fields (``mask``: hide the values of credential headers)."""
        self.name.setText(name)
        index = self.transport.findData(transport_of(entry) or "stdio")
        self.transport.setCurrentIndex(max(index, 0))
        self.command.setText(entry.command)
        self.args.setText(shlex.join(entry.args))
        self.env.set_lines(format_mapping(entry.env, "="))
        self.url.setText(entry.url)
        shown = {
            k: KEPT if mask and v and is_secret_header(k) else v for k, v in entry.headers.items()
        }
        self.headers.set_lines(format_mapping(shown, ":"))
        self.oauth.setChecked(entry.auth == "oauth")
        self.timeout.setValue(entry.tool_timeout)
        self.tools.setText(", ".join(entry.enabled_tools))
        self.status.clear()
        self._transport_changed()

    def use_preset(self, name: str) -> None:
        """Fill the form from preset ``name`` (``""``: an empty form) and say what it needs."""
        preset = find_preset(name)
        index = self.preset.findData(name)
        if index >= 0 and index != self.preset.currentIndex():
            self.preset.setCurrentIndex(index)  # comes back here through the signal
            return
        if preset is None:
            self.preset_info.hide()
            self._fill("", MCPServerConfig(), mask=False)
            return
        suggested = preset.name
        number = 2
        while suggested in self.taken:
            suggested = f"{preset.name}-{number}"
            number += 1
        self._fill(suggested, preset.entry.model_copy(deep=True), mask=False)
        self.preset_info.setText(
            f"{preset.description}\n{'URL' if preset.entry.url else 'Runs'}: {preset.where}\n"
            f"Needs: {preset.needs}.\nDocumentation: {preset.docs_url}"
            + ("\nReplace each <…> with your own value." if self._placeholders() else "")
        )
        self.preset_info.show()

    def _placeholders(self) -> list[str]:
        """``<…>`` placeholders still in the fields of the chosen transport."""
        if self.transport.currentData() == "stdio":
            return placeholders([self.command.text(), self.args.text(), *self.env.lines()])
        return placeholders([self.url.text(), *self.headers.lines()])

    def build(self) -> tuple[str, MCPServerConfig]:
        """The entry described by the form.

        Raises:
            ChangeError: Something is missing or malformed.
        """
        try:
            name = check_name(self.name.text())
        except ValueError as exc:
            raise ChangeError("Name", str(exc)) from None
        if name in self.taken:
            raise ChangeError("Name", f"a server named {name!r} exists already")
        kind = str(self.transport.currentData())
        if left := self._placeholders():
            where = "Arguments" if kind == "stdio" else "Headers"
            raise ChangeError(where, f"replace {left[0]} with your own value")
        data: dict[str, Any] = dict(self.base.model_extra or {}) if self.base is not None else {}
        data.pop("type", None)
        data["toolTimeout"] = self.timeout.value()
        tools = [t.strip() for t in self.tools.text().split(",") if t.strip()]
        data["enabledTools"] = tools or ["*"]
        if kind == "stdio":
            command = self.command.text().strip()
            if not command:
                raise ChangeError("Command", "enter the program to run")
            try:
                args = shlex.split(self.args.text())
            except ValueError as exc:
                raise ChangeError(
                    "Arguments", f"cannot split them ({exc}); check the quotes"
                ) from None
            env = parse_mapping(
                self.env.lines(), label="Environment", separator_char="=", kind="variable"
            )
            data.update(command=command, args=args, env=env, url="", headers={}, auth=None)
        else:
            url = check_url(self.url.text(), label="URL", required=True)
            headers = self._headers()
            auth = "oauth" if self.oauth.isChecked() else None
            data.update(url=url, headers=headers, auth=auth, command="", args=[], env={})
        try:
            config = MCPServerConfig.model_validate(data)
            if transport_of(config) != kind:  # only spell the type out when it cannot be guessed
                config = MCPServerConfig.model_validate({**data, "type": kind})
        except ValidationError as exc:
            raise ChangeError("Server", explain(exc)) from None
        return name, config

    def _headers(self) -> dict[str, str]:
        """The typed headers; a masked credential left as is keeps the entry's value."""
        headers = parse_mapping(
            self.headers.lines(), label="Headers", separator_char=":", kind="header"
        )
        before = self.base.headers if self.base is not None else {}
        for header, value in headers.items():
            if value == KEPT:  # unchanged: the value the entry had (never shown)
                if header not in before:
                    raise ChangeError("Headers", f"type the value of {header}")
                headers[header] = before[header]
        return headers

    def _submit(self) -> None:
        try:
            name, config = self.build()
        except ChangeError as exc:
            self.status.error(f"{exc.path}: {exc.reason}. Nothing was saved.")
            return
        self.status.clear()
        self.submitted.emit(name, config, self.original)
