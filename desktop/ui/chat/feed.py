"""Renders the chat's state: rows into the open message models, deltas at most once per frame.

:class:`~desktop.ui.chat.state.ChatState` decides everything (which rows a turn has, what
they say); :class:`TurnFeed` only applies its changes to the
:class:`~desktop.ui.chat.message_model.MessageModel` of each open session and hands the
changes of whole sessions (busy, ended, usage, errors…) to the tab. Buffered text and
reasoning deltas are flushed by a timer at most once per frame (``FRAME_MS``), so streaming
never re-renders the conversation. A session that is not open still gets its rows in the
state; they are attached when it is opened (:meth:`ChatState.live_rows`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtCore import QObject, QTimer

from desktop.core.bus.events import RunEvent
from desktop.ui.chat.changes import Change, RowAdded, RowChanged, RowRemoved, SessionChange
from desktop.ui.chat.message_model import MessageModel
from desktop.ui.chat.state import ChatState

FRAME_MS = 33


class TurnFeed(QObject):
    """Applies :class:`ChatState` changes to message models.

    Args:
        state: The chat's state.
        model_for: Returns the open model of a session, or ``None`` when it is not loaded.
        session_changed: Gets every change that is not about one row, in order.
        parent: Owner.
    """

    def __init__(
        self,
        state: ChatState,
        model_for: Callable[[str], MessageModel | None],
        session_changed: Callable[[SessionChange], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.state = state
        self.model_for = model_for
        self.session_changed = session_changed
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(FRAME_MS)
        self._timer.timeout.connect(self.flush)

    def apply(self, event: RunEvent) -> None:
        """Feed a run event to the state and render what changed."""
        self.render(self.state.apply(event))

    def flush(self) -> None:
        """Apply the buffered deltas now."""
        self.render(self.state.flush())

    def render(self, changes: Iterable[Change]) -> None:
        """Show ``changes`` (rows in the open models; the rest goes to the tab)."""
        for change in changes:
            match change:
                case RowAdded(key=key, item=item, before=before):
                    model = self.model_for(key)
                    if model is not None:
                        model.insert(item, before)
                case RowChanged(key=key, item=item):
                    model = self.model_for(key)
                    if model is not None and model.row_of(item) >= 0:
                        model.changed(item)
                    else:
                        item.touch()  # its rendering is stale when it is shown
                case RowRemoved(key=key, item=item):
                    model = self.model_for(key)
                    if model is not None:
                        model.remove(item)
                case _:
                    self.session_changed(change)
        if not self.state.buffered:
            self._timer.stop()
        elif not self._timer.isActive():
            self._timer.start()
