"""The desktop :class:`~desktop.core.agent.approval.Approver`: questions wait on futures.

The runner awaits :meth:`UiApprover.request_approval`; the request is queued for its chat
and :attr:`UiApprover.changed` tells the chat tab to show the prompt. A button resolves the
future. Nothing runs a nested event loop, and cancelling the turn (``/stop``) cancels the wait.
"""

from __future__ import annotations

import asyncio
from typing import Any

from PySide6.QtCore import QObject, Signal

from desktop.core.agent.approval import ApprovalRequest, Decision


class UiApprover(QObject):
    """Queues approval requests per chat until the person answers.

    Signals:
        changed(str): the pending requests of this chat (session key) changed.
    """

    changed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pending: dict[str, list[tuple[ApprovalRequest, asyncio.Future[Any]]]] = {}

    async def request_approval(self, request: ApprovalRequest) -> Decision:
        """Wait for the person's answer to ``request``."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        queue = self._pending.setdefault(request.session_key, [])
        entry = (request, future)
        queue.append(entry)
        self.changed.emit(request.session_key)
        try:
            return Decision(await future)
        finally:
            if entry in queue:
                queue.remove(entry)
            if not queue:
                self._pending.pop(request.session_key, None)
            self.changed.emit(request.session_key)

    def pending(self, session_key: str) -> list[ApprovalRequest]:
        """Requests waiting in this chat, oldest first."""
        return [request for request, _ in self._pending.get(session_key, [])]

    def count(self) -> int:
        """Requests waiting in every chat."""
        return sum(len(queue) for queue in self._pending.values())

    def keys(self) -> list[str]:
        """Chats with a waiting request."""
        return list(self._pending)

    def decide(self, request: ApprovalRequest, decision: Decision) -> bool:
        """Answer ``request``; returns whether it was still waiting."""
        for queued, future in self._pending.get(request.session_key, []):
            if queued is request and not future.done():
                future.set_result(decision)
                return True
        return False

    def deny_all(self) -> None:
        """Answer every waiting request with Deny (shutdown)."""
        for queue in list(self._pending.values()):
            for _, future in queue:
                if not future.done():
                    future.set_result(Decision.DENY)
