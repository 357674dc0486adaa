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

A click can arrive before the platform's answer to the send that posted the question (a quick
tap on a slow link or machine: the platform shows the buttons as soon as it has stored the
message, and its click event may overtake the answer to the send). :meth:`ButtonApprover.claim`
then waits for that post to end, at most :attr:`ButtonApprover.posting_wait` seconds, before it
looks for the question. The wait cannot hold up the post itself: on every platform the send's
answer comes on its own HTTP request, never through the click handler's event queue.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Coroutine
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from desktop.core.agent.approval import ApprovalRequest, Decision
from desktop.core.bus.events import OutboundMessage
from desktop.core.channels.approvals import CODE_OF, CODES, ReplyApprover

log = logging.getLogger(__name__)

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

    posting_wait: ClassVar[float] = 10.0
    """Seconds a click waits for the post of its question to end. A click proves the platform
    has stored the message, so the answer to the send is already on its way: normally a round
    trip, and seconds on a slow link or a loaded machine. Ten seconds covers that many times
    over; a send still unanswered then has hung, and the click is told the question is closed
    (a keyword reply still answers it once it is posted) rather than holding up the
    channel's click handling (Telegram and Slack take one update at a time) until the send's
    own timeout (30 s and more). A post that fails ends the wait at once. Past about 3 s
    Discord and Feishu no longer take the click's own answer (the decision still counts;
    Discord's question is then edited instead)."""

    def __init__(self, channel: QuestionChannel) -> None:
        super().__init__(channel.name, channel.send)
        self._spawn = channel.spawn
        self._questions: dict[tuple[str, str], Q] = {}
        # Questions being posted (``post`` has not returned): set when the post has ended.
        self._posting: dict[tuple[str, str], asyncio.Event] = {}

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
        """Post the question and keep it until it ends (clicks meanwhile wait for the post)."""
        key = (request.chat_id, request.call_id)
        posted = self._posting[key] = asyncio.Event()
        try:
            self._questions[key] = await self.post(request)
        finally:
            posted.set()
            if self._posting.get(key) is posted:
                del self._posting[key]

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

    async def claim(
        self,
        decision: Decision | None,
        call_id: str | None,
        who: str,
        match: Callable[[str, Q], bool],
    ) -> tuple[str, Q] | None:
        """The waiting question a click answers, marked as answered by ``who``: the one
        about ``call_id`` whose chat and question ``match`` accepts. ``None`` for a click on
        a closed, unknown or not-ours button (the channel says so to the person).

        A click on a question whose post has not returned yet waits for it first (at most
        :attr:`posting_wait` seconds; a post that fails or is cancelled ends the wait, and the
        click finds no question).

        The channel then shows the outcome where its platform needs the click answered first
        (Discord's interaction response) and calls :meth:`answer` with the chat id.
        """
        if decision is None or call_id is None:
            return None
        await self._posted(call_id)
        found = self.find(lambda chat, call, q: call == call_id and match(chat, q))
        if found is None or not self.waiting(found[0], call_id):
            return None
        chat_id, _, question = found
        question.answered_by = who
        return chat_id, question

    async def _posted(self, call_id: str) -> None:
        """Wait until no question about ``call_id`` is being posted (or the bound passed).

        The click's chat is not compared here: on some platforms it is not the chat id the
        question was asked in (Feishu's direct chats), and the match happens afterwards.
        """
        posting = [event for (_, call), event in self._posting.items() if call == call_id]
        if not posting:
            return
        log.info(
            "%s: a click came before its question was posted; waiting for the post", self.channel
        )
        try:
            async with asyncio.timeout(self.posting_wait):
                for event in posting:
                    await event.wait()
        except TimeoutError:
            log.warning(
                "%s: the question a click answers was not posted within %g s; "
                "the click is not counted",
                self.channel,
                self.posting_wait,
            )

    def waiting(self, chat_id: str, call_id: str | None) -> bool:
        """Whether the question about ``call_id`` still waits for an answer in ``chat_id``."""
        return call_id is not None and any(r.call_id == call_id for r in self.pending(chat_id))
