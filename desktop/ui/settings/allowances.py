"""Settings → Tools & safety: what runs without asking, and a way to take it back.

"Always allow this tool" answers are kept in ``desktop.json`` (the approval policy saves them);
"Allow for this chat" answers last until the app quits. Both are listed here, each with a
Revoke button: the next call of that tool asks again.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QGridLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop.ui.i18n import tr
from desktop.ui.settings.tasks import OwnsTasks
from desktop.ui.settings.widgets import heading, hint

if TYPE_CHECKING:
    from desktop.ui.services import AppServices


class AllowancesBox(OwnsTasks, QWidget):
    """The always-allowed tools and the per-chat allowances, each revocable."""

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.setAccessibleName(tr("Tools allowed without asking"))
        self._titles: dict[str, str] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(heading(tr("Allowed without asking"), level=2))
        self.always = QGridLayout()
        self.chats = QGridLayout()
        self.always_empty = hint(tr("No tool is always allowed."))
        self.chats_empty = hint(tr("No tool is allowed in a single chat."))
        layout.addWidget(QLabel(tr("Always allowed (kept after a restart)")))
        layout.addWidget(self.always_empty)
        layout.addLayout(self.always)
        layout.addWidget(QLabel(tr("Allowed in one chat (until the app quits)")))
        layout.addWidget(self.chats_empty)
        layout.addLayout(self.chats)
        self.revoke_buttons: dict[tuple[str, str], QPushButton] = {}  # ("*" or chat, tool)
        self.refresh()

    def showEvent(self, event: QShowEvent) -> None:
        """Show the allowances as they are now (answers given in the chat since)."""
        super().showEvent(event)
        self.refresh()
        self.spawn(self._load_titles(), "allowance-titles")

    async def _load_titles(self) -> None:
        from desktop.core.session.manager import SessionManager

        manager = SessionManager(
            self.services.workspace, config_dir=self.services.config_path.parent
        )
        summaries = await asyncio.to_thread(manager.summaries)
        self._titles = {s.key: s.title for s in summaries}
        self.refresh()

    @staticmethod
    def _clear(grid: QGridLayout) -> None:
        while grid.count():
            item = grid.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()

    def refresh(self) -> None:
        """Rebuild both lists from the approval policy."""
        policy = self.services.policy
        self._clear(self.always)
        self._clear(self.chats)
        self.revoke_buttons = {}
        tools = sorted(policy.always_allowed)
        for row, tool in enumerate(tools):
            self._row(
                self.always,
                row,
                "*",
                tool,
                tr("everywhere"),
                lambda _c=False, t=tool: self.revoke(t),
            )
        self.always_empty.setVisible(not tools)
        rows = sorted(
            (self._titles.get(key, key), key, tool)
            for key, allowed in policy.session_allowed.items()
            for tool in allowed
        )
        for row, (title, key, tool) in enumerate(rows):

            def revoke(_c: bool = False, k: str = key, t: str = tool) -> None:
                self.revoke(t, k)

            self._row(self.chats, row, key, tool, tr("in “{chat}”").format(chat=title), revoke)
        self.chats_empty.setVisible(not rows)

    def _row(
        self, grid: QGridLayout, row: int, key: str, tool: str, where: str, slot: object
    ) -> None:
        label = QLabel(f"{tool}  ·  {where}")
        button = QPushButton(tr("Revoke"))
        button.setAccessibleName(tr("Revoke {tool} {where}").format(tool=tool, where=where))
        button.clicked.connect(slot)
        grid.addWidget(label, row, 0)
        grid.addWidget(button, row, 1)
        grid.setColumnStretch(0, 1)
        self.revoke_buttons[(key, tool)] = button

    def revoke(self, tool: str, session_key: str | None = None) -> None:
        """Ask about ``tool`` again (everywhere, or in ``session_key`` only)."""
        policy = self.services.policy
        if session_key is None:
            policy.revoke(tool)  # saved to desktop.json by the policy's owner
        else:
            policy.revoke_for_session(session_key, tool)
        self.refresh()
