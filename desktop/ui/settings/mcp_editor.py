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
from desktop.ui.i18n import QT_TR_NOOP, tr
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
    ("stdio", QT_TR_NOOP("Local command (stdio)")),
    ("streamableHttp", QT_TR_NOOP("HTTP (streamable)")),
    ("sse", QT_TR_NOOP("HTTP (SSE)")),
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
        self.title = heading(tr("Add an MCP server"), level=2)
        layout.addWidget(self.title)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        self.name = QLineEdit()
        self.name.setAccessibleName(tr("Server name"))
        self.name.setPlaceholderText(tr("e.g. {example}").format(example="time"))
        self.transport = QComboBox()
        self.transport.setAccessibleName(tr("Transport"))
        for value, label in TRANSPORTS:
            self.transport.addItem(tr(label), value)
        self.command = QLineEdit()
        self.command.setAccessibleName(tr("Command"))
        self.command.setPlaceholderText(tr("e.g. {example}").format(example="uvx"))
        self.args = QLineEdit()
        self.args.setAccessibleName(tr("Arguments"))
        self.args.setPlaceholderText(
            tr("e.g. {example}").format(example="mcp-server-time --local-timezone Europe/Berlin")
        )
        self.env = LinesEdit(
            placeholder=tr("NAME=value (one per line)"),
            rows=2,
            accessible=tr("Environment variables"),
        )
        self.url = QLineEdit()
        self.url.setAccessibleName(tr("Server URL"))
        self.url.setPlaceholderText("https://example.com/mcp")
        self.headers = LinesEdit(
            placeholder=tr("Header-Name: value (one per line), e.g. Authorization: Bearer …"),
            rows=2,
            accessible=tr("HTTP headers"),
        )
        self.timeout = QSpinBox()
        self.timeout.setRange(1, 3600)
        self.timeout.setSuffix(tr(" s"))
        self.timeout.setAccessibleName(tr("Tool timeout in seconds"))
        self.tools = QLineEdit()
        self.tools.setAccessibleName(tr("Enabled tools"))
        self.tools.setPlaceholderText(tr("* (all), or names separated by commas"))
        self.preset = QComboBox()
        self.preset.setAccessibleName(tr("Start from a well-known server"))
        self.preset.addItem(tr("Nothing — an empty form"), "")
        for preset in PRESETS:
            self.preset.addItem(tr(preset.title) + " — " + preset.where, preset.name)
        self.preset.currentIndexChanged.connect(
            lambda _i: self.use_preset(str(self.preset.currentData() or ""))
        )
        self.preset_info = hint("")
        self.preset_info.setAccessibleName(tr("What the chosen server needs"))
        self.preset_info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.preset_info.hide()
        chooser = QWidget()
        column = QVBoxLayout(chooser)
        column.setContentsMargins(0, 0, 0, 8)
        column.setSpacing(4)
        column.addWidget(self.preset)
        column.addWidget(self.preset_info)
        self.chooser = chooser
        form.addRow(tr("Start from"), chooser)
        form.addRow(tr("Name"), self.name)
        form.addRow(tr("Transport"), self.transport)
        self._stdio_rows = [
            (tr("Command"), self.command),
            (tr("Arguments"), self.args),
            (tr("Environment"), self.env),
        ]
        self.oauth = QCheckBox(tr("Sign in with OAuth in the browser (tokens in the OS keyring)"))
        self.oauth.setAccessibleName(tr("Sign in with OAuth"))
        self._http_rows = [
            ("URL", self.url),
            (tr("Headers"), self.headers),
            (tr("Sign-in"), self.oauth),
        ]
        for label, widget in self._stdio_rows + self._http_rows:
            form.addRow(label, widget)
        form.addRow(tr("Tool timeout"), self.timeout)
        form.addRow(tr("Enabled tools"), self.tools)
        self.form = form
        layout.addLayout(form)
        layout.addWidget(
            hint(
                tr(
                    "A stdio server is a program on this computer: you approve its exact command "
                    "before it is started for the first time. Credential headers (Authorization, "
                    "API keys, tokens) are kept in the OS keyring, not in config.json."
                )
            )
        )
        self.status = InlineStatus(accessible=tr("MCP server form status"))
        layout.addWidget(self.status)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        self.cancel = QPushButton(tr("Cancel"))
        self.cancel.setAccessibleName(tr("Cancel editing the MCP server"))
        self.cancel.clicked.connect(self.cancelled)
        self.ok = QPushButton(tr("Continue"))
        self.ok.setAccessibleName(tr("Save the MCP server"))
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
        self.title.setText(
            tr("Edit MCP server “{name}”").format(name=name) if config else tr("Add an MCP server")
        )
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
        where = (
            tr("URL: {url}").format(url=preset.where)
            if preset.entry.url
            else tr("Runs: {command}").format(command=preset.where)
        )
        lines = [
            tr(preset.description),
            where,
            tr("Needs: {needs}.").format(needs=tr(preset.needs)),
            tr("Documentation: {url}").format(url=preset.docs_url),
        ]
        if self._placeholders():
            lines.append(tr("Replace each <…> with your own value."))
        self.preset_info.setText("\n".join(lines))
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
            raise ChangeError(tr("Name"), tr(str(exc))) from None  # the marked NAME_RULE
        if name in self.taken:
            raise ChangeError(
                tr("Name"), tr("a server named {name} exists already").format(name=repr(name))
            )
        kind = str(self.transport.currentData())
        if left := self._placeholders():
            where = tr("Arguments") if kind == "stdio" else tr("Headers")
            raise ChangeError(
                where, tr("replace {placeholder} with your own value").format(placeholder=left[0])
            )
        data: dict[str, Any] = dict(self.base.model_extra or {}) if self.base is not None else {}
        data.pop("type", None)
        data["toolTimeout"] = self.timeout.value()
        tools = [t.strip() for t in self.tools.text().split(",") if t.strip()]
        data["enabledTools"] = tools or ["*"]
        if kind == "stdio":
            command = self.command.text().strip()
            if not command:
                raise ChangeError(tr("Command"), tr("enter the program to run"))
            try:
                args = shlex.split(self.args.text())
            except ValueError as exc:
                raise ChangeError(
                    tr("Arguments"),
                    tr("cannot split them ({error}); check the quotes").format(error=exc),
                ) from None
            env = parse_mapping(
                self.env.lines(), label=tr("Environment"), separator_char="=", kind="variable"
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
            raise ChangeError(tr("Server"), explain(exc)) from None
        return name, config

    def _headers(self) -> dict[str, str]:
        """The typed headers; a masked credential left as is keeps the entry's value."""
        headers = parse_mapping(
            self.headers.lines(), label=tr("Headers"), separator_char=":", kind="header"
        )
        before = self.base.headers if self.base is not None else {}
        for header, value in headers.items():
            if value == KEPT:  # unchanged: the value the entry had (never shown)
                if header not in before:
                    raise ChangeError(
                        tr("Headers"), tr("type the value of {header}").format(header=header)
                    )
                headers[header] = before[header]
        return headers

    def _submit(self) -> None:
        try:
            name, config = self.build()
        except ChangeError as exc:
            self.status.error(
                tr("{field}: {reason}. Nothing was saved.").format(
                    field=exc.path, reason=exc.reason
                )
            )
            return
        self.status.clear()
        self.submitted.emit(name, config, self.original)
