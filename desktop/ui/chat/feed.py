"""Live turns: run events become rows, text deltas are coalesced per frame.

:class:`TurnFeed` keeps a :class:`LiveTurn` per session with a running turn. Text and
reasoning deltas are buffered and applied at most once per frame (``FRAME_MS``), appending to
the last row only, so streaming never re-renders the conversation. A session that is not on
screen still gets its live rows (detached items); they are attached when it is opened.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, QTimer, Signal

from desktop.core.bus.events import (
    OutboundMessage,
    ReasoningDelta,
    StreamReset,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    UsageReport,
)
from desktop.ui.chat.items import ChatItem
from desktop.ui.chat.message_model import MessageModel
from desktop.ui.chat.usage_bar import usage_text

FRAME_MS = 33
CHANNEL = "desktop"


@dataclass
class LiveTurn:
    """A running turn of one session."""

    key: str
    answer: ChatItem | None = None
    reasoning: ChatItem | None = None
    text: list[str] = field(default_factory=list)
    thinking: list[str] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    cost_unknown: bool = False
    context_tokens: int = 0
    context_window: int = 0
    tools: list[ChatItem] = field(default_factory=list)

    @property
    def cost_total(self) -> float | None:
        """Cost when every call's price was known."""
        return None if self.cost_unknown else self.cost


