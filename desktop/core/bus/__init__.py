"""Message bus: InboundMessage / OutboundMessage, typed run events, the asyncio MessageBus."""

from desktop.core.bus.events import InboundMessage, OutboundMessage, RunEvent
from desktop.core.bus.queue import MessageBus

__all__ = ["InboundMessage", "MessageBus", "OutboundMessage", "RunEvent"]
