"""The chat's live state, Qt-free: running turns, tool cards, streamed text, queued messages,
command replies and errors, fed by run events.

:class:`ChatState` is a reducer: :meth:`ChatState.apply` takes one
:data:`~desktop.core.bus.events.RunEvent` and returns what changed
(:mod:`desktop.ui.chat.changes`); the tab's other inputs (a message queued, a command sent, an
outbound message, an error) are methods that return changes the same way. The Qt classes only
render those changes (:class:`~desktop.ui.chat.feed.TurnFeed`,
:class:`~desktop.ui.chat.chat_tab.ChatTab`). Rows are :class:`~desktop.ui.chat.items.ChatItem`
objects, changed in place and reported.

Every turn is a lifecycle (``TurnStarted``, in-turn events, one end), kept as a
:class:`LiveTurn` by ``turn_id``: tool cards are found by (turn, call id), never by call id
across the chat (some servers reuse ``call_0`` every turn). Text and reasoning deltas are
buffered; :meth:`ChatState.flush` applies them (the view calls it at most once per frame), so
streaming appends to the turn's last row only. Events may come late or twice: an event of a
turn that has ended changes nothing; a ``TurnStarted`` seen after the turn's first events
puts its opening row before them; a second ``TurnStarted`` changes nothing. (Deltas carry no
sequence number: a repeated delta is shown twice until the turn's final text replaces it.)

It imports nothing from Qt (an import-linter contract keeps it so), so it runs in tests
without a QApplication. It is UI state (rows, footers, "Queued"), hence under ``desktop.ui``.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import assert_never

from desktop.core.bus.events import (
    DESKTOP_CHANNEL,
    BudgetPaused,
    BudgetResolved,
    BudgetWarning,
    ChannelStatusChanged,
    DeliveryFailed,
    GuidanceTaken,
    ModelFallback,
    ModelRetrying,
    OutboundMessage,
    PairingRequested,
    ReasoningDelta,
    ReminderDue,
    RunawayStopped,
    RunEvent,
    SessionChanged,
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
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.ui.chat.changes import (
    Changes,
    ErrorChanged,
    GuidanceChanged,
    ListChanged,
    Reload,
    RowAdded,
    RowChanged,
    RowRemoved,
    TurnBegan,
    TurnEnded,
    Unread,
    UsageChanged,
)
from desktop.ui.chat.items import (
    GENERATED_IMAGE,
    REMINDER,
    STOPPED_FOOTER,
    ChatItem,
    prompt_row,
    usage_text,
)
from desktop.ui.chat.records import Command, LiveTurn, Sent, TurnError, TurnUsage

QUEUED = Phrase(QT_TR_NOOP("Queued — it will be answered after the current reply."))
STOPPED_CARD = Phrase(QT_TR_NOOP("(stopped before it finished)"))
RETRYING = QT_TR_NOOP("{reason} Waiting for the model… (retrying {attempt}/{attempts})")
ENDED_KEPT = 1024
"""How many ended turn ids are remembered (to ignore their late or repeated events)."""


class ChatState:
    """The live state of every chat, changed only through its methods (each returns what
    changed).

    Attributes:
        current: The session shown (set by the tab).
        live: Running turns by turn id.
        usage: The latest turn's token use by session.
        errors: The error shown for a session (a failed turn: Retry runs it again).
        sent: Messages sent whose turns have not started, by inbound message id.
        commands: Slash commands waiting for their answers, by inbound message id.
        guidance: Messages sent to a running turn (steering) that it has not taken in yet, by
            guidance id: ``(session key, text)``, in the order they were sent.
    """

    def __init__(self) -> None:
        self.current = ""
        self.live: dict[str, LiveTurn] = {}
        self.usage: dict[str, TurnUsage] = {}
        self.errors: dict[str, TurnError] = {}
        self.sent: dict[str, Sent] = {}
        self.commands: dict[str, Command] = {}
        self.guidance: dict[str, tuple[str, str]] = {}
        self._ended: OrderedDict[str, None] = OrderedDict()

    # -- queries --------------------------------------------------------------------------
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

    def queued(self, key: str) -> list[ChatItem]:
        """Rows of messages sent to ``key`` whose turns have not started yet."""
        return [s.row for s in self.sent.values() if s.key == key]

    def card(self, turn_id: str, call_id: str) -> ChatItem | None:
        """The card of a call in a running turn."""
        turn = self.live.get(turn_id)
        return turn.cards.get(call_id) if turn is not None else None

    @property
    def buffered(self) -> bool:
        """Deltas wait for :meth:`flush`."""
        return any(t.text or t.thinking for t in self.live.values())

    # -- run events -----------------------------------------------------------------------
    def apply(self, event: RunEvent) -> Changes:  # noqa: C901  # one case per run event
        """Apply one run event; returns what changed, in order."""
        out: Changes = []
        match event:
            case TurnStarted():
                self._started(event, out)
            case TextDelta():
                turn = self._turn(event.turn_id, event.session_key, out)
                if turn is not None:
                    turn.text.append(event.text)
            case ReasoningDelta():
                turn = self._turn(event.turn_id, event.session_key, out)
                if turn is not None:
                    turn.thinking.append(event.text)
            case GuidanceTaken():
                self._guidance_taken(event, out)
            case StreamReset():
                self._reset(event, out)
            case ModelRetrying():
                self._retrying(event, out)
            case ModelFallback():
                self._fallback(event, out)
            case ToolCallStarted():
                self._tool_started(event, out)
            case ToolCallFinished():
                self._tool_finished(event, out)
            case UsageReport():
                self._usage(event, out)
            case TurnFinished():
                self._end(event.turn_id, event.session_key, event.content, None, out)
            case TurnStopped():
                self._end(event.turn_id, event.session_key, event.partial, STOPPED_FOOTER, out)
            case TurnFailed():
                self._failed(event, out)
            case SessionChanged():
                out += [Reload(event.session_key), ListChanged(event.session_key)]
            case (
                ReminderDue()
                | ChannelStatusChanged()
                | DeliveryFailed()
                | PairingRequested()
                | BudgetPaused()
                | BudgetResolved()
                | BudgetWarning()
                | RunawayStopped()
            ):
                pass  # not about a chat's rows (the shell, tray and settings show these)
            case _:
                assert_never(event)
        return out

    def _turn(self, turn_id: str, key: str, out: Changes) -> LiveTurn | None:
        """The live turn (made up when its start was missed); ``None`` once it has ended."""
        if turn_id in self._ended:
            return None
        turn = self.live.get(turn_id)
        if turn is None:
            turn = self.live[turn_id] = LiveTurn(turn_id, key)
            out.append(TurnBegan(key))
        return turn

    def _add(
        self, turn: LiveTurn, item: ChatItem, out: Changes, before: ChatItem | None = None
    ) -> ChatItem:
        item.turn_id = turn.turn_id
        if before is None:
            turn.rows.append(item)
        else:
            turn.rows.insert(turn.rows.index(before), item)
        out.append(RowAdded(turn.key, item, before))
        return item

    def _drop(self, turn: LiveTurn, item: ChatItem, out: Changes) -> None:
        if item in turn.rows:
            turn.rows.remove(item)
        out.append(RowRemoved(turn.key, item))

    def _started(self, event: TurnStarted, out: Changes) -> None:
        """Show what started the turn (unless this tab sent it, and shows it) and
        "Thinking…"."""
        key = event.session_key
        if event.turn_id in self._ended:
            return
        turn = self.live.get(event.turn_id)
        if turn is not None and turn.started:
            return  # seen before
        if key == self.current or event.request_id in self.sent:
            self._clear_error(key, out)
        fresh = turn is None
        if turn is None:
            turn = self.live[event.turn_id] = LiveTurn(event.turn_id, key)
        turn.started = True
        turn.source, turn.request_id = event.source, event.request_id
        first = turn.rows[0] if turn.rows else None  # rows of events seen before the start
        sent = self.sent.pop(event.request_id, None) if event.request_id else None
        if sent is not None:  # shown when it was sent; now it belongs to the turn
            if sent.row.footer == QUEUED:
                sent.row.footer = ""
                out.append(RowChanged(sent.key, sent.row))
            sent.row.turn_id = turn.turn_id
            turn.rows.insert(0, sent.row)
        else:
            row = prompt_row(
                event.source, event.content, label=event.label, media=list(event.media)
            )
            self._add(turn, row, out, before=first)
        if turn.answer is None:
            turn.answer = self._add(turn, ChatItem("assistant", streaming=True), out)
        if fresh:
            out.append(TurnBegan(key))

    def _guidance_taken(self, event: GuidanceTaken, out: Changes) -> None:
        """The running turn took in what the person sent meanwhile: it is in the conversation
        now, after what was shown so far; the answer goes on below it."""
        for guidance_id in event.ids:
            self.guidance.pop(guidance_id, None)
        out.append(GuidanceChanged(event.session_key))
        self._flush(out)
        turn = self._turn(event.turn_id, event.session_key, out)
        if turn is None:
            return
        self._close_stream(turn, out)
        for text in event.texts:
            self._add(turn, ChatItem("user", text), out)
        turn.answer = self._add(turn, ChatItem("assistant", streaming=True), out)

    def _reset(self, event: StreamReset, out: Changes) -> None:
        """A retried stream starts over: drop what this model call showed."""
        turn = self._turn(event.turn_id, event.session_key, out)
        if turn is None:
            return
        turn.text.clear()
        turn.thinking.clear()
        for item in (turn.answer, turn.reasoning):
            if item is not None and item.text:
                item.text = ""
                out.append(RowChanged(turn.key, item))

    def _retrying(self, event: ModelRetrying, out: Changes) -> None:
        """Say, in the waiting row, that the model call failed and is tried again."""
        turn = self._turn(event.turn_id, event.session_key, out)
        if turn is None:
            return
        if turn.answer is None:
            turn.answer = self._add(turn, ChatItem("assistant", streaming=True), out)
        turn.answer.status = Phrase(
            RETRYING, reason=event.reason, attempt=event.attempt + 1, attempts=event.max_attempts
        )
        out.append(RowChanged(turn.key, turn.answer))

    def _fallback(self, event: ModelFallback, out: Changes) -> None:
        """Say, in a short line of its own, that a fallback model answers instead."""
        self._flush(out)
        turn = self._turn(event.turn_id, event.session_key, out)
        if turn is None:
            return
        self._close_stream(turn, out)
        notice = Phrase(QT_TR_NOOP("↪ {notice}"), notice=event.text)  # the core's phrase inside
        self._add(turn, ChatItem("notice", text=notice), out)

    def _tool_started(self, event: ToolCallStarted, out: Changes) -> None:
        """Close the streamed text and add a running card."""
        key = event.session_key
        if "#" in key:
            return  # a subagent's calls: its report arrives later
        self._flush(out)
        turn = self._turn(event.turn_id, key, out)
        if turn is None:
            return
        self._close_stream(turn, out)
        if event.call_id in turn.cards:
            return  # its end came first, or it was seen before
        card = ChatItem(
            "tool", tool=event.name, call_id=event.call_id, arguments=dict(event.arguments)
        )
        turn.cards[event.call_id] = self._add(turn, card, out)

    def _tool_finished(self, event: ToolCallFinished, out: Changes) -> None:
        """Fill the call's card (in this turn only)."""
        if "#" in event.session_key:
            return
        turn = self._turn(event.turn_id, event.session_key, out)
        if turn is None:
            return
        card = turn.cards.get(event.call_id)
        if card is None:
            card = ChatItem(
                "tool", tool=event.name, call_id=event.call_id, arguments=dict(event.arguments)
            )
            turn.cards[event.call_id] = self._add(turn, card, out)
        card.result = event.result_preview
        card.diff = event.diff
        card.ok = event.ok
        card.duration_s = event.duration_s
        card.awaiting_approval = False
        out.append(RowChanged(turn.key, card))

    def _usage(self, event: UsageReport, out: Changes) -> None:
        """Add a model call's tokens to the turn."""
        if "#" in event.session_key:
            return
        turn = self._turn(event.turn_id, event.session_key, out)
        if turn is None:
            return
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
        out.append(UsageChanged(turn.key))

    # -- frames ---------------------------------------------------------------------------
    def flush(self) -> Changes:
        """Apply the buffered deltas (the view calls this at most once per frame)."""
        out: Changes = []
        self._flush(out)
        return out

    def _flush(self, out: Changes) -> None:
        for turn in list(self.live.values()):
            if turn.thinking:
                text, turn.thinking = "".join(turn.thinking), []
                if turn.reasoning is None:
                    turn.reasoning = ChatItem("reasoning", streaming=True)
                    answer = turn.answer
                    if answer is not None and not answer.text:
                        self._drop(turn, answer, out)  # keep "Thinking…" below the reasoning
                        self._add(turn, turn.reasoning, out)
                        self._add(turn, answer, out)
                    else:
                        self._add(turn, turn.reasoning, out)
                turn.reasoning.text += text
                out.append(RowChanged(turn.key, turn.reasoning))
            if turn.text:
                text, turn.text = "".join(turn.text), []
                if turn.answer is None:
                    turn.answer = self._add(turn, ChatItem("assistant", streaming=True), out)
                turn.answer.text += text
                turn.answer.status = ""
                out.append(RowChanged(turn.key, turn.answer))

    def _close_stream(self, turn: LiveTurn, out: Changes) -> None:
        for item in (turn.reasoning, turn.answer):
            if item is None:
                continue
            item.streaming = False
            item.status = ""
            if not item.text.strip():
                self._drop(turn, item, out)
            else:
                out.append(RowChanged(turn.key, item))
        turn.reasoning = turn.answer = None

    # -- endings --------------------------------------------------------------------------
    def _failed(self, event: TurnFailed, out: Changes) -> None:
        """The turn failed: close its rows and show the error (Retry runs it again)."""
        key = event.session_key
        if not self._end(event.turn_id, key, "", None, out, failed=True):
            return
        self.errors[key] = TurnError(event.error_kind, event.message, event.details)
        out += [ErrorChanged(key), ListChanged(key)]

    def _end(
        self,
        turn_id: str,
        key: str,
        content: str,
        footer: str | None,
        out: Changes,
        *,
        failed: bool = False,
    ) -> bool:
        """End the turn with ``content`` (the authoritative final text); ``False`` when it had
        ended before (a repeated end changes nothing)."""
        if turn_id in self._ended:
            return False
        self._flush(out)
        turn = self.live.pop(turn_id, None)
        self._ended[turn_id] = None
        while len(self._ended) > ENDED_KEPT:
            self._ended.popitem(last=False)
        if turn is not None:
            self._close_turn(turn, content, footer, failed, out)
        out.append(TurnEnded(key))
        if key != self.current:
            out.append(Unread(key))
        return True

    def _close_turn(
        self, turn: LiveTurn, content: str, footer: str | None, failed: bool, out: Changes
    ) -> None:
        key = turn.key
        if turn.reasoning is not None:
            turn.reasoning.streaming = False
            out.append(RowChanged(key, turn.reasoning))
        answer = turn.answer
        if content.strip() and not failed:
            if answer is None:
                answer = turn.answer = self._add(turn, ChatItem("assistant"), out)
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
                out.append(RowChanged(key, answer))
            else:
                self._drop(turn, answer, out)
        for card in turn.cards.values():
            if card.ok is None:
                card.ok, card.awaiting_approval = False, False
                card.result = card.result or STOPPED_CARD
                out.append(RowChanged(key, card))

    # -- the tab's own inputs -------------------------------------------------------------
    def queue(self, request_id: str, key: str, row: ChatItem) -> Changes:
        """The tab published message ``request_id`` in ``key`` (``row`` shows it): it waits
        for its turn, marked as queued when another turn runs or waits before it."""
        out: Changes = []
        self._clear_error(key, out)
        if self.busy(key) or any(s.key == key for s in self.sent.values()):
            row.footer = QUEUED
            out.append(RowChanged(key, row))
        self.sent[request_id] = Sent(key, row)
        return out

    def steer(self, guidance_id: str, key: str, text: str) -> Changes:
        """The tab sent ``text`` to the running turn of ``key`` (steering): it waits, shown
        beside the composer, until the turn takes it in."""
        self.guidance[guidance_id] = (key, text)
        return [GuidanceChanged(key)]

    def unsteer(self, guidance_id: str) -> Changes:
        """Forget waiting guidance (taken back, sent as a message instead)."""
        found = self.guidance.pop(guidance_id, None)
        return [GuidanceChanged(found[0])] if found is not None else []

    def guidance_of(self, key: str) -> list[tuple[str, str]]:
        """``(guidance id, text)`` of what waits for ``key``'s running turn, in order."""
        return [(gid, text) for gid, (k, text) in self.guidance.items() if k == key]

    def command(self, request_id: str, key: str, text: str) -> Changes:
        """The tab sent the slash command ``text``: echo it and wait for its answer."""
        row = ChatItem(
            "command",
            Phrase(QT_TR_NOOP("Working…")),
            tool=text.split()[0] if text.split() else text,
        )
        self.commands[request_id] = Command(key, row)
        return [RowAdded(key, ChatItem("user", text, echo=True)), RowAdded(key, row)]

    def outbound(self, message: OutboundMessage) -> Changes:
        """A desktop-channel message that is not a turn's answer: a command's reply (it fills
        the command's row), or something the agent sent on its own (``message`` tool,
        reminders), shown as a row of its own."""
        request_id = str(message.metadata.get("request_id") or "")
        command = self.commands.pop(request_id, None) if request_id else None
        if command is not None:
            command.row.text = message.content or Phrase(QT_TR_NOOP("(no answer)"))
            return [RowChanged(command.key, command.row), ListChanged(command.key)]
        if message.channel != DESKTOP_CHANNEL or message.metadata.get("progress"):
            return []
        key = f"{DESKTOP_CHANNEL}:{message.chat_id}"
        label = REMINDER if message.metadata.get("reminder") else ""
        if message.metadata.get("generated_images"):
            label = GENERATED_IMAGE
        row = ChatItem("outbound", message.content, tool=label, media=list(message.media))
        out: Changes = [RowAdded(key, row)]
        if key != self.current:
            out.append(Unread(key))
        out.append(ListChanged(key))
        return out

    def set_awaiting(self, turn_id: str, call_id: str, waiting: bool) -> Changes:
        """Mark a running turn's card as waiting for the person's approval (or not)."""
        turn = self.live.get(turn_id)
        card = turn.cards.get(call_id) if turn is not None else None
        if turn is None or card is None or card.ok is not None:
            return []
        if card.awaiting_approval == waiting:
            return []
        card.awaiting_approval = waiting
        return [RowChanged(turn.key, card)]

    def set_error(self, key: str, kind: str, message: str, details: str = "") -> Changes:
        """Show ``message`` in the session's banner."""
        self.errors[key] = TurnError(kind, message, details)
        return [ErrorChanged(key)]

    def clear_error(self, key: str) -> Changes:
        """Forget the session's error."""
        out: Changes = []
        self._clear_error(key, out)
        return out

    def _clear_error(self, key: str, out: Changes) -> None:
        if self.errors.pop(key, None) is not None:
            out.append(ErrorChanged(key))
