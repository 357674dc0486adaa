"""Tool approvals in Teams: the question is an Adaptive Card with four ``Action.Submit``
buttons.

Each button's ``data`` is ``{"nbApproval": <code>, "callId": <tool call id>}``; a click comes
back as a message activity whose ``value`` is that data (and no text), and answers the
waiting question when the person clicking is allowed. The card is then replaced by a text
saying the outcome and who answered; a question that ends otherwise (the gate's timeout,
``/stop``, an answer in the app or by keyword) is replaced by a note saying so. Keyword replies
("allow", "deny" …) keep working, as in every channel.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Protocol

from botbuilder.core import TurnContext
from botbuilder.schema import Activity, ActivityTypes, Attachment

from desktop.core.agent.approval import ApprovalRequest, Decision
from desktop.core.channels.approvals import (
    CLOSED,
    CODE_OF,
    CODES,
    LABELS,
    OUTCOMES,
    arguments_preview,
)
from desktop.core.channels.buttons import ButtonApprover, QuestionChannel
from desktop.core.utils.redact import redact

log = logging.getLogger(__name__)

CARD_TYPE = "application/vnd.microsoft.card.adaptive"
KEY = "nbApproval"


class CardChannel(QuestionChannel, Protocol):
    """What the approver needs from the channel."""

    async def in_conversation(self, chat_id: str, act: Any) -> Any:
        """Run ``act(turn_context)`` in ``chat_id``'s conversation."""
        ...


@dataclass
class _Question:
    activity_id: str
    answered_by: str = ""


def card(request: ApprovalRequest) -> dict[str, Any]:
    """The Adaptive Card asking about ``request``."""
    actions = [
        {
            "type": "Action.Submit",
            "title": label,
            "data": {KEY: CODE_OF[decision], "callId": request.call_id},
        }
        for decision, label in LABELS.items()
    ]
    return {
        "type": "AdaptiveCard",
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
        "version": "1.4",
        "body": [
            {
                "type": "TextBlock",
                "text": f"Allow the tool {request.tool}?",
                "weight": "Bolder",
                "wrap": True,
            },
            {"type": "TextBlock", "text": f"It {request.reason}.", "wrap": True},
            {
                "type": "TextBlock",
                "text": arguments_preview(request),
                "fontType": "Monospace",
                "wrap": True,
            },
            {
                "type": "TextBlock",
                "text": "Click a button (or reply allow, allow chat, always or deny).",
                "isSubtle": True,
                "wrap": True,
            },
        ],
        "actions": actions,
    }


def card_answer(value: dict[str, Any]) -> tuple[Decision | None, str] | None:
    """The decision and call id of a button's submitted ``value`` (``None``: not ours)."""
    if KEY not in value:
        return None
    return CODES.get(str(value.get(KEY))), str(value.get("callId") or "")


class CardApprover(ButtonApprover[_Question]):
    """Asks with an Adaptive Card; keyword replies keep working.

    Args:
        channel: The Teams channel.
    """

    def __init__(self, channel: CardChannel) -> None:
        super().__init__(channel)
        self._channel = channel

    async def post(self, request: ApprovalRequest) -> _Question:
        """Send the card into the request's conversation."""
        attachment = Attachment(content_type=CARD_TYPE, content=card(request))
        activity = Activity(
            type=ActivityTypes.message,
            text=f"Allow the tool {request.tool}?",
            attachments=[attachment],
        )

        async def send(context: TurnContext) -> str:
            response = await context.send_activity(activity)
            return str(getattr(response, "id", "") or "")

        return _Question(await self._channel.in_conversation(request.chat_id, send))

    async def close(
        self, request: ApprovalRequest, question: _Question, decision: Decision | None
    ) -> None:
        """Replace the card by its outcome (and who answered)."""
        if not question.activity_id:
            return
        if decision is None:
            outcome = CLOSED
        else:
            who = f" by {question.answered_by}" if question.answered_by else ""
            outcome = OUTCOMES[decision] + who
        text = f"Allow the tool {request.tool}? _{outcome}_"
        update = Activity(
            id=question.activity_id, type=ActivityTypes.message, text=text, attachments=[]
        )

        async def edit(context: TurnContext) -> None:
            await context.update_activity(update)

        try:
            await self._channel.in_conversation(request.chat_id, edit)
        except Exception as exc:  # noqa: BLE001 - the answer counts even if the edit fails
            log.info("Teams: updating an approval card failed: %s", redact(exc))

    async def on_submit(self, value: dict[str, Any], sender: str, chat_id: str) -> bool:
        """A click on one of the buttons; ``True`` when it answered a waiting question."""
        answer = card_answer(value)
        if answer is None:
            return False
        decision, call_id = answer
        found = await self.claim(
            decision, call_id or None, sender, lambda chat, _q: chat == chat_id
        )
        if decision is None or found is None:
            log.info("Teams: a click on a closed or unknown approval card")
            return False
        return self.answer(chat_id, decision, call_id)
