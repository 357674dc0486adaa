"""The MCP servers page: live status, add / edit / remove / enable, import, stderr, reconnect."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, QUrl
from PySide6.QtGui import QDesktopServices, QHideEvent, QShowEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from desktop.core.config.edit import ChangeError
from desktop.core.config.errors import ConfigError
from desktop.core.config.mcp_headers import forget_header_secrets, store_header_secrets
from desktop.core.config.schema import MCPServerConfig
from desktop.core.config.secrets import KeyringUnavailable
from desktop.core.tools.mcp import MCPManager, MCPServerStatus
from desktop.core.tools.mcp.runtime import MCPRuntime
from desktop.core.utils.redact import redact
from desktop.ui.i18n import QT_TR_NOOP, localized, tr
from desktop.ui.settings.mcp_approval import ApprovalPanel, ImportPanel
from desktop.ui.settings.mcp_details import ServerDetails, status_text
from desktop.ui.settings.mcp_editor import MCPEditor
from desktop.ui.settings.mcp_entries import is_enabled, needs_approval, with_enabled
from desktop.ui.settings.page import SettingsPage, commit_changes, save_error_text
from desktop.ui.settings.widgets import hint

if TYPE_CHECKING:
    from desktop.ui.services import AppServices

_MAX_JSON_BYTES = 1_000_000


async def _open_in_browser(url: str) -> None:
    """Open the sign-in page in the person's browser."""
    if not QDesktopServices.openUrl(QUrl(url)):
        raise RuntimeError(
            tr("no browser could be opened; open this address yourself: {url}").format(url=url)
        )


