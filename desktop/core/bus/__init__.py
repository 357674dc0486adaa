"""Message bus: InboundMessage / OutboundMessage and the asyncio MessageBus (agent-core issue)."""
