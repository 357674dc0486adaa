"""Tool approvals answered in the chat itself, by a reply keyword.

Channels without buttons (e-mail, Matrix, …) ask in the conversation: the next message from
that chat that is one of the keywords answers the question and is not passed to the agent.
Channels with buttons (Telegram's inline keyboard) answer the same futures from a button.
Several questions in one chat are answered in order, oldest first.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from desktop.core.agent.approval import ApprovalRequest, Decision
from desktop.core.bus.events import OutboundMessage

KEYWORDS: dict[str, Decision] = {
    "allow": Decision.ALLOW_ONCE,
    "yes": Decision.ALLOW_ONCE,
    "allow once": Decision.ALLOW_ONCE,
    "1": Decision.ALLOW_ONCE,
    "allow chat": Decision.ALLOW_SESSION,
    "this chat": Decision.ALLOW_SESSION,
    "2": Decision.ALLOW_SESSION,
    "always": Decision.ALWAYS,
    "always allow": Decision.ALWAYS,
    "3": Decision.ALWAYS,
    "deny": Decision.DENY,
    "no": Decision.DENY,
    "4": Decision.DENY,
}
PREVIEW_CHARS = 400
# Channels with buttons (Telegram, Discord, Slack, Feishu): the four answers, the short code a
# button's data carries for each, their labels, and what a closed question says.
CODES: dict[str, Decision] = {
    "1": Decision.ALLOW_ONCE,
    "2": Decision.ALLOW_SESSION,
    "3": Decision.ALWAYS,
    "4": Decision.DENY,
}
LABELS: dict[Decision, str] = {
    Decision.ALLOW_ONCE: "Allow once",
    Decision.ALLOW_SESSION: "This chat",
    Decision.ALWAYS: "Always",
    Decision.DENY: "Deny",
}
OUTCOMES: dict[Decision, str] = {
    Decision.ALLOW_ONCE: "Allowed once",
    Decision.ALLOW_SESSION: "Allowed in this chat",
    Decision.ALWAYS: "Always allowed",
    Decision.DENY: "Denied",
}
CODE_OF: dict[Decision, str] = {decision: code for code, decision in CODES.items()}
CLOSED = "No longer waiting: not answered here (timed out, stopped, or answered in the app)."


def arguments_preview(request: ApprovalRequest) -> str:
    """The tool call's arguments as indented JSON, cut to :data:`PREVIEW_CHARS`."""
    arguments = json.dumps(request.arguments, ensure_ascii=False, indent=1)
    if len(arguments) > PREVIEW_CHARS:
        arguments = arguments[: PREVIEW_CHARS - 1] + "…"
    return arguments


def question_text(request: ApprovalRequest, *, keywords: bool = True) -> str:
    """The question as plain text (the tool, why, its arguments; how to answer)."""
    lines = [f"Allow the tool {request.tool}? It {request.reason}.", arguments_preview(request)]
    if keywords:
        lines.append('Reply "allow" (once), "allow chat" (for this chat), "always" or "deny".')
    return "\n".join(lines)


def parse_answer(text: str) -> Decision | None:
    """The decision a reply stands for, or ``None`` when it is not an answer."""
    return KEYWORDS.get(" ".join(text.strip().lower().strip(".!").split()))


@dataclass
class _Pending:
    request: ApprovalRequest
    future: asyncio.Future[Decision]


Sender = Callable[[OutboundMessage], Awaitable[None]]


class ReplyApprover:
    """Asks approval questions in a chat and takes the answer from the next keyword reply.

    Args:
        channel: The channel name (questions are only asked for its chats).
        send: Sends a message into a chat (the channel's ``send``).
    """

    def __init__(self, channel: str, send: Sender) -> None:
        self.channel = channel
        self._send = send
        self._pending: dict[str, list[_Pending]] = {}

    def pending(self, chat_id: str) -> list[ApprovalRequest]:
        """Questions waiting in ``chat_id``, oldest first."""
        return [p.request for p in self._pending.get(chat_id, [])]

    async def ask(self, request: ApprovalRequest) -> None:
        """Put the question into the chat (override to add buttons)."""
        await self._send(OutboundMessage(self.channel, request.chat_id, question_text(request)))

    async def request_approval(self, request: ApprovalRequest) -> Decision:
        """Ask in the request's chat and wait for the answer (cancelled with the turn)."""
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        entry = _Pending(request, future)
        queue = self._pending.setdefault(request.chat_id, [])
        queue.append(entry)
        try:
            await self.ask(request)
            return await future
        finally:
            if entry in queue:
                queue.remove(entry)
            if not queue:
                self._pending.pop(request.chat_id, None)

    def answer(self, chat_id: str, decision: Decision, call_id: str | None = None) -> bool:
        """Answer the oldest question in ``chat_id`` (or the one for ``call_id``)."""
        for entry in self._pending.get(chat_id, []):
            if entry.future.done():
                continue
            if call_id is not None and entry.request.call_id != call_id:
                continue
            entry.future.set_result(decision)
            return True
        return False

    def intercept(self, chat_id: str, text: str) -> bool:
        """Take ``text`` as the answer when a question waits in ``chat_id`` and it is a
        keyword; ``True`` means it was consumed (do not pass it to the agent)."""
        if not self._pending.get(chat_id):
            return False
        decision = parse_answer(text)
        return decision is not None and self.answer(chat_id, decision)
