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

import hashlib
import json
import logging
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, Protocol

import discord

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


class QuestionSender(Protocol):
    """What the approver needs from the channel."""

    @property
    def name(self) -> str:
        """The channel's name."""
        ...

    async def send(self, message: OutboundMessage) -> None:
        """Deliver a plain message."""
        ...

    async def send_question(self, chat_id: str, text: str, view: discord.ui.View) -> int:
        """Send ``text`` with the buttons of ``view``; returns the message id."""
        ...

    async def edit_question(self, chat_id: str, message_id: int, text: str) -> None:
        """Replace the question's text and drop its buttons."""
        ...

    def spawn(self, coro: Coroutine[Any, Any, None], name: str) -> None:
        """Run ``coro`` in the background (owned by the channel)."""
        ...


@dataclass
class _Question:
    message_id: int
    text: str
    answered_by: str = ""
    shown: bool = False  # the outcome is already shown (by the click's interaction response)


def question_text(request: ApprovalRequest) -> str:
    """The question in Discord markdown."""
    arguments = json.dumps(request.arguments, ensure_ascii=False, indent=1)
    if len(arguments) > PREVIEW_CHARS:
        arguments = arguments[: PREVIEW_CHARS - 1] + "…"
    arguments = arguments.replace("```", "`\u200b``")
    return (
        f"**Allow the tool `{request.tool}`?** It {request.reason}.\n"
        f"```json\n{arguments}\n```\n"
        "Click a button (or reply allow, allow chat, always or deny)."
    )


class ButtonApprover(ReplyApprover):
    """Asks with buttons; keyword replies keep working.

    Args:
        channel: The Discord channel (sends and edits the question).
    """

    def __init__(self, channel: QuestionSender) -> None:
        super().__init__(channel.name, channel.send)
        self._channel = channel
        self._questions: dict[tuple[str, str], _Question] = {}
        self._digests: dict[str, str] = {}

    def custom_id(self, decision: Decision, call_id: str) -> str:
        """The ``custom_id`` of one button (at most 100 characters)."""
        code = next(c for c, d in CODES.items() if d is decision)
        data = f"{PREFIX}:{code}:{call_id}"
        if len(data) <= CUSTOM_ID_CHARS:
            return data
        digest = hashlib.sha256(call_id.encode()).hexdigest()[:16]
        self._digests[digest] = call_id
        return f"{PREFIX}:{code}:#{digest}"

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

    async def ask(self, request: ApprovalRequest) -> None:
        """Send the question with its buttons."""
        text = question_text(request)
        message_id = await self._channel.send_question(
            request.chat_id, text, self.view(request.call_id)
        )
        self._questions[(request.chat_id, request.call_id)] = _Question(message_id, text)

    async def request_approval(self, request: ApprovalRequest) -> Decision:
        """Ask and wait; afterwards the question shows its outcome and loses its buttons."""
        decision: Decision | None = None
        try:
            decision = await super().request_approval(request)
            return decision
        finally:
            question = self._questions.pop((request.chat_id, request.call_id), None)
            self._digests = {k: v for k, v in self._digests.items() if v != request.call_id}
            if question is not None and not question.shown:
                self._channel.spawn(
                    self._close(request.chat_id, question, decision), name="approval-close"
                )

    async def _close(self, chat_id: str, question: _Question, decision: Decision | None) -> None:
        outcome = CLOSED if decision is None else OUTCOMES[decision]
        await self._channel.edit_question(
            chat_id, question.message_id, f"{question.text}\n\n*{outcome}*"
        )

    def _call_id(self, reference: str) -> str | None:
        if reference.startswith("#"):
            return self._digests.get(reference[1:])
        return reference or None

    async def on_click(self, interaction: discord.Interaction, custom_id: str, who: str) -> None:
        """A click on one of the buttons: update the question, then answer it."""
        _, _, rest = custom_id.partition(":")
        code, _, reference = rest.partition(":")
        decision = CODES.get(code)
        call_id = self._call_id(reference)
        chat_id = str(interaction.channel_id or "")
        waiting = (
            decision is not None
            and call_id is not None
            and any(r.call_id == call_id for r in self.pending(chat_id))
        )
        if not waiting or decision is None or call_id is None:
            await _respond(interaction, view=None)  # an old question: drop its buttons
            return
        question = self._questions.get((chat_id, call_id))
        if question is not None:
            question.answered_by = who
            question.shown = await _respond(
                interaction,
                content=f"{question.text}\n\n*{OUTCOMES[decision]} by {who}*",
                view=None,
            )
        else:
            await _respond(interaction, view=None)
        self.answer(chat_id, decision, call_id)


async def _respond(interaction: discord.Interaction, **changes: Any) -> bool:
    """Answer a click by editing its message (``UPDATE_MESSAGE``); ``False`` on failure."""
    try:
        await interaction.response.edit_message(**changes)
        return True
    except discord.DiscordException as exc:
        log.info("Discord: answering a button click failed: %s", redact(exc))
        return False
