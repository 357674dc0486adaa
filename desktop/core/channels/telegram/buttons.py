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

import logging
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, Protocol

from telegram import Bot, CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import TelegramError

from desktop.core.agent.approval import ApprovalRequest, Decision
from desktop.core.channels.approvals import CLOSED, LABELS, OUTCOMES, arguments_preview
from desktop.core.channels.buttons import ButtonApprover as BaseApprover
from desktop.core.channels.buttons import ButtonIds, QuestionChannel
from desktop.core.channels.telegram.markup import escape
from desktop.core.utils.redact import redact

log = logging.getLogger(__name__)

PREFIX = "ap"
CALLBACK_BYTES = 64


class QuestionSender(QuestionChannel, Protocol):
    """What the approver needs from the channel."""

    async def send_question(self, chat_id: str, html: str, keyboard: InlineKeyboardMarkup) -> int:
        """Send ``html`` with ``keyboard``; returns the message id."""
        ...

    async def edit_question(self, chat_id: str, message_id: int, html: str) -> None:
        """Replace the question's text and drop its buttons."""
        ...


@dataclass
class _Question:
    message_id: int
    html: str
    answered_by: str = ""


def question_html(request: ApprovalRequest) -> str:
    """The question as Telegram HTML."""
    return (
        f"<b>Allow the tool {escape(request.tool)}?</b> It {escape(request.reason)}.\n"
        f"<pre>{escape(arguments_preview(request))}</pre>\n"
        "Tap a button (or reply allow, allow chat, always or deny)."
    )


class ButtonApprover(BaseApprover[_Question]):
    """Asks with an inline keyboard; keyword replies keep working.

    Args:
        channel: The Telegram channel (sends and edits the question).
    """

    def __init__(self, channel: QuestionSender) -> None:
        super().__init__(channel)
        self._channel = channel
        self._ids = ButtonIds(PREFIX, lambda data: len(data.encode()) <= CALLBACK_BYTES)

    def callback_data(self, decision: Decision, call_id: str) -> str:
        """The data of one button (at most 64 bytes)."""
        return self._ids.encode(decision, call_id)

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

    async def post(self, request: ApprovalRequest) -> _Question:
        """Send the question with its buttons."""
        html = question_html(request)
        message_id = await self._channel.send_question(
            request.chat_id, html, self.keyboard(request.call_id)
        )
        return _Question(message_id, html)

    def forget(self, call_id: str) -> None:
        """Drop the question's digests."""
        self._ids.forget(call_id)

    async def close(
        self, request: ApprovalRequest, question: _Question, decision: Decision | None
    ) -> None:
        """Show the outcome (and who answered) under the question; drop the buttons."""
        if decision is None:
            outcome = CLOSED
        else:
            outcome = OUTCOMES[decision] + (
                f" by {question.answered_by}" if question.answered_by else ""
            )
        html = f"{question.html}\n\n<i>{escape(outcome)}</i>"
        await self._channel.edit_question(request.chat_id, question.message_id, html)

    async def on_button(self, bot: Bot, query: CallbackQuery, who: str) -> None:
        """A tap on one of the buttons: acknowledge it, then answer the question."""
        decision, call_id = self._ids.decode(query.data or "")
        message = query.message
        chat_id = str(message.chat.id) if message is not None else ""
        found = await self.claim(decision, call_id, who, lambda chat, _q: chat == chat_id)
        if decision is None or call_id is None or found is None:
            await quietly(bot.answer_callback_query(query.id, text="This question is closed."))
            if message is not None:  # an old question (before a restart): drop its buttons
                await quietly(
                    bot.edit_message_reply_markup(
                        chat_id=message.chat.id, message_id=message.message_id, reply_markup=None
                    )
                )
            return
        await quietly(bot.answer_callback_query(query.id, text=OUTCOMES[decision]))
        self.answer(chat_id, decision, call_id)


async def quietly(call: Awaitable[Any]) -> None:
    """A best-effort Bot API call (a failure is logged)."""
    try:
        await call
    except TelegramError as exc:
        log.info("Telegram call failed: %s", redact(exc))
