"""Archive a chat into memory now: "Archive into memory now" in the chat's ⋯ menu, and what
``/new`` does in the window before it opens a new chat.

It is nanobot's ``/new`` for memory: the chat's messages that are not in memory yet are
summarised by the Consolidator into ``memory/history.jsonl``, where Dream learns from them
(:meth:`~desktop.core.agent.loop.AgentLoop.archive_session`). Unlike nanobot, the window keeps
the chat itself, whole, in the list: only its mark of what is archived moves on. Without this,
a chat reaches memory only once it outgrows the model's context window.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction

from desktop.core.utils.redact import redact
from desktop.ui.i18n import QT_TR_NOOP, tr

if TYPE_CHECKING:
    from desktop.core.runtime import Runtime
    from desktop.ui.chat.chat_tab import ChatTab

log = logging.getLogger(__name__)

NOTICE_MS = 5000
LABEL = QT_TR_NOOP("Archive into memory now")


def archived_text(count: int) -> str:
    """What the window says after archiving ``count`` messages."""
    if count == 0:
        return tr("Nothing new to archive: this chat is in memory already.")
    if count == 1:
        return tr("1 message summarised into memory (History); Dream learns from them.")
    return tr("{count} messages summarised into memory (History); Dream learns from them.").format(
        count=count
    )


class ChatArchiver(QObject):
    """Adds the menu action to the chat tab and archives chats for it and for ``/new``.

    Args:
        tab: The chat tab (its ⋯ menu, its task owner, the runtime of its services).

    Signals:
        archived(str, int): the session key and how many messages went into memory.
    """

    archived = Signal(str, int)

    def __init__(self, tab: ChatTab) -> None:
        super().__init__(tab)
        self.tab = tab
        menu = tab.pane.more.menu()
        menu.addSeparator()
        self.action = QAction(tr(LABEL), menu)
        self.action.triggered.connect(lambda: self.archive(self.tab.current))
        menu.addAction(self.action)
        tab.pane.more.setToolTip(tr("Regenerate, export, archive into memory"))

    def archive(self, key: str) -> None:
        """Archive ``key`` in the background (after its running turn, if one runs)."""
        runtime = self.tab.services.runtime
        if runtime is None or not key:
            return
        self.tab.tasks.try_spawn(self._archive(runtime, key), name="archive-chat")

    async def _archive(self, runtime: Runtime, key: str) -> None:
        try:
            count = await runtime.agent.archive_session(key)
        except Exception as exc:  # told to the person; the chat itself is untouched
            log.exception("archiving %s into memory failed", key)
            failed = tr("Archiving into memory failed: {error}").format(error=redact(exc))
            self.tab.pane.copied.flash(failed, NOTICE_MS)
            return
        self.tab.pane.copied.flash(archived_text(count), NOTICE_MS)
        self.archived.emit(key, count)
