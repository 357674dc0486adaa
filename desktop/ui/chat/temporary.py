"""Temporary chats in the window: the notice above the conversation, and forgetting one.

A temporary chat (Ctrl+Shift+N, or the arrow beside "New chat") is kept by the agent in memory
only (:mod:`desktop.core.session.temporary`); the window keeps its rows for as long as it
shows it in the list (never evicted, never read back from disk) and marks it plainly. Closing
it (Delete in the list) stops its turn and forgets it; quitting the app forgets it too.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from desktop.ui.i18n import QT_TR_NOOP, tr

if TYPE_CHECKING:
    from desktop.core.runtime import Runtime

NOTICE = QT_TR_NOOP(
    "Temporary chat — nothing is saved, remembered or scheduled from it. It is gone when you "
    "close it or quit."
)


class TemporaryNotice(QLabel):
    """The line that marks a temporary chat (hidden for other chats)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(tr(NOTICE), parent)
        self.setObjectName("temporaryNotice")
        self.setAccessibleName(tr("Temporary chat"))
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setContentsMargins(12, 4, 12, 4)
        self.setStyleSheet(
            "QLabel#temporaryNotice { background: palette(alternate-base); "
            "border-bottom: 1px dashed palette(mid); }"
        )
        self.hide()


async def forget(runtime: Runtime | None, key: str) -> None:
    """Stop a closed temporary chat's turn and drop what the agent holds of it."""
    if runtime is None:
        return
    await runtime.agent.stop_session(key)
    await asyncio.to_thread(runtime.agent.sessions.delete, key)
