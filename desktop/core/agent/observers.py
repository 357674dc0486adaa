"""Hooks that turn a run into typed bus events and channel progress messages."""

from __future__ import annotations

import json

from desktop.core.bus.events import (
    GuidanceTaken,
    ModelFallback,
    ModelRetrying,
    OutboundMessage,
    ReasoningDelta,
    StreamReset,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    UsageReport,
)
from desktop.core.bus.queue import MessageBus
from desktop.core.engine.hooks import AgentHook, Guidance, HookContext
from desktop.core.providers.base import LLMResponse, StreamDelta, ToolCallRequest
from desktop.core.tools.base import ToolResult
from desktop.core.tools.untrusted import shown

PREVIEW_CHARS = 500


def tool_hint(call: ToolCallRequest, limit: int = 60) -> str:
    """A one-line description of a call: ``read_file("notes.md")``."""
    values = [json.dumps(v, ensure_ascii=False) for v in call.arguments.values()]
    text = ", ".join(values)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return f"{call.name}({text})"


class EventHook(AgentHook):
    """Publishes the run as typed events (text, reasoning, tools, usage) on the bus."""

    def __init__(self, bus: MessageBus, *, context_window: int) -> None:
        self.bus = bus
        self.context_window = context_window

    def wants_streaming(self) -> bool:
        return True

    async def on_stream(self, ctx: HookContext, delta: StreamDelta) -> None:
        turn, key = ctx.turn_id, ctx.session_key
        if delta.kind == "text":
            await self.bus.emit(TextDelta(turn, key, delta.text))
        elif delta.kind == "reasoning":
            await self.bus.emit(ReasoningDelta(turn, key, delta.text))
        elif delta.kind == "retry":
            await self.bus.emit(
                ModelRetrying(
                    turn, key, delta.text, delta.attempt, delta.max_attempts, delta.delay_s
                )
            )
        elif delta.kind == "fallback":
            await self.bus.emit(
                ModelFallback(turn, key, delta.text, delta.model, delta.previous_model)
            )
        else:
            await self.bus.emit(StreamReset(turn, key))

    async def on_stream_end(self, ctx: HookContext, response: LLMResponse) -> None:
        usage = response.usage
        await self.bus.emit(
            UsageReport(
                ctx.turn_id,
                ctx.session_key,
                usage.prompt_tokens,
                usage.completion_tokens,
                usage.cost_usd,
                usage.prompt_tokens,
                self.context_window,
            )
        )

    async def on_tool_started(self, ctx: HookContext, call: ToolCallRequest) -> None:
        await self.bus.emit(
            ToolCallStarted(ctx.turn_id, ctx.session_key, call.id, call.name, dict(call.arguments))
        )

    async def on_tool_finished(
        self, ctx: HookContext, call: ToolCallRequest, result: ToolResult, duration_s: float
    ) -> None:
        await self.bus.emit(
            ToolCallFinished(
                ctx.turn_id,
                ctx.session_key,
                call.id,
                call.name,
                dict(call.arguments),
                shown(result.text)[:PREVIEW_CHARS],
                round(duration_s, 3),
                not result.is_error,
                result.diff,
            )
        )

    async def on_guidance(self, ctx: HookContext, taken: list[Guidance]) -> None:
        await self.bus.emit(
            GuidanceTaken(
                ctx.turn_id,
                ctx.session_key,
                tuple(g.id for g in taken),
                tuple(g.text for g in taken),
            )
        )


class ProgressHook(AgentHook):
    """Sends interim text and tool hints to a chat channel while the agent works."""

    def __init__(
        self, bus: MessageBus, channel: str, chat_id: str, *, progress: bool, tool_hints: bool
    ) -> None:
        self.bus = bus
        self.channel = channel
        self.chat_id = chat_id
        self.progress = progress
        self.tool_hints = tool_hints

    def wants_streaming(self) -> bool:
        return True  # to hear about a fallback model

    async def on_stream(self, ctx: HookContext, delta: StreamDelta) -> None:
        if delta.kind == "fallback":  # always said: the answer comes from another model
            await self.bus.publish_outbound(
                OutboundMessage(
                    self.channel,
                    self.chat_id,
                    f"({delta.text})",
                    metadata={"progress": True, "fallback": True},
                )
            )

    async def before_execute_tools(self, ctx: HookContext, calls: list[ToolCallRequest]) -> None:
        last = ctx.added[-1] if ctx.added else {}
        text = str(last.get("content") or "").strip() if last.get("role") == "assistant" else ""
        if self.progress and text:
            await self.bus.publish_outbound(
                OutboundMessage(self.channel, self.chat_id, text, metadata={"progress": True})
            )
        if self.tool_hints and calls:
            hints = "\n".join(tool_hint(c) for c in calls)
            await self.bus.publish_outbound(
                OutboundMessage(
                    self.channel,
                    self.chat_id,
                    hints,
                    metadata={"progress": True, "tool_hint": True},
                )
            )