@dataclass
class TurnUsage:
    """What the header shows for a session's latest turn."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    context_tokens: int = 0
    context_window: int = 0


class TurnFeed(QObject):
    """Applies run events to message models.

    Args:
        model_for: Returns the open model of a session, or ``None`` when it is not loaded.

    Signals:
        turnStarted(str): a live turn appeared for this session (first event, or :meth:`begin`).
        turnEnded(str): the session's live turn ended (finished, stopped or failed).
        usageChanged(str): token use of the session's turn changed.
    """

    turnStarted = Signal(str)
    turnEnded = Signal(str)
    usageChanged = Signal(str)

    def __init__(
        self, model_for: Callable[[str], MessageModel | None], parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.model_for = model_for
        self.live: dict[str, LiveTurn] = {}
        self.usage: dict[str, TurnUsage] = {}
        self.recent_answers: dict[str, str] = {}
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(FRAME_MS)
        self._timer.timeout.connect(self.flush)

    # -- turns ----------------------------------------------------------------------------
    def begin(self, key: str) -> LiveTurn:
        """Start a live turn (the tab sent a message); shows "Thinking…" at once."""
        turn = self._turn(key)
        if turn.answer is None:
            turn.answer = ChatItem("assistant", streaming=True)
            self._append(key, turn.answer)
        return turn

    def _turn(self, key: str) -> LiveTurn:
        turn = self.live.get(key)
        if turn is None:
            turn = self.live[key] = LiveTurn(key)
            self.turnStarted.emit(key)
        return turn

    def _append(self, key: str, item: ChatItem) -> None:
        model = self.model_for(key)
        if model is not None:
            model.append(item)

    def _changed(self, key: str, item: ChatItem) -> None:
        model = self.model_for(key)
        if model is not None and model.row_of(item) >= 0:
            model.changed(item)
        else:
            item.touch()

    def live_items(self, key: str) -> list[ChatItem]:
        """Rows of the live turn that a freshly loaded model lacks (reasoning, answer)."""
        turn = self.live.get(key)
        if turn is None:
            return []
        return [i for i in (turn.reasoning, turn.answer) if i is not None]

    # -- events ---------------------------------------------------------------------------
    def on_text(self, event: TextDelta) -> None:
        """Buffer an answer delta."""
        self._turn(event.session_key).text.append(event.text)
        self._schedule()

    def on_reasoning(self, event: ReasoningDelta) -> None:
        """Buffer a reasoning delta."""
        self._turn(event.session_key).thinking.append(event.text)
        self._schedule()

    def on_reset(self, event: StreamReset) -> None:
        """A retried stream starts over: drop what this model call showed."""
        turn = self._turn(event.session_key)
        turn.text.clear()
        turn.thinking.clear()
        for item in (turn.answer, turn.reasoning):
            if item is not None and item.text:
                item.text = ""
                self._changed(turn.key, item)

    def on_tool_started(self, event: ToolCallStarted) -> None:
        """Close the streamed text and add a running card."""
        key = event.session_key
        if "#" in key:
            return  # a subagent's calls: its report arrives later
        self.flush()
        turn = self._turn(key)
        self._close_stream(turn)
        model = self.model_for(key)
        existing = model.card(event.call_id) if model is not None else None
        if existing is not None:
            return
        card = ChatItem(
            "tool", tool=event.name, call_id=event.call_id, arguments=dict(event.arguments)
        )
        turn.tools.append(card)
        self._append(key, card)

    def on_tool_finished(self, event: ToolCallFinished) -> None:
        """Fill the call's card."""
        key = event.session_key
        if "#" in key:
            return
        turn = self._turn(key)
        model = self.model_for(key)
        card = model.card(event.call_id) if model is not None else None
        if card is None:
            card = next((c for c in turn.tools if c.call_id == event.call_id), None)
        if card is None:
            card = ChatItem(
                "tool", tool=event.name, call_id=event.call_id, arguments=dict(event.arguments)
            )
            self._append(key, card)
        card.result = event.result_preview
        card.ok = event.ok
        card.duration_s = event.duration_s
        card.awaiting_approval = False
        self._changed(key, card)

    def on_usage(self, event: UsageReport) -> None:
        """Add a model call's tokens to the turn."""
        key = event.session_key
        if "#" in key:
            return
        turn = self._turn(key)
        turn.prompt_tokens += event.prompt_tokens
        turn.completion_tokens += event.completion_tokens
        if event.cost_usd is None:
            turn.cost_unknown = True
        else:
            turn.cost = (turn.cost or 0.0) + event.cost_usd
        turn.context_tokens, turn.context_window = event.context_tokens, event.context_window
        self.usage[key] = TurnUsage(
            turn.prompt_tokens,
            turn.completion_tokens,
            turn.cost_total,
            turn.context_tokens,
            turn.context_window,
        )
        self.usageChanged.emit(key)

    def set_awaiting(self, key: str, call_id: str, waiting: bool) -> None:
        """Mark a card as waiting for the person's approval (or not)."""
        model = self.model_for(key)
        card = model.card(call_id) if model is not None else None
        if card is None:
            turn = self.live.get(key)
            card = next((c for c in turn.tools if c.call_id == call_id), None) if turn else None
        if card is not None and card.awaiting_approval != waiting and card.ok is None:
            card.awaiting_approval = waiting
            self._changed(key, card)

    # -- frames ---------------------------------------------------------------------------
    def _schedule(self) -> None:
        if not self._timer.isActive():
            self._timer.start()

    def flush(self) -> None:
        """Apply buffered deltas (once per frame)."""
        self._timer.stop()
        for turn in list(self.live.values()):
            if turn.thinking:
                text, turn.thinking = "".join(turn.thinking), []
                if turn.reasoning is None:
                    turn.reasoning = ChatItem("reasoning", streaming=True)
                    model = self.model_for(turn.key)
                    if (
                        model is not None
                        and turn.answer is not None
                        and not turn.answer.text
                        and model.row_of(turn.answer) >= 0
                    ):
                        model.remove(turn.answer)  # keep "Thinking…" below the reasoning
                        model.append(turn.reasoning)
                        model.append(turn.answer)
                    else:
                        self._append(turn.key, turn.reasoning)
                turn.reasoning.text += text
                self._changed(turn.key, turn.reasoning)
            if turn.text:
                text, turn.text = "".join(turn.text), []
                if turn.answer is None:
                    turn.answer = ChatItem("assistant", streaming=True)
                    self._append(turn.key, turn.answer)
                turn.answer.text += text
                self._changed(turn.key, turn.answer)

    def _close_stream(self, turn: LiveTurn) -> None:
        for name in ("reasoning", "answer"):
            item: ChatItem | None = getattr(turn, name)
            if item is None:
                continue
            item.streaming = False
            if not item.text.strip():
                model = self.model_for(turn.key)
                if model is not None:
                    model.remove(item)
            else:
                self._changed(turn.key, item)
            setattr(turn, name, None)

    def on_outbound(self, message: OutboundMessage) -> str | None:
        """Show a desktop-channel message (message tool, reminder) in its chat.

        Returns the session key, or ``None`` when the message was not for a chat view
        (another channel, a progress note, or the turn's answer delivered a second time).
        """
        if message.channel != CHANNEL or message.metadata.get("progress"):
            return None
        key = f"{CHANNEL}:{message.chat_id}"
        if self.recent_answers.get(key) == message.content.strip():
            self.recent_answers.pop(key, None)  # the turn's answer, already shown
            return None
        label = "Reminder" if message.metadata.get("reminder") else ""
        self._append(
            key, ChatItem("outbound", message.content, tool=label, media=list(message.media))
        )
        return key

    # -- endings --------------------------------------------------------------------------
    def finish(self, key: str, content: str) -> None:
        """The turn answered ``content`` (the authoritative final text)."""
        self.flush()
        turn = self.live.pop(key, None)
        if turn is None:
            return
        answer = turn.answer
        if content.strip():
            if answer is None:
                answer = ChatItem("assistant")
                self._append(key, answer)
            answer.text = content
        if turn.reasoning is not None:
            turn.reasoning.streaming = False
            self._changed(key, turn.reasoning)
        if answer is not None:
            answer.streaming = False
            answer.footer = (
                usage_text(turn.prompt_tokens, turn.completion_tokens, turn.cost_total)
                if turn.prompt_tokens
                else ""
            )
            if answer.text.strip():
                self._changed(key, answer)
            elif (model := self.model_for(key)) is not None:
                model.remove(answer)
        self.recent_answers[key] = content.strip()
        self.turnEnded.emit(key)

    def end(self, key: str, note: str = "") -> None:
        """The turn stopped or failed: close its rows, mark unfinished cards, add ``note``."""
        self.flush()
        turn = self.live.pop(key, None)
        if turn is None:
            return
        self._close_stream(turn)
        model = self.model_for(key)
        cards = list(turn.tools)
        if model is not None:
            cards = [i for i in model.items[-50:] if i.kind == "tool" and i.ok is None]
        for card in cards:
            if card.ok is None:
                card.ok, card.awaiting_approval = False, False
                card.result = card.result or "(stopped before it finished)"
                self._changed(key, card)
        if note:
            self._append(key, ChatItem("notice", note))
        self.turnEnded.emit(key)
