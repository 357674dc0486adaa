"""Tool approvals in Slack: the question comes with Block Kit buttons.

The question is a ``section`` block (mrkdwn) and an ``actions`` block with Allow once / This
chat / Always / Deny. A button's ``action_id`` is ``ap:<code>`` and its ``value`` the tool call
id; a click arrives as a ``block_actions`` interactive payload over Socket Mode and answers the
waiting question (only when the person clicking is allowed). Then the question is updated to
show the outcome, without its buttons; when it closes otherwise (the gate's timeout, ``/stop``,
an answer in the app) it says so and loses its buttons too. Keyword replies ("allow", "deny" …)
keep working, as in every channel.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Protocol

from desktop.core.agent.approval import ApprovalRequest, Decision
from desktop.core.channels.approvals import (
    CLOSED,
    LABELS,
    OUTCOMES,
    arguments_preview,
)
from desktop.core.channels.buttons import ButtonApprover, ButtonIds, QuestionChannel
from desktop.core.channels.slack.mrkdwn import escape

log = logging.getLogger(__name__)

PREFIX = "ap"
IDS = ButtonIds(PREFIX, lambda _data: True)
"""A button's ``action_id`` (the call id is its ``value``, up to 2,000 characters)."""
SECTION_CHARS = 3000  # Block Kit's limit for a section's text


class QuestionSender(QuestionChannel, Protocol):
    """What the approver needs from the channel."""

    async def post_blocks(self, chat_id: str, text: str, blocks: list[dict[str, Any]]) -> str:
        """Post ``blocks`` (``text`` is the notification fallback); returns the ``ts``."""
        ...

    async def update_blocks(
        self, chat_id: str, ts: str, text: str, blocks: list[dict[str, Any]]
    ) -> None:
        """Replace a posted message (best effort)."""
        ...


@dataclass
class _Question:
    ts: str
    text: str
    answered_by: str = ""


def question_mrkdwn(request: ApprovalRequest) -> str:
    """The question as mrkdwn (tool, reason, arguments)."""
    text = (
        f"*Allow the tool {escape(request.tool)}?* It {escape(request.reason)}.\n"
        f"```\n{escape(arguments_preview(request))}\n```\n"
        "Click a button (or reply allow, allow chat, always or deny)."
    )
    return text[:SECTION_CHARS]


def section(text: str) -> dict[str, Any]:
    """A mrkdwn section block."""
    return {"type": "section", "text": {"type": "mrkdwn", "text": text[:SECTION_CHARS]}}


def buttons(call_id: str) -> dict[str, Any]:
    """The actions block with the four buttons."""
    styles = {Decision.ALLOW_ONCE: "primary", Decision.DENY: "danger"}
    elements: list[dict[str, Any]] = []
    for decision, label in LABELS.items():
        button: dict[str, Any] = {
            "type": "button",
            "action_id": IDS.action(decision),
            "text": {"type": "plain_text", "text": label},
            "value": call_id,
        }
        if decision in styles:
            button["style"] = styles[decision]
        elements.append(button)
    return {"type": "actions", "block_id": f"{PREFIX}:{call_id}"[:255], "elements": elements}


class BlockApprover(ButtonApprover[_Question]):
    """Asks with Block Kit buttons; keyword replies keep working.

    Args:
        channel: The Slack channel (posts and updates the question).
    """

    def __init__(self, channel: QuestionSender) -> None:
        super().__init__(channel)
        self._channel = channel

    async def post(self, request: ApprovalRequest) -> _Question:
        """Post the question with its buttons."""
        text = question_mrkdwn(request)
        ts = await self._channel.post_blocks(
            request.chat_id,
            f"Allow the tool {request.tool}?",
            [section(text), buttons(request.call_id)],
        )
        return _Question(ts, text)

    async def close(
        self, request: ApprovalRequest, question: _Question, decision: Decision | None
    ) -> None:
        """Show the outcome (and who clicked) instead of the buttons."""
        if decision is None:
            outcome = CLOSED
        else:
            outcome = OUTCOMES[decision] + (
                f" by <@{question.answered_by}>" if question.answered_by else ""
            )
        text = f"{question.text}\n_{outcome}_"
        await self._channel.update_blocks(request.chat_id, question.ts, outcome, [section(text)])

    async def on_action(self, action: dict[str, Any], user_id: str, channel_id: str) -> bool:
        """A click on one of the buttons (``action`` from a ``block_actions`` payload);
        ``True`` when it answered a waiting question."""
        decision, _ = IDS.decode(str(action.get("action_id") or ""))
        call_id = str(action.get("value") or "") or None
        found = await self.claim(
            decision, call_id, user_id, lambda chat, _q: chat.startswith(channel_id)
        )
        if decision is None or found is None:
            log.info("Slack: a click on a closed or unknown approval question")
            return False
        return self.answer(found[0], decision, call_id)
