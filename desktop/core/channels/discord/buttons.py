"""Tool approvals in Discord: the question comes with buttons (message components).

The buttons are Allow once / This chat / Always / Deny; a button's ``custom_id`` carries the
decision and the tool call id (``nb-ap:<code>:<call id>``, or a short digest of the id when it
would not fit Discord's 100 characters). A click arrives as an interaction; it is answered
with one ``UPDATE_MESSAGE`` callback that shows the outcome and removes the buttons, then the
waiting question is answered. Replying with a keyword ("allow", "deny" …) still works, as in
every channel. When the question closes otherwise (the gate's timeout, ``/stop``, an answer in
the app) the message is edited to say so and loses its buttons. A click on a question this
process does not know (asked before a restart) only removes the buttons.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Protocol

import discord

from desktop.core.agent.approval import ApprovalRequest, Decision
from desktop.core.channels.approvals import CLOSED, LABELS, OUTCOMES, arguments_preview
from desktop.core.channels.buttons import ButtonApprover as BaseApprover
from desktop.core.channels.buttons import ButtonIds, QuestionChannel
from desktop.core.utils.redact import redact

log = logging.getLogger(__name__)

PREFIX = "nb-ap"
CUSTOM_ID_CHARS = 100
STYLES = {
    Decision.ALLOW_ONCE: discord.ButtonStyle.success,
    Decision.ALLOW_SESSION: discord.ButtonStyle.primary,
    Decision.ALWAYS: discord.ButtonStyle.secondary,
    Decision.DENY: discord.ButtonStyle.danger,
}


class QuestionSender(QuestionChannel, Protocol):
    """What the approver needs from the channel."""

    async def send_question(self, chat_id: str, text: str, view: discord.ui.View) -> int:
        """Send ``text`` with the buttons of ``view``; returns the message id."""
        ...

    async def edit_question(self, chat_id: str, message_id: int, text: str) -> None:
        """Replace the question's text and drop its buttons."""
        ...


@dataclass
class _Question:
    message_id: int
    text: str
    answered_by: str = ""
    shown: bool = False  # the outcome is already shown (by the click's interaction response)


def question_text(request: ApprovalRequest) -> str:
    """The question in Discord markdown."""
    arguments = arguments_preview(request).replace("```", "`\u200b``")
    return (
        f"**Allow the tool `{request.tool}`?** It {request.reason}.\n"
        f"```json\n{arguments}\n```\n"
        "Click a button (or reply allow, allow chat, always or deny)."
    )


class ButtonApprover(BaseApprover[_Question]):
    """Asks with buttons; keyword replies keep working.

    Args:
        channel: The Discord channel (sends and edits the question).
    """

    def __init__(self, channel: QuestionSender) -> None:
        super().__init__(channel)
        self._channel = channel
        self._ids = ButtonIds(PREFIX, lambda data: len(data) <= CUSTOM_ID_CHARS)

    def custom_id(self, decision: Decision, call_id: str) -> str:
        """The ``custom_id`` of one button (at most 100 characters)."""
        return self._ids.encode(decision, call_id)

    def view(self, call_id: str) -> discord.ui.View:
        """The four buttons in one row.

        The view is stopped before it is sent, so discord.py does not keep it for dispatch:
        clicks are handled by :meth:`on_click` (also for questions from before a restart).
        """
        view = discord.ui.View(timeout=None)
        for decision in LABELS:
            view.add_item(
                discord.ui.Button(
                    label=LABELS[decision],
                    style=STYLES[decision],
                    custom_id=self.custom_id(decision, call_id),
                )
            )
        view.stop()
        return view

    async def post(self, request: ApprovalRequest) -> _Question:
        """Send the question with its buttons."""
        text = question_text(request)
        message_id = await self._channel.send_question(
            request.chat_id, text, self.view(request.call_id)
        )
        return _Question(message_id, text)

    def forget(self, call_id: str) -> None:
        """Drop the question's digests."""
        self._ids.forget(call_id)

    def shows_outcome(self, question: _Question) -> bool:
        """A click's interaction response already showed the outcome."""
        return question.shown

    async def close(
        self, request: ApprovalRequest, question: _Question, decision: Decision | None
    ) -> None:
        """Show how the question ended under it; drop the buttons."""
        outcome = CLOSED if decision is None else OUTCOMES[decision]
        await self._channel.edit_question(
            request.chat_id, question.message_id, f"{question.text}\n\n*{outcome}*"
        )

    async def on_click(self, interaction: discord.Interaction, custom_id: str, who: str) -> None:
        """A click on one of the buttons: update the question, then answer it."""
        decision, call_id = self._ids.decode(custom_id)
        chat_id = str(interaction.channel_id or "")
        found = await self.claim(decision, call_id, who, lambda chat, _q: chat == chat_id)
        if decision is None or call_id is None or found is None:
            await _respond(interaction, view=None)  # an old question: drop its buttons
            return
        question = found[1]
        question.shown = await _respond(
            interaction, content=f"{question.text}\n\n*{OUTCOMES[decision]} by {who}*", view=None
        )
        self.answer(chat_id, decision, call_id)


async def _respond(interaction: discord.Interaction, **changes: Any) -> bool:
    """Answer a click by editing its message (``UPDATE_MESSAGE``); ``False`` on failure."""
    try:
        await interaction.response.edit_message(**changes)
        return True
    except discord.DiscordException as exc:
        log.info("Discord: answering a button click failed: %s", redact(exc))
        return False
