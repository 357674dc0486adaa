"""Tools that talk to people and start background work: ``message`` and ``spawn``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

from desktop.core.bus.events import OutboundMessage
from desktop.core.bus.queue import MessageBus
from desktop.core.tools.base import Tool, ToolContext, ToolResult


class MessageTool(Tool):
    """Send a message to the user now (or to another chat of a channel)."""

    name: ClassVar[str] = "message"
    description: ClassVar[str] = "Send a message to the user now (defaults to this chat)."
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "content": {"type": "string", "minLength": 1},
            "channel": {"type": "string"},
            "chat_id": {"type": "string"},
        },
        "required": ["content"],
    }

    def __init__(self, bus: MessageBus, on_sent: Callable[[str], None] | None = None) -> None:
        self.bus = bus
        self.on_sent = on_sent

    async def execute(self, ctx: ToolContext, **kwargs: Any) -> ToolResult:
        channel = kwargs.get("channel") or ctx.channel
        chat_id = kwargs.get("chat_id") or ctx.chat_id
        await self.bus.publish_outbound(OutboundMessage(channel, chat_id, kwargs["content"]))
        if self.on_sent is not None and (channel, chat_id) == (ctx.channel, ctx.chat_id):
            self.on_sent(ctx.session_key)
        return ToolResult(f"Message sent to {channel}:{chat_id}.")


Spawner = Callable[[str, str, ToolContext], Awaitable[str]]


class SpawnTool(Tool):
    """Start a subagent: in the background (its report comes back to this chat), or ``wait``
    for it and get its report as the result (nanobot 0.3.5's ``wait``)."""

    name: ClassVar[str] = "spawn"
    description: ClassVar[str] = (
        "Run a self-contained task in a subagent: in the background (report arrives later) "
        "or with wait=true, returning its result now."
    )
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "task": {
                "type": "string",
                "minLength": 1,
                "description": "Full instructions; it sees nothing else.",
            },
            "label": {"type": "string", "maxLength": 60},
            "wait": {"type": "boolean"},
        },
        "required": ["task"],
    }

    def __init__(self, spawner: Spawner, inline: Spawner | None = None) -> None:
        self.spawner = spawner
        self.inline = inline

    async def execute(self, ctx: ToolContext, **kwargs: Any) -> ToolResult:
        label = (kwargs.get("label") or kwargs["task"][:40]).strip()
        try:
            if kwargs.get("wait") and self.inline is not None:
                return ToolResult(await self.inline(kwargs["task"], label, ctx))
            task_id = await self.spawner(kwargs["task"], label, ctx)
        except RuntimeError as exc:
            return ToolResult.error(f"Error: {exc}")
        return ToolResult(
            f"Started background task {task_id} ({label}). Its report will arrive in this chat."
        )
