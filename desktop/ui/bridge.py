"""The one Qt bridge: typed core events and desktop-channel messages become Qt signals.

Core code knows nothing of Qt; it publishes :mod:`desktop.core.bus.events` on the
:class:`~desktop.core.bus.queue.MessageBus`. :class:`CoreBridge` subscribes once and re-emits
every event on the signal of its class, on the GUI thread (the agent runs on the qasync loop in
the GUI thread, so no queued connections are needed). Widgets connect to these signals and never
reach into the agent.

The signals are typed for the type checker: ``bridge.turnStarted`` is an
``EventSignal[TurnStarted]``, so connecting a slot that takes another event is a mypy error.
:meth:`CoreBridge.deliver` matches the event over the whole
:data:`~desktop.core.bus.events.RunEvent` union and ends in ``assert_never``: an event class
added in core without a signal here fails mypy at that line. Adding one is three lines, all in
this class: the signal, its ``Signals:`` entry and its ``case``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, TypeVar, assert_never, cast

from PySide6.QtCore import QObject, Signal

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
from desktop.core.bus.queue import MessageBus

if TYPE_CHECKING:
    from PySide6.QtCore import QMetaObject, Qt

log = logging.getLogger(__name__)

__all__ = ["DESKTOP_CHANNEL", "CoreBridge", "EventSignal", "event_signal"]

E = TypeVar("E")


class EventSignal(Protocol[E]):
    """What the type checker sees of a bridge signal (at run time: a ``SignalInstance``).

    Only slots that accept the signal's event can be connected, and only that event emitted.
    """

    def connect(
        self, slot: Callable[[E], object], /, type: Qt.ConnectionType = ...
    ) -> QMetaObject.Connection:
        """Call ``slot`` with every event emitted."""
        ...

    def disconnect(self, slot: Callable[[E], object] | None = ..., /) -> bool:
        """Stop calling ``slot`` (every slot when ``None``)."""
        ...

    def emit(self, event: E, /) -> None:
        """Call the connected slots with ``event``."""
        ...


def event_signal(cls: type[E]) -> EventSignal[E]:
    """A Qt signal that carries one ``cls`` object, typed as :class:`EventSignal` ``[cls]``.

    Qt declares it as ``(PyObject)``: the object itself is passed, never converted.
    """
    return cast("EventSignal[E]", Signal(cls))


class CoreBridge(QObject):
    """Re-emits core run events as Qt signals, one signal per event class.

    Signals:
        turnStarted(TurnStarted): a turn began.
        guidanceTaken(GuidanceTaken): a running turn took in what the person sent meanwhile.
        textDelta(TextDelta): a piece of the answer.
        guidanceTaken(GuidanceTaken): a running turn took in what the person sent meanwhile.
        reasoningDelta(ReasoningDelta): a piece of the reasoning.
        streamReset(StreamReset): a retried stream starts over.
        modelRetrying(ModelRetrying): a model call is tried again.
        modelFallback(ModelFallback): a fallback model answers instead of the failed one.
        toolStarted(ToolCallStarted): a tool call began.
        toolFinished(ToolCallFinished): a tool call ended.
        usage(UsageReport): the token use of a model call.
        turnFinished(TurnFinished): a turn answered.
        turnStopped(TurnStopped): a turn was stopped.
        turnFailed(TurnFailed): a turn failed.
        sessionChanged(SessionChanged): a session changed outside a turn.
        reminderDue(ReminderDue): a scheduled job has something to tell.
        channelStatus(ChannelStatusChanged): a chat channel's connection changed.
        deliveryFailed(DeliveryFailed): an answer could not reach its chat.
        pairingRequested(PairingRequested): a stranger asked to pair on a channel.
        budgetPaused(BudgetPaused): a background source waits before passing a budget.
        budgetResolved(BudgetResolved): that pause was answered.
        budgetWarning(BudgetWarning): chat spend reached a budget's warning share.
        runawayStopped(RunawayStopped): a background run was stopped for its size.
        runEvent(RunEvent): every run event (after its own signal), for views that keep
            state from all of them (the chat's :class:`~desktop.ui.chat.state.ChatState`).
        outbound(OutboundMessage): a message for the desktop channel (``message`` tool, cron
            answers, subagent reports, command replies).
    """

    turnStarted = event_signal(TurnStarted)
    textDelta = event_signal(TextDelta)
    guidanceTaken = event_signal(GuidanceTaken)
    reasoningDelta = event_signal(ReasoningDelta)
    streamReset = event_signal(StreamReset)
    modelRetrying = event_signal(ModelRetrying)
    modelFallback = event_signal(ModelFallback)
    toolStarted = event_signal(ToolCallStarted)
    toolFinished = event_signal(ToolCallFinished)
    usage = event_signal(UsageReport)
    turnFinished = event_signal(TurnFinished)
    turnStopped = event_signal(TurnStopped)
    turnFailed = event_signal(TurnFailed)
    sessionChanged = event_signal(SessionChanged)
    reminderDue = event_signal(ReminderDue)
    channelStatus = event_signal(ChannelStatusChanged)
    deliveryFailed = event_signal(DeliveryFailed)
    pairingRequested = event_signal(PairingRequested)
    budgetPaused = event_signal(BudgetPaused)
    budgetResolved = event_signal(BudgetResolved)
    budgetWarning = event_signal(BudgetWarning)
    runawayStopped = event_signal(RunawayStopped)
    # A union is no class Qt could name: the signal is (PyObject) like the others.
    runEvent = cast("EventSignal[RunEvent]", Signal(object))
    outbound = event_signal(OutboundMessage)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._unsubscribe: list[Callable[[], None]] = []

    def attach(self, bus: MessageBus) -> None:
        """Start receiving ``bus``'s run events (call once the agent exists)."""
        self._unsubscribe.append(bus.subscribe(self.deliver))

    def deliver(self, event: RunEvent) -> None:  # noqa: C901  # one case per event class: mypy checks the match is exhaustive
        """Emit ``event`` on the signal of its class, then on :attr:`runEvent`."""
        match event:
            case TurnStarted():
                self.turnStarted.emit(event)
            case TextDelta():
                self.textDelta.emit(event)
            case GuidanceTaken():
                self.guidanceTaken.emit(event)
            case ReasoningDelta():
                self.reasoningDelta.emit(event)
            case StreamReset():
                self.streamReset.emit(event)
            case ModelRetrying():
                self.modelRetrying.emit(event)
            case ModelFallback():
                self.modelFallback.emit(event)
            case ToolCallStarted():
                self.toolStarted.emit(event)
            case ToolCallFinished():
                self.toolFinished.emit(event)
            case UsageReport():
                self.usage.emit(event)
            case TurnFinished():
                self.turnFinished.emit(event)
            case TurnStopped():
                self.turnStopped.emit(event)
            case TurnFailed():
                self.turnFailed.emit(event)
            case SessionChanged():
                self.sessionChanged.emit(event)
            case ReminderDue():
                self.reminderDue.emit(event)
            case ChannelStatusChanged():
                self.channelStatus.emit(event)
            case DeliveryFailed():
                self.deliveryFailed.emit(event)
            case PairingRequested():
                self.pairingRequested.emit(event)
            case BudgetPaused():
                self.budgetPaused.emit(event)
            case BudgetResolved():
                self.budgetResolved.emit(event)
            case BudgetWarning():
                self.budgetWarning.emit(event)
            case RunawayStopped():
                self.runawayStopped.emit(event)
            case _:
                assert_never(event)
        self.runEvent.emit(event)

    name = DESKTOP_CHANNEL
    """The window is the ``desktop`` channel: the channel manager hands it its messages."""

    async def send(self, message: OutboundMessage) -> None:
        """Deliver a ``desktop`` message to the window (the channel contract)."""
        self.deliver_outbound(message)

    def deliver_outbound(self, message: OutboundMessage) -> None:
        """Emit an outbound message addressed to the desktop channel."""
        self.outbound.emit(message)

    def detach(self) -> None:
        """Stop receiving events."""
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()
