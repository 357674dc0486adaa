"""Tool approvals in Telegram: the question comes with an inline keyboard.

The buttons are Allow once / This chat / Always / Deny; a button's callback data carries the
decision and the tool call id (``ap:<decision>:<call id>``, or a short digest of the id when
it would not fit Telegram's 64 bytes). A tap is acknowledged (``answerCallbackQuery``) and
answers the waiting question; then the question is edited to show the outcome and loses its
buttons. Replying with a keyword ("allow", "deny" …) still works, as in every channel. When the
question closes otherwise (the gate's timeout, ``/stop``, an answer in the app) the message
says so and loses its buttons too.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Awaitable, Coroutine
from dataclasses import dataclass
from typing import Any, Protocol

from telegram import Bot, CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import TelegramError

from desktop.core.agent.approval import ApprovalRequest, Decision
from desktop.core.bus.events import OutboundMessage
from desktop.core.channels.approvals import (
    CLOSED,
    CODES,
    LABELS,
    OUTCOMES,
    PREVIEW_CHARS,
    ReplyApprover,
)
from desktop.core.channels.telegram.markup import escape
from desktop.core.utils.redact import redact

log = logging.getLogger(__name__)

PREFIX = "ap"
CALLBACK_BYTES = 64


class QuestionSender(Protocol):
    """What the approver needs from the channel."""

    @property
    def name(self) -> str:
        """The channel's name (a class attribute of the channel satisfies it)."""
        ...

    async def send(self, message: OutboundMessage) -> None:
        """Deliver a plain message."""
        ...

    async def send_question(self, chat_id: str, html: str, keyboard: InlineKeyboardMarkup) -> int:
        """Send ``html`` with ``keyboard``; returns the message id."""
        ...

    async def edit_question(self, chat_id: str, message_id: int, html: str) -> None:
        """Replace the question's text and drop its buttons."""
        ...

    def spawn(self, coro: Coroutine[Any, Any, None], name: str) -> None:
        """Run ``coro`` in the background (owned by the channel)."""
        ...


@dataclass
class _Question:
    message_id: int
    html: str
    answered_by: str = ""


def question_html(request: ApprovalRequest) -> str:
    """The question as Telegram HTML."""
    arguments = json.dumps(request.arguments, ensure_ascii=False, indent=1)
    if len(arguments) > PREVIEW_CHARS:
        arguments = arguments[: PREVIEW_CHARS - 1] + "…"
    return (
        f"<b>Allow the tool {escape(request.tool)}?</b> It {escape(request.reason)}.\n"
        f"<pre>{escape(arguments)}</pre>\n"
        "Tap a button (or reply allow, allow chat, always or deny)."
    )


class ButtonApprover(ReplyApprover):
    """Asks with an inline keyboard; keyword replies keep working.

    Args:
        channel: The Telegram channel (sends and edits the question).
    """

    def __init__(self, channel: QuestionSender) -> None:
        super().__init__(channel.name, channel.send)
        self._channel = channel
        self._questions: dict[tuple[str, str], _Question] = {}
        self._digests: dict[str, str] = {}

    def callback_data(self, decision: Decision, call_id: str) -> str:
        """The data of one button (at most 64 bytes)."""
        code = next(c for c, d in CODES.items() if d is decision)
        data = f"{PREFIX}:{code}:{call_id}"
        if len(data.encode()) <= CALLBACK_BYTES:
            return data
        digest = hashlib.sha256(call_id.encode()).hexdigest()[:16]
        self._digests[digest] = call_id
        return f"{PREFIX}:{code}:#{digest}"

    def keyboard(self, call_id: str) -> InlineKeyboardMarkup:
        """The four buttons, two per row."""

        def button(decision: Decision) -> InlineKeyboardButton:
            return InlineKeyboardButton(
                LABELS[decision], callback_data=self.callback_data(decision, call_id)
            )

        return InlineKeyboardMarkup(
            [
                [button(Decision.ALLOW_ONCE), button(Decision.ALLOW_SESSION)],
                [button(Decision.ALWAYS), button(Decision.DENY)],
            ]
        )

    async def ask(self, request: ApprovalRequest) -> None:
        """Send the question with its buttons."""
        html = question_html(request)
        message_id = await self._channel.send_question(
            request.chat_id, html, self.keyboard(request.call_id)
        )
        self._questions[(request.chat_id, request.call_id)] = _Question(message_id, html)

    async def request_approval(self, request: ApprovalRequest) -> Decision:
        """Ask and wait; afterwards the question shows its outcome and loses its buttons."""
        decision: Decision | None = None
        try:
            decision = await super().request_approval(request)
            return decision
        finally:
            question = self._questions.pop((request.chat_id, request.call_id), None)
            self._digests = {k: v for k, v in self._digests.items() if v != request.call_id}
            if question is not None:
                self._channel.spawn(
                    self._close(request.chat_id, question, decision), name="approval-close"
                )

    async def _close(self, chat_id: str, question: _Question, decision: Decision | None) -> None:
        if decision is None:
            outcome = CLOSED
        else:
            outcome = OUTCOMES[decision] + (
                f" by {question.answered_by}" if question.answered_by else ""
            )
        html = f"{question.html}\n\n<i>{escape(outcome)}</i>"
        await self._channel.edit_question(chat_id, question.message_id, html)

    def _call_id(self, reference: str) -> str | None:
        if reference.startswith("#"):
            return self._digests.get(reference[1:])
        return reference or None

    async def on_button(self, bot: Bot, query: CallbackQuery, who: str) -> None:
        """A tap on one of the buttons: acknowledge it, then answer the question."""
        _, _, rest = (query.data or "").partition(":")
        code, _, reference = rest.partition(":")
        decision = CODES.get(code)
        call_id = self._call_id(reference)
        message = query.message
        chat_id = str(message.chat.id) if message is not None else ""
        waiting = (
            decision is not None
            and call_id is not None
            and any(r.call_id == call_id for r in self.pending(chat_id))
        )
        if not waiting or decision is None or call_id is None:
            await quietly(bot.answer_callback_query(query.id, text="This question is closed."))
            if message is not None:  # an old question (before a restart): drop its buttons
                await quietly(
                    bot.edit_message_reply_markup(
                        chat_id=message.chat.id, message_id=message.message_id, reply_markup=None
                    )
                )
            return
        await quietly(bot.answer_callback_query(query.id, text=OUTCOMES[decision]))
        question = self._questions.get((chat_id, call_id))
        if question is not None:
            question.answered_by = who
        self.answer(chat_id, decision, call_id)


async def quietly(call: Awaitable[Any]) -> None:
    """A best-effort Bot API call (a failure is logged)."""
    try:
        await call
    except TelegramError as exc:
        log.info("Telegram call failed: %s", redact(exc))
