"""Connects the approver's queue to the chat: prompt, card states, list badges."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from desktop.core.agent.approval import ApprovalRequest, Decision
from desktop.ui.chat.approval_prompt import ApprovalPrompt
from desktop.ui.chat.approver import UiApprover
from desktop.ui.chat.feed import TurnFeed
from desktop.ui.chat.session_list_model import SessionListModel


class ApprovalPresenter(QObject):
    """Shows the shown chat's oldest question; marks cards and chats that wait.

    Args:
        approver: The queue of questions.
        prompt: The in-chat prompt widget.
        feed: Marks the waiting tool cards (in the chat's state) and shows them.
        sessions: The chat list (its "needs your approval" badge).
        current: The shown session key.

    Signals:
        attentionChanged(int): questions waiting across all chats.
    """

    attentionChanged = Signal(int)

    def __init__(
        self,
        approver: UiApprover,
        prompt: ApprovalPrompt,
        feed: TurnFeed,
        sessions: SessionListModel,
        current: Callable[[], str],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.approver = approver
        self.prompt = prompt
        self.feed = feed
        self.sessions = sessions
        self.current = current
        approver.changed.connect(self.changed)
        prompt.decided.connect(self.decided)

    def changed(self, key: str) -> None:
        """The questions of ``key`` changed."""
        pending = self.approver.pending(key)
        waiting = {(r.turn_id, r.call_id) for r in pending}
        state, render = self.feed.state, self.feed.render
        turn = state.turn_of(key)
        if turn is not None:
            for call_id in list(turn.cards):
                marked = (turn.turn_id, call_id) in waiting
                render(state.set_awaiting(turn.turn_id, call_id, marked))
        for request in pending:
            render(state.set_awaiting(request.turn_id, request.call_id, True))
        self.sessions.update(key, attention=bool(pending))
        if key == self.current():
            self.show_current()
        self.attentionChanged.emit(self.approver.count())

    def show_current(self) -> None:
        """Show the shown chat's oldest question, or hide the prompt."""
        pending = self.approver.pending(self.current())
        if pending:
            self.prompt.show_request(pending[0], len(pending) - 1)
        else:
            self.prompt.hide()

    def decided(self, request: ApprovalRequest, decision: Decision) -> None:
        """A button was pressed."""
        self.approver.decide(request, decision)
