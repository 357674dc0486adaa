"""Tool approvals in Feishu: the question is a card with Allow once / This chat / Always /
Deny buttons.

A button's ``value`` carries the decision and the tool call id. A tap reaches the app as a
``card.action.trigger`` callback over the long connection; its answer (sent back on the same
frame) shows a toast and replaces the card with one that names the outcome and has no buttons.
Replying with a keyword ("allow", "deny" …) still works, as in every channel. When the
question closes otherwise (the gate's timeout, ``/stop``, an answer in the app) the card is
updated to say so (``PATCH`` of the message).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Protocol

from desktop.core.agent.approval import ApprovalRequest, Decision
from desktop.core.channels.approvals import CLOSED, CODES, OUTCOMES, arguments_preview
from desktop.core.channels.buttons import ButtonApprover, ButtonIds, QuestionChannel
from desktop.core.channels.feishu.cards import card

log = logging.getLogger(__name__)

KIND = "nanobot-approval"
IDS = ButtonIds(KIND, lambda _data: True)
"""A button's ``value`` object (the call id inside it has no length limit)."""
LABELS = {
    Decision.ALLOW_ONCE: ("Allow once", "primary"),
    Decision.ALLOW_SESSION: ("This chat", "default"),
    Decision.ALWAYS: ("Always", "default"),
    Decision.DENY: ("Deny", "danger"),
}


class CardSender(QuestionChannel, Protocol):
    """What the approver needs from the channel."""

    async def send_card(self, chat_id: str, body: dict[str, Any]) -> str:
        """Send a card; returns its message id."""
        ...

    async def update_card(self, message_id: str, body: dict[str, Any]) -> None:
        """Replace a card the bot sent (best effort)."""
        ...


@dataclass
class _Question:
    message_id: str
    request: ApprovalRequest
    answered_by: str = ""


@dataclass(frozen=True)
class ActionResult:
    """The answer to a button tap: a toast and, when the card changes, the new card."""

    toast_type: str
    toast: str
    card: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """The callback's response body."""
        body: dict[str, Any] = {"toast": {"type": self.toast_type, "content": self.toast}}
        if self.card is not None:
            body["card"] = {"type": "raw", "data": self.card}
        return body


def _details(request: ApprovalRequest) -> str:
    return f"It {request.reason}.\n```json\n{arguments_preview(request)}\n```"


def _header(request: ApprovalRequest, template: str) -> dict[str, Any]:
    return {
        "title": {"tag": "plain_text", "content": f"Allow the tool {request.tool}?"},
        "template": template,
    }


def question_card(request: ApprovalRequest) -> dict[str, Any]:
    """The question with its four buttons."""

    def button(decision: Decision) -> dict[str, Any]:
        label, style = LABELS[decision]
        return {
            "tag": "button",
            "text": {"tag": "plain_text", "content": label},
            "type": style,
            "value": IDS.fields(decision, request.call_id),
        }

    return card(
        [
            {"tag": "markdown", "content": _details(request)},
            {"tag": "action", "actions": [button(d) for d in CODES.values()]},
            {
                "tag": "note",
                "elements": [
                    {"tag": "plain_text", "content": "Or reply allow, allow chat, always or deny."}
                ],
            },
        ],
        _header(request, "orange"),
    )


def outcome_card(request: ApprovalRequest, outcome: str, *, allowed: bool | None) -> dict[str, Any]:
    """The question once closed: its outcome instead of the buttons."""
    template = "grey" if allowed is None else ("green" if allowed else "red")
    return card(
        [
            {"tag": "markdown", "content": _details(request)},
            {"tag": "div", "text": {"tag": "lark_md", "content": f"**{outcome}**"}},
        ],
        _header(request, template),
    )


class CardApprover(ButtonApprover[_Question]):
    """Asks with a card of buttons; keyword replies keep working.

    Args:
        channel: The Feishu channel (sends and updates the card).
    """

    def __init__(self, channel: CardSender) -> None:
        super().__init__(channel)
        self._channel = channel

    async def post(self, request: ApprovalRequest) -> _Question:
        """Send the question card."""
        message_id = await self._channel.send_card(request.chat_id, question_card(request))
        return _Question(message_id, request)

    def shows_outcome(self, question: _Question) -> bool:
        """A tap's callback answer already replaced the card."""
        return bool(question.answered_by)

    async def close(
        self, request: ApprovalRequest, question: _Question, decision: Decision | None
    ) -> None:
        """Replace the card with one that says how the question ended."""
        outcome = CLOSED if decision is None else OUTCOMES[decision]
        allowed = None if decision is None else decision is not Decision.DENY
        await self._channel.update_card(
            question.message_id, outcome_card(request, outcome, allowed=allowed)
        )

    async def on_action(self, card_message: str, value: Any, who: str) -> ActionResult | None:
        """A tap on a button of the card ``card_message``; ``None`` when it is not one of the
        approval buttons. (The question is found by its card: in a direct chat the tap names
        the chat's ``oc_`` id, while nanobot's chat id there is the person's open id.)"""
        if not isinstance(value, dict) or value.get("kind") != KIND:
            return None
        decision, call_id = IDS.read_fields(value)
        found = await self.claim(
            decision, call_id, who, lambda _chat, q: q.message_id == card_message
        )
        if decision is None or found is None:
            return ActionResult("info", "This question is closed.")
        chat_id, question = found
        self.answer(chat_id, decision, call_id)
        outcome = f"{OUTCOMES[decision]} by {who}"
        body = outcome_card(question.request, outcome, allowed=decision is not Decision.DENY)
        return ActionResult("success", OUTCOMES[decision], body)
