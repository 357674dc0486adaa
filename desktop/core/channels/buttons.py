"""Approval questions with buttons: what Telegram, Discord, Slack and Feishu share.

A channel with buttons asks like every channel (a keyword reply still answers, see
:class:`~desktop.core.channels.approvals.ReplyApprover`) but posts the question with four
buttons. :class:`ButtonApprover` keeps each posted question until it is answered and, when it
ends some other way than by a click that already showed the outcome (the gate's timeout,
``/stop``, an answer in the app or by keyword), has the channel edit it to say how it ended.
Subclasses say only how a question is posted and how it is closed on their platform.

:class:`ButtonIds` is the one button-id encoding: it packs the decision and the tool call id
into a button's data (``<prefix>:<code>:<call id>``: Telegram's callback data, Discord's
``custom_id``) and replaces a call id that would not fit the platform's limit by ``#`` and a
short digest, which it resolves again while the question waits. Where the call id travels
apart from the id (Slack's ``value``) the id is only ``<prefix>:<code>`` (:meth:`ButtonIds.action`);
where a button carries an object (Feishu's card ``value``) it is ``{"kind": <prefix>,
"decision": <code>, "call_id": …}`` (:meth:`ButtonIds.fields`). Every platform reads a click
back with :meth:`ButtonIds.decode` / :meth:`ButtonIds.read_fields` and hands it to
:meth:`ButtonApprover.claim`, which finds the waiting question it answers.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Coroutine
from typing import Any, Generic, Protocol, TypeVar

from desktop.core.agent.approval import ApprovalRequest, Decision
from desktop.core.bus.events import OutboundMessage
from desktop.core.channels.approvals import CODE_OF, CODES, ReplyApprover

DIGEST_CHARS = 16


class ButtonIds:
    """Button data that carries a decision and a tool call id within a platform's limit.

    Args:
        prefix: Marks the data as one of our approval buttons (``ap``, ``nb-ap``).
        fits: Whether a piece of data is within the platform's limit (bytes or characters).
    """

    def __init__(self, prefix: str, fits: Callable[[str], bool]) -> None:
        self.prefix = prefix
        self._fits = fits
        self._digests: dict[str, str] = {}

    def encode(self, decision: Decision, call_id: str) -> str:
        """The data of the button for ``decision`` on the question about ``call_id``."""
        data = f"{self.prefix}:{CODE_OF[decision]}:{call_id}"
        if self._fits(data):
            return data
        digest = hashlib.sha256(call_id.encode()).hexdigest()[:DIGEST_CHARS]
        self._digests[digest] = call_id
        return f"{self.prefix}:{CODE_OF[decision]}:#{digest}"

    def decode(self, data: str) -> tuple[Decision | None, str | None]:
        """The decision and call id a button's data stands for (``None`` for what is not
        ours, not a decision, or a digest no waiting question has)."""
        prefix, _, rest = data.partition(":")
        if prefix != self.prefix:
            return None, None
        code, _, reference = rest.partition(":")
        if reference.startswith("#"):
            return CODES.get(code), self._digests.get(reference[1:])
        return CODES.get(code), reference or None

    def forget(self, call_id: str) -> None:
        """Drop the digests of a question that is no longer waiting."""
        self._digests = {k: v for k, v in self._digests.items() if v != call_id}

    def action(self, decision: Decision) -> str:
        """The id of the button for ``decision`` where the call id travels apart from it
        (:meth:`decode` reads it back with no call id)."""
        return f"{self.prefix}:{CODE_OF[decision]}"

    def fields(self, decision: Decision, call_id: str) -> dict[str, str]:
        """The button's value where a platform carries an object (never too long)."""
        return {"kind": self.prefix, "decision": CODE_OF[decision], "call_id": call_id}

    def read_fields(self, value: object) -> tuple[Decision | None, str | None]:
        """The decision and call id of a value made by :meth:`fields` (``None, None`` for a
        value that is not one of ours)."""
        if not isinstance(value, dict) or value.get("kind") != self.prefix:
            return None, None
        return CODES.get(str(value.get("decision"))), str(value.get("call_id") or "") or None


