"""The one Qt bridge: typed core events and desktop-channel messages become Qt signals.

Core code knows nothing of Qt; it publishes :mod:`desktop.core.bus.events` on the
:class:`~desktop.core.bus.queue.MessageBus`. :class:`CoreBridge` subscribes once and re-emits
every event as a typed signal, on the GUI thread (the agent runs on the qasync loop in the
GUI thread, so no queued connections are needed). Widgets connect to these signals and never
reach into the agent.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import ClassVar

from PySide6.QtCore import QObject, Signal

from desktop.core.bus.events import DESKTOP_CHANNEL, OutboundMessage, RunEvent
from desktop.core.bus.queue import MessageBus

log = logging.getLogger(__name__)

__all__ = ["DESKTOP_CHANNEL", "CoreBridge"]


class CoreBridge(QObject):
    """Re-emits core run events as Qt signals.

    Signals:
        turnStarted(object): :class:`~desktop.core.bus.events.TurnStarted`.
        textDelta(object): :class:`~desktop.core.bus.events.TextDelta`.
        reasoningDelta(object): :class:`~desktop.core.bus.events.ReasoningDelta`.
        streamReset(object): :class:`~desktop.core.bus.events.StreamReset`.
        toolStarted(object): :class:`~desktop.core.bus.events.ToolCallStarted`.
        toolFinished(object): :class:`~desktop.core.bus.events.ToolCallFinished`.
        modelRetrying(object): :class:`~desktop.core.bus.events.ModelRetrying`.
        modelFallback(object): :class:`~desktop.core.bus.events.ModelFallback`.
        usage(object): :class:`~desktop.core.bus.events.UsageReport`.
        turnFinished(object): :class:`~desktop.core.bus.events.TurnFinished`.
        turnStopped(object): :class:`~desktop.core.bus.events.TurnStopped`.
        turnFailed(object): :class:`~desktop.core.bus.events.TurnFailed`.
        sessionChanged(object): :class:`~desktop.core.bus.events.SessionChanged`.
        channelStatus(object): :class:`~desktop.core.bus.events.ChannelStatusChanged`.
        deliveryFailed(object): :class:`~desktop.core.bus.events.DeliveryFailed`.
        reminderDue(object): :class:`~desktop.core.bus.events.ReminderDue`.
        budgetPaused(object): :class:`~desktop.core.bus.events.BudgetPaused`.
        budgetResolved(object): :class:`~desktop.core.bus.events.BudgetResolved`.
        budgetWarning(object): :class:`~desktop.core.bus.events.BudgetWarning`.
        runawayStopped(object): :class:`~desktop.core.bus.events.RunawayStopped`.
        outbound(object): an :class:`~desktop.core.bus.events.OutboundMessage` for the
            desktop channel (``message`` tool, cron answers, subagent reports).
        event(object): every run event, for views that want them all.
    """

    turnStarted = Signal(object)
    textDelta = Signal(object)
    reasoningDelta = Signal(object)
    streamReset = Signal(object)
    toolStarted = Signal(object)
    toolFinished = Signal(object)
    modelRetrying = Signal(object)
    modelFallback = Signal(object)
    usage = Signal(object)
    turnFinished = Signal(object)
    turnStopped = Signal(object)
    turnFailed = Signal(object)
    sessionChanged = Signal(object)
    channelStatus = Signal(object)
    deliveryFailed = Signal(object)
    reminderDue = Signal(object)
    budgetPaused = Signal(object)
    budgetResolved = Signal(object)
    budgetWarning = Signal(object)
    runawayStopped = Signal(object)
    outbound = Signal(object)
    event = Signal(object)  # type: ignore[assignment]  # shadows QObject.event; renaming the signal is a change of its own

    _BY_KIND: ClassVar[dict[str, str]] = {
        "turn_started": "turnStarted",
        "text_delta": "textDelta",
        "reasoning_delta": "reasoningDelta",
        "stream_reset": "streamReset",
        "tool_started": "toolStarted",
        "tool_finished": "toolFinished",
        "model_retrying": "modelRetrying",
        "model_fallback": "modelFallback",
        "usage": "usage",
        "turn_finished": "turnFinished",
        "turn_stopped": "turnStopped",
        "turn_failed": "turnFailed",
        "session_changed": "sessionChanged",
        "channel_status": "channelStatus",
        "delivery_failed": "deliveryFailed",
        "reminder_due": "reminderDue",
        "budget_paused": "budgetPaused",
        "budget_resolved": "budgetResolved",
        "budget_warning": "budgetWarning",
        "runaway_stopped": "runawayStopped",
    }

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._unsubscribe: list[Callable[[], None]] = []

    def attach(self, bus: MessageBus) -> None:
        """Start receiving ``bus``'s run events (call once the agent exists)."""
        self._unsubscribe.append(bus.subscribe(self.deliver))

    def deliver(self, event: RunEvent) -> None:
        """Emit ``event`` on its typed signal and on :attr:`event`."""
        name = self._BY_KIND.get(event.kind)
        if name is None:
            log.debug("no signal for event kind %s", event.kind)
        else:
            getattr(self, name).emit(event)
        self.event.emit(event)

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