class MCPPage(SettingsPage):
    """``tools.mcpServers``: each server with its live status; changes saved at once.

    A new stdio server (or a changed command) is shown with its full command line for
    approval before it is saved and started; imports are always reviewed.
    """

    section = "mcp"
    title = QT_TR_NOOP("MCP servers")

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(
            services,
            parent,
            buttons=False,
            description=tr(
                "Model Context Protocol servers give the agent extra tools. Changes are saved at "
                "once."
            ),
        )
        self.runtime = MCPRuntime(
            services.config, self._agent_manager, self._status_changed, secrets=services.secrets
        )
        self.open_url: Callable[[str], Awaitable[None]] = _open_in_browser
        self.statuses: dict[str, MCPServerStatus] = {}
        self._pending: tuple[dict[str, MCPServerConfig], str] | None = None
        self._removed: tuple[str, MCPServerConfig] | None = None
        self.mode = QStackedWidget()
        self.body_layout.addWidget(self.mode, 1)

        overview = QWidget()
        column = QVBoxLayout(overview)
        column.setContentsMargins(0, 0, 0, 0)
        self.where = hint("")
        column.addWidget(self.where)
        row = QHBoxLayout()
        self.list = QListWidget()
        self.list.setAccessibleName(tr("MCP servers"))
        self.list.setFixedWidth(250)
        self.list.setWordWrap(True)
        self.list.setSpacing(3)
        self.list.currentRowChanged.connect(lambda _row: self._show_details())
        self.details = ServerDetails()
        self.details.editRequested.connect(self.edit_server)
        self.details.removeRequested.connect(
            lambda name: self.spawn(self.remove_server(name), "mcp-remove")
        )
        self.details.reconnectRequested.connect(
            lambda name: self.spawn(self.reconnect(name), "mcp-reconnect")
        )
        self.details.signInRequested.connect(
            lambda name: self.spawn(self.sign_in(name), "mcp-sign-in")
        )
        self.details.signOutRequested.connect(
            lambda name: self.spawn(self.sign_out(name), "mcp-sign-out")
        )
        self.details.enableRequested.connect(
            lambda name, on: self.spawn(self.set_enabled(name, on), "mcp-enable")
        )
        self.empty = hint(
            tr('No MCP servers yet. Add one, or import the "mcpServers" JSON of Claude Desktop.')
        )
        self.empty.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        row.addWidget(self.list)
        row.addWidget(self.details, 1)
        row.addWidget(self.empty, 1)
        column.addLayout(row, 1)
        buttons = QHBoxLayout()
        self.add_button = QPushButton(tr("Add server…"))
        self.add_button.setAccessibleName(tr("Add an MCP server"))
        self.add_button.clicked.connect(lambda: self.edit_server(""))
        self.import_button = QPushButton(tr("Import JSON…"))
        self.import_button.setAccessibleName(tr("Import MCP servers from Claude Desktop JSON"))
        self.import_button.clicked.connect(self._start_import)
        self.undo_button = QPushButton(tr("Undo remove"))
        self.undo_button.setAccessibleName(tr("Put the removed MCP server back"))
        self.undo_button.clicked.connect(lambda: self.spawn(self._undo_remove(), "mcp-undo"))
        self.undo_button.hide()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.import_button)
        buttons.addWidget(self.undo_button)
        buttons.addStretch(1)
        column.addLayout(buttons)
        self.overview = overview

        self.editor = MCPEditor()
        self.editor.submitted.connect(self._submitted)
        self.editor.cancelled.connect(self._back)
        self.approval = ApprovalPanel()
        self.approval.approved.connect(
            lambda entries: self.spawn(self._approved(entries), "mcp-apply")
        )
        self.approval.cancelled.connect(self._back)
        self.importer = ImportPanel()
        self.importer.parsed.connect(self._imported)
        self.importer.cancelled.connect(self._back)
        self.importer.fileChosen.connect(lambda path: self.spawn(self._read_file(path), "mcp-read"))
        for widget in (overview, self.editor, self.approval, self.importer):
            self.mode.addWidget(widget)
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setInterval(1000)
        self._refresh_timer.timeout.connect(self._tick)
        services.agentReady.connect(lambda: self.spawn(self._agent_ready(), "mcp-agent"))

    # -- view --------------------------------------------------------------------------------
    def servers(self) -> dict[str, MCPServerConfig]:
        """The configured servers."""
        return dict(self.services.config.tools.mcp_servers)

    def load(self) -> None:
        """Rebuild the list from the config and the known statuses."""
        agent = self.runtime.agent_managed
        self.where.setText(
            tr("Status is live from the running agent.")
            if agent
            else tr(
                "The agent is still starting: servers you add or connect here are tried right "
                "away; the agent takes over once it runs."
            )
        )
        self.statuses.update(self.runtime.peek_statuses())
        current = self.current_name()
        self.list.blockSignals(True)
        self.list.clear()
        for name, config in sorted(self.servers().items()):
            item = QListWidgetItem(self._item_text(name, config))
            item.setData(Qt.ItemDataRole.UserRole, name)
            self.list.addItem(item)
        self.list.blockSignals(False)
        names = sorted(self.servers())
        has = bool(names)
        self.list.setVisible(has)
        self.details.setVisible(has)
        self.empty.setVisible(not has)
        if has:
            self.list.setCurrentRow(names.index(current) if current in names else 0)
        self._show_details()
        if agent:
            self.spawn(self._attach(), "mcp-attach")

    def _item_text(self, name: str, config: MCPServerConfig) -> str:
        _kind, words = status_text(
            self.statuses.get(name), enabled=is_enabled(config), agent=self.runtime.agent_managed
        )
        return f"{name}\n{words}"

    def current_name(self) -> str:
        """The selected server's name (``""`` when none)."""
        item = self.list.currentItem()
        return str(item.data(Qt.ItemDataRole.UserRole)) if item is not None else ""

    def show_server(self, name: str) -> None:
        """Select server ``name``."""
        for row in range(self.list.count()):
            if self.list.item(row).data(Qt.ItemDataRole.UserRole) == name:
                self.list.setCurrentRow(row)

    def _show_details(self) -> None:
        name = self.current_name()
        config = self.servers().get(name)
        if config is None:
            self._refresh_timer.stop()
            return
        self.details.show_server(
            name,
            config,
            self.statuses.get(name),
            self.runtime.tool_names(name),
            agent=self.runtime.agent_managed,
        )
        if self.isVisible():  # a hidden page does not tick (showEvent starts it)
            self._refresh_timer.start()

    def showEvent(self, event: QShowEvent) -> None:
        """Shown again: refresh the server's details now and every second while visible."""
        super().showEvent(event)
        if self.current_name() in self.servers():
            self._show_details()

    def hideEvent(self, event: QHideEvent) -> None:
        """Hidden (another section, another tab, the window in the tray): stop ticking."""
        super().hideEvent(event)
        self._refresh_timer.stop()

    def _tick(self) -> None:
        """Refresh the stderr tail and status of the shown server while the page is visible."""
        if not self.isVisible():
            self._refresh_timer.stop()
            return
        fresh = self.runtime.peek_statuses()
        if fresh:
            self.statuses.update(fresh)
            self._show_details()

    def _agent_manager(self) -> MCPManager | None:
        """The running runtime's MCP manager, ``None`` before the runtime exists."""
        runtime = self.services.runtime
        return runtime.mcp if runtime is not None else None

    def _status_changed(self, status: MCPServerStatus) -> None:
        """A manager reported a change (on the event loop)."""
        self.statuses[status.name] = status
        config = self.servers().get(status.name)
        for row in range(self.list.count()):
            item = self.list.item(row)
            if item.data(Qt.ItemDataRole.UserRole) == status.name and config is not None:
                item.setText(self._item_text(status.name, config))
        if status.name == self.current_name():
            self._show_details()

    def _back(self) -> None:
        self.mode.setCurrentWidget(self.overview)

    def _enter(self, panel: QWidget) -> None:
        """Switch to a form or review panel (an old message below would be confusing)."""
        self.status.clear()
        self.mode.setCurrentWidget(panel)

    # -- add / edit / import -----------------------------------------------------------------
    def edit_server(self, name: str) -> None:
        """Open the form for ``name`` (``""`` adds a new server)."""
        self.editor.edit(name, self.servers().get(name) if name else None, set(self.servers()))
        self._enter(self.editor)

    def _submitted(self, name: str, config: MCPServerConfig, original: str) -> None:
        old = self.servers().get(original or name)
        entries = {name: config}
        if needs_approval(config, old):
            self._pending = (entries, original)
            self.approval.ask(entries, self.servers())
            self._enter(self.approval)
        else:
            self.spawn(self.apply_entries(entries, rename_from=original), "mcp-apply")

    def _start_import(self) -> None:
        self.importer.reset()
        self._enter(self.importer)

    def _imported(self, servers: dict[str, MCPServerConfig]) -> None:
        self._pending = (servers, "")
        self.approval.ask(servers, self.servers())
        self._enter(self.approval)

    async def _read_file(self, path: str) -> None:
        def read() -> str:
            file = Path(path)
            if file.stat().st_size > _MAX_JSON_BYTES:
                raise ValueError(tr("the file is larger than 1 MB; is it the right one?"))
            return file.read_text(encoding="utf-8")

        try:
            text = await asyncio.to_thread(read)
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            self.importer.status.error(
                tr("Cannot read {path}: {error}").format(path=path, error=exc)
            )
            return
        self.importer.set_text(text)

    async def _approved(self, entries: dict[str, MCPServerConfig]) -> None:
        rename_from = self._pending[1] if self._pending else ""
        await self.apply_entries(entries, rename_from=rename_from)

    async def apply_entries(
        self, entries: dict[str, MCPServerConfig], *, rename_from: str = ""
    ) -> bool:
        """Save ``entries`` (added or replaced), then connect them. On failure nothing changes
        and the form or approval stays open, so nothing typed is lost."""
        servers = self.servers()
        before = dict(servers)
        if rename_from and rename_from not in entries:
            servers.pop(rename_from, None)
        servers.update(entries)
        kept = await self._keep_secret_headers(entries)
        if not await self._commit(servers):
            return False
        for name, config in before.items():  # headers (or a server) that are gone
            dropped = set(config.headers) - set(servers[name].headers if name in servers else {})
            await forget_header_secrets(self.services.secrets, name, dropped)
        self._pending = None
        self._back()
        manager = await self.runtime.manager()
        if rename_from and rename_from not in entries:
            await manager.remove(rename_from)
            self.statuses.pop(rename_from, None)
        for name, config in entries.items():
            await manager.configure(name, config)
        self.load()
        self.show_server(next(iter(entries)))
        self.status.ok(tr("Saved {names}.").format(names=", ".join(entries)) + kept)
        await asyncio.gather(
            *(manager.connect(name) for name, cfg in entries.items() if is_enabled(cfg))
        )
        self.load()
        return True

    async def _keep_secret_headers(self, entries: dict[str, MCPServerConfig]) -> str:
        """Move typed credential headers into the keyring (the file keeps empty values).

        Returns words for the status line ("" when nothing was moved).
        """
        moved: list[str] = []
        for name, config in entries.items():
            try:
                headers = await store_header_secrets(
                    self.services.config, self.services.secrets, name, config
                )
            except KeyringUnavailable:
                return " " + tr("No OS keyring: its secret headers stay in config.json.")
            moved += headers
        if not moved:
            return ""
        names = ", ".join(sorted(set(moved)))
        return " " + tr("{headers} kept in the OS keyring.").format(headers=names)

    async def _commit(self, servers: dict[str, MCPServerConfig]) -> bool:
        try:
            await commit_changes(self.services, {"tools.mcp_servers": servers})
        except ChangeError as exc:
            self.status.error(tr("{reason}. Nothing was saved.").format(reason=exc.reason))
            return False
        except (ConfigError, OSError) as exc:
            message = save_error_text(exc)
            self.status.error(message)
            for panel in (self.editor, self.importer):
                panel.status.error(message)
            if isinstance(exc, ConfigError):
                self.configError.emit(localized(exc))
            return False
        return True

    # -- actions on one server ----------------------------------------------------------------
    async def remove_server(self, name: str) -> bool:
        """Remove ``name`` from the config and stop it (Undo puts it back)."""
        servers = self.servers()
        config = servers.pop(name, None)
        if config is None or not await self._commit(servers):
            return False
        manager = self.runtime.current()
        if manager is not None:
            await manager.remove(name)
        self.statuses.pop(name, None)
        self._removed = (name, config)
        await forget_header_secrets(self.services.secrets, name, config.headers)
        self.undo_button.show()
        self.status.ok(tr("Removed {name}.").format(name=name))
        self.load()
        return True

    async def _undo_remove(self) -> None:
        if self._removed is None:
            return
        name, config = self._removed
        self._removed = None
        self.undo_button.hide()
        await self.apply_entries({name: config})  # approved before: no new approval

    async def set_enabled(self, name: str, enabled: bool) -> bool:
        """Switch ``name`` on (and connect it) or off (and stop it)."""
        config = self.servers().get(name)
        if config is None:
            return False
        updated = with_enabled(config, enabled)
        servers = self.servers()
        servers[name] = updated
        if not await self._commit(servers):
            return False
        manager = await self.runtime.manager()
        await manager.configure(name, updated)
        self.load()
        if enabled:
            await manager.connect(name)
        return True

    async def reconnect(self, name: str) -> MCPServerStatus | None:
        """Connect ``name`` again (stopping a running child first)."""
        config = self.servers().get(name)
        if config is None:
            return None
        manager = await self.runtime.manager()
        if name not in manager.names():
            await manager.configure(name, config)
        self.status.clear()
        status = await manager.reconnect(name)
        self.statuses[name] = status
        self._status_changed(status)
        return status

    async def sign_in(self, name: str) -> bool:
        """Sign in to OAuth server ``name`` in the browser, then connect it."""
        config = self.servers().get(name)
        if config is None:
            return False
        from desktop.core.tools.mcp import oauth  # the SDK: loaded when first needed

        self.status.info(tr("Finish the sign-in in your browser (the page has opened)…"))
        try:
            await oauth.sign_in(name, config, self.services.secrets, self.open_url)
        except Exception as exc:  # noqa: BLE001 - any failure becomes a message for the person
            self.status.error(
                tr("Sign-in to {name} failed: {error}").format(
                    name=name, error=redact(str(exc) or type(exc).__name__)
                )
            )
            return False
        self.status.ok(tr("Signed in to {name}.").format(name=name))
        await self.reconnect(name)
        return True

    async def sign_out(self, name: str) -> bool:
        """Forget ``name``'s tokens and disconnect it."""
        from desktop.core.tools.mcp import oauth

        try:
            existed = await oauth.sign_out(name, self.services.secrets)
        except KeyringUnavailable as exc:
            self.status.error(str(exc))
            return False
        manager = self.runtime.current()
        config = self.servers().get(name)
        if manager is not None and config is not None:
            await manager.configure(name, config)  # closes the signed-in connection
        self.status.ok(
            tr("Signed out of {name}.").format(name=name)
            if existed
            else tr("{name} was not signed in.").format(name=name)
        )
        self.load()
        return existed

    # -- agent ---------------------------------------------------------------------------------
    async def _attach(self) -> None:
        await self.runtime.manager()
        self.statuses.update(self.runtime.peek_statuses())
        for name in self.servers():
            if name in self.statuses:
                self._status_changed(self.statuses[name])

    async def _agent_ready(self) -> None:
        await self.runtime.manager()
        self.load()

    async def aclose(self) -> None:
        """End this page's tasks, stop the stand-in manager (its stdio children) and listening."""
        try:
            self._refresh_timer.stop()
        except RuntimeError:  # the page (and its timer) is already deleted: stop the rest anyway
            pass
        try:
            await super().aclose()  # first: no task of the page may ask for a manager after
        finally:
            await self.runtime.aclose()