class QuestionChannel(Protocol):
    """What every button approver needs from its channel."""

    @property
    def name(self) -> str:
        """The channel's name (a class attribute of the channel satisfies it)."""
        ...

    async def send(self, message: OutboundMessage) -> None:
        """Deliver a plain message."""
        ...

    def spawn(self, coro: Coroutine[Any, Any, None], name: str) -> object:
        """Run ``coro`` in the background, owned by the channel (what it returns is unused)."""
        ...


class Answerable(Protocol):
    """What a channel keeps of a posted question: at least who answered it by a click."""

    answered_by: str


Q = TypeVar("Q", bound=Answerable)


class ButtonApprover(ReplyApprover, ABC, Generic[Q]):
    """Asks with buttons and closes every question it posted; keyword replies keep working.

    ``Q`` is what a channel remembers of a posted question (its message id, text, who
    clicked).

    Args:
        channel: The channel (sends plain messages, owns the background edits).
    """

    def __init__(self, channel: QuestionChannel) -> None:
        super().__init__(channel.name, channel.send)
        self._spawn = channel.spawn
        self._questions: dict[tuple[str, str], Q] = {}

    @abstractmethod
    async def post(self, request: ApprovalRequest) -> Q:
        """Post the question with its buttons into the request's chat."""

    @abstractmethod
    async def close(self, request: ApprovalRequest, question: Q, decision: Decision | None) -> None:
        """Edit the posted question to show how it ended (``None``: not answered here) and
        drop its buttons; run in the background."""

    def shows_outcome(self, question: Q) -> bool:
        """Whether the click that answered ``question`` already showed the outcome (then
        it is not edited again)."""
        return False

    def forget(self, call_id: str) -> None:
        """Drop what was kept for the buttons of a question that no longer waits."""

    async def ask(self, request: ApprovalRequest) -> None:
        """Post the question and keep it until it ends."""
        self._questions[(request.chat_id, request.call_id)] = await self.post(request)

    async def request_approval(self, request: ApprovalRequest) -> Decision:
        """Ask and wait; afterwards the question shows its outcome and loses its buttons."""
        decision: Decision | None = None
        try:
            decision = await super().request_approval(request)
            return decision
        finally:
            question = self._questions.pop((request.chat_id, request.call_id), None)
            self.forget(request.call_id)
            if question is not None and not self.shows_outcome(question):
                self._spawn(self.close(request, question, decision), name="approval-close")

    def question(self, chat_id: str, call_id: str) -> Q | None:
        """The posted question about ``call_id`` in ``chat_id``, while it waits."""
        return self._questions.get((chat_id, call_id))

    def find(self, match: Callable[[str, str, Q], bool]) -> tuple[str, str, Q] | None:
        """The first waiting question (chat id, call id, question) ``match`` accepts."""
        for (chat_id, call_id), question in self._questions.items():
            if match(chat_id, call_id, question):
                return chat_id, call_id, question
        return None

    def claim(
        self,
        decision: Decision | None,
        call_id: str | None,
        who: str,
        match: Callable[[str, Q], bool],
    ) -> tuple[str, Q] | None:
        """The waiting question a click answers, marked as answered by ``who``: the one
        about ``call_id`` whose chat and question ``match`` accepts. ``None`` for a click on
        a closed, unknown or not-ours button (the channel says so to the person).

        The channel then shows the outcome where its platform needs the click answered first
        (Discord's interaction response) and calls :meth:`answer` with the chat id.
        """
        if decision is None or call_id is None:
            return None
        found = self.find(lambda chat, call, q: call == call_id and match(chat, q))
        if found is None or not self.waiting(found[0], call_id):
            return None
        chat_id, _, question = found
        question.answered_by = who
        return chat_id, question

    def waiting(self, chat_id: str, call_id: str | None) -> bool:
        """Whether the question about ``call_id`` still waits for an answer in ``chat_id``."""
        return call_id is not None and any(r.call_id == call_id for r in self.pending(chat_id))
