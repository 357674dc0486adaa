"""Live turns: run events become rows, keyed by turn; text deltas are coalesced per frame.

Every turn arrives as a lifecycle (:class:`~desktop.core.bus.events.TurnStarted`, in-turn
events, one end). :class:`TurnFeed` keeps a :class:`LiveTurn` per running turn, keyed by its
``turn_id``: tool cards are found by (turn, call id), never by call id across the chat (some
servers reuse ``call_0`` every turn). Text and reasoning deltas are buffered and applied at most
once per frame (``FRAME_MS``), appending to the turn's last row only, so streaming never
re-renders the conversation. A session that is not on screen still gets its rows (detached
items); they are attached when it is opened (:meth:`TurnFeed.live_rows`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, QTimer, Signal

from desktop.core.bus.events import (
    ModelFallback,
    ModelRetrying,
    ReasoningDelta,
    StreamReset,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnFailed,
    TurnFinished,
    TurnStarted,
    TurnStopped,
    UsageReport,
)
from desktop.ui.chat.items import STOPPED_FOOTER, ChatItem, prompt_row
from desktop.ui.chat.message_model import MessageModel
from desktop.ui.chat.usage_bar import usage_text

FRAME_MS = 33
STOPPED_CARD = "(stopped before it finished)"


@dataclass
class LiveTurn:
    """A running turn.

    Attributes:
        turn_id: Its id.
        key: Its session.
        source: What started it (``message``, ``cron``, ``heartbeat``, ``subagent``).
        request_id: The inbound message id that started it.
        rows: Every row it added, in order (prompt row when it is not ours, reasoning,
            answer segments, tool cards).
        cards: Its tool cards by call id.
    """

    turn_id: str
    key: str
    source: str = "message"
    request_id: str = ""
    rows: list[ChatItem] = field(default_factory=list)
    cards: dict[str, ChatItem] = field(default_factory=dict)
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
        own_row: The row this tab showed for an inbound message it sent (by message id), or
            ``None``: the turn's opening row is then made from its ``TurnStarted``.

    Signals:
        turnStarted(str): a turn began in this session (session key).
        turnEnded(str): the session's turn ended (finished, stopped or failed).
        usageChanged(str): token use of the session's turn changed.
    """

    turnStarted = Signal(str)
    turnEnded = Signal(str)
    usageChanged = Signal(str)

    def __init__(
        self,
        model_for: Callable[[str], MessageModel | None],
        own_row: Callable[[str], ChatItem | None] = lambda _request_id: None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.model_for = model_for
        self.own_row = own_row
        self.live: dict[str, LiveTurn] = {}
        self.usage: dict[str, TurnUsage] = {}
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(FRAME_MS)
        self._timer.timeout.connect(self.flush)

    # -- lookups --------------------------------------------------------------------------
    def turn_of(self, key: str) -> LiveTurn | None:
        """The running turn of session ``key``."""
        return next((t for t in self.live.values() if t.key == key), None)

    def busy(self, key: str) -> bool:
        """Whether a turn runs in ``key`` (as told by the loop's events)."""
        return self.turn_of(key) is not None

    def live_rows(self, key: str) -> list[ChatItem]:
        """The rows of the session's running turn (to attach to a freshly loaded model)."""
        turn = self.turn_of(key)
        return list(turn.rows) if turn is not None else []

    def card(self, turn_id: str, call_id: str) -> ChatItem | None:
        """The card of a call in a running turn."""
        turn = self.live.get(turn_id)
        return turn.cards.get(call_id) if turn is not None else None

    # -- model plumbing -------------------------------------------------------------------
    def _add(self, turn: LiveTurn, item: ChatItem) -> ChatItem:
        item.turn_id = turn.turn_id
        turn.rows.append(item)
        model = self.model_for(turn.key)
        if model is not None:
            model.append(item)
        return item

    def _changed(self, key: str, item: ChatItem) -> None:
        model = self.model_for(key)
        if model is not None and model.row_of(item) >= 0:
            model.changed(item)
        else:
            item.touch()

    def _drop(self, turn: LiveTurn, item: ChatItem) -> None:
        if item in turn.rows:
            turn.rows.remove(item)
        model = self.model_for(turn.key)
        if model is not None:
            model.remove(item)

    def _turn(self, turn_id: str, key: str) -> LiveTurn:
        """The live turn, made up when its start was missed (the tab opened mid-turn)."""
        turn = self.live.get(turn_id)
        if turn is None:
            turn = self.live[turn_id] = LiveTurn(turn_id, key)
            self.turnStarted.emit(key)
        return turn

    # -- lifecycle ------------------------------------------------------------------------
    def on_started(self, event: TurnStarted) -> None:
        """A turn began: show what started it (unless this tab sent it) and "Thinking…"."""
        turn = self.live.get(event.turn_id)
        if turn is None:
            turn = self.live[event.turn_id] = LiveTurn(event.turn_id, event.session_key)
        turn.source, turn.request_id = event.source, event.request_id
        own = self.own_row(event.request_id) if event.request_id else None
        if own is not None:  # shown when it was sent; now it belongs to the turn
            own.turn_id = turn.turn_id
            turn.rows.append(own)
        else:
            row = prompt_row(
                event.source, event.content, label=event.label, media=list(event.media)
            )
            self._add(turn, row)
        if turn.answer is None:
            turn.answer = self._add(turn, ChatItem("assistant", streaming=True))
        self.turnStarted.emit(event.session_key)

    def on_text(self, event: TextDelta) -> None:
        """Buffer an answer delta."""
        turn = self._turn(event.turn_id, event.session_key)
        turn.text.append(event.text)
        self._schedule()

    def on_reasoning(self, event: ReasoningDelta) -> None:
        """Buffer a reasoning delta."""
        turn = self._turn(event.turn_id, event.session_key)
        turn.thinking.append(event.text)
        self._schedule()

    def on_reset(self, event: StreamReset) -> None:
        """A retried stream starts over: drop what this model call showed."""
        turn = self._turn(event.turn_id, event.session_key)
        turn.text.clear()
        turn.thinking.clear()
        for item in (turn.answer, turn.reasoning):
            if item is not None and item.text:
                item.text = ""
                self._changed(turn.key, item)

    def on_retrying(self, event: ModelRetrying) -> None:
        """Say, in the waiting row, that the model call failed and is tried again."""
        turn = self._turn(event.turn_id, event.session_key)
        if turn.answer is None:
            turn.answer = self._add(turn, ChatItem("assistant", streaming=True))
        turn.answer.status = (
            f"{event.reason} Waiting for the model… "
            f"(retrying {event.attempt + 1}/{event.max_attempts})"
        )
        self._changed(turn.key, turn.answer)

    def on_fallback(self, event: ModelFallback) -> None:
        """Say, in a short line of its own, that a fallback model answers instead."""
        self.flush()
        turn = self._turn(event.turn_id, event.session_key)
        self._close_stream(turn)
        self._add(turn, ChatItem("notice", text=f"↪ {event.text}"))

    def on_tool_started(self, event: ToolCallStarted) -> None:
        """Close the streamed text and add a running card."""
        key = event.session_key
        if "#" in key:
            return  # a subagent's calls: its report arrives later
        self.flush()
        turn = self._turn(event.turn_id, key)
        self._close_stream(turn)
        if event.call_id in turn.cards:
            return
        card = ChatItem(
            "tool", tool=event.name, call_id=event.call_id, arguments=dict(event.arguments)
        )
        turn.cards[event.call_id] = self._add(turn, card)

    def on_tool_finished(self, event: ToolCallFinished) -> None:
        """Fill the call's card (in this turn only)."""
        if "#" in event.session_key:
            return
        turn = self._turn(event.turn_id, event.session_key)
        card = turn.cards.get(event.call_id)
        if card is None:
            card = ChatItem(
                "tool", tool=event.name, call_id=event.call_id, arguments=dict(event.arguments)
            )
            turn.cards[event.call_id] = self._add(turn, card)
        card.result = event.result_preview
        card.ok = event.ok
        card.duration_s = event.duration_s
        card.awaiting_approval = False
        self._changed(turn.key, card)

    def on_usage(self, event: UsageReport) -> None:
        """Add a model call's tokens to the turn."""
        if "#" in event.session_key:
            return
        turn = self._turn(event.turn_id, event.session_key)
        turn.prompt_tokens += event.prompt_tokens
        turn.completion_tokens += event.completion_tokens
        if event.cost_usd is None:
            turn.cost_unknown = True
        else:
            turn.cost = (turn.cost or 0.0) + event.cost_usd
        turn.context_tokens, turn.context_window = event.context_tokens, event.context_window
        self.usage[turn.key] = TurnUsage(
            turn.prompt_tokens,
            turn.completion_tokens,
            turn.cost_total,
            turn.context_tokens,
            turn.context_window,
        )
        self.usageChanged.emit(turn.key)

    def set_awaiting(self, turn_id: str, call_id: str, waiting: bool) -> None:
        """Mark a running turn's card as waiting for the person's approval (or not)."""
        turn = self.live.get(turn_id)
        card = turn.cards.get(call_id) if turn is not None else None
        if (
            turn is not None
            and card is not None
            and card.ok is None
            and card.awaiting_approval != waiting
        ):
            card.awaiting_approval = waiting
            self._changed(turn.key, card)

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
                    answer = turn.answer
                    if answer is not None and not answer.text:
                        self._drop(turn, answer)  # keep "Thinking…" below the reasoning
                        self._add(turn, turn.reasoning)
                        self._add(turn, answer)
                    else:
                        self._add(turn, turn.reasoning)
                turn.reasoning.text += text
                self._changed(turn.key, turn.reasoning)
            if turn.text:
                text, turn.text = "".join(turn.text), []
                if turn.answer is None:
                    turn.answer = self._add(turn, ChatItem("assistant", streaming=True))
                turn.answer.text += text
                turn.answer.status = ""
                self._changed(turn.key, turn.answer)

    def _close_stream(self, turn: LiveTurn) -> None:
        for name in ("reasoning", "answer"):
            item: ChatItem | None = getattr(turn, name)
            if item is None:
                continue
            item.streaming = False
            item.status = ""
            if not item.text.strip():
                self._drop(turn, item)
            else:
                self._changed(turn.key, item)
            setattr(turn, name, None)

    # -- endings --------------------------------------------------------------------------
    def on_finished(self, event: TurnFinished) -> None:
        """The turn answered ``content`` (the authoritative final text)."""
        self._end(event.turn_id, event.session_key, event.content, footer=None)

    def on_stopped(self, event: TurnStopped) -> None:
        """The turn was stopped: its streamed text stays, marked as stopped."""
        self._end(event.turn_id, event.session_key, event.partial, footer=STOPPED_FOOTER)

    def on_failed(self, event: TurnFailed) -> None:
        """The turn failed: close its rows (the tab shows the error banner)."""
        self._end(event.turn_id, event.session_key, "", footer=None, failed=True)

    def _end(
        self, turn_id: str, key: str, content: str, *, footer: str | None, failed: bool = False
    ) -> None:
        self.flush()
        turn = self.live.pop(turn_id, None)
        if turn is None:
            self.turnEnded.emit(key)
            return
        if turn.reasoning is not None:
            turn.reasoning.streaming = False
            self._changed(key, turn.reasoning)
        answer = turn.answer
        if content.strip() and not failed:
            if answer is None:
                answer = turn.answer = self._add(turn, ChatItem("assistant"))
            answer.text = content
        if answer is not None:
            answer.streaming = False
            answer.status = ""
            if footer is not None:
                answer.footer = footer
            elif turn.prompt_tokens:
                answer.footer = usage_text(
                    turn.prompt_tokens, turn.completion_tokens, turn.cost_total
                )
            if answer.text.strip():
                self._changed(key, answer)
            else:
                self._drop(turn, answer)
        for card in turn.cards.values():
            if card.ok is None:
                card.ok, card.awaiting_approval = False, False
                card.result = card.result or STOPPED_CARD
                self._changed(key, card)
        self.turnEnded.emit(key)
