"""Observe and shape an agent run without reaching into the runner.

The CLI prints through a hook, the GUI gets typed events through a hook, the loop saves
checkpoints through a hook. :class:`CompositeHook` runs several in order; a hook that raises is
logged and the others (and the run) carry on, unless it raises :class:`RunAborted`: a failure
the run must not outlive (its turn could not be saved).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from desktop.core.providers.base import LLMResponse, StreamDelta, ToolCallRequest
from desktop.core.tools.base import ToolResult

log = logging.getLogger(__name__)


class RunAborted(Exception):
    """A hook's failure that ends the run: :class:`CompositeHook` passes it on, unlogged.

    Attributes:
        message: One sentence for the person.
        details: The full (redacted) error text.
    """

    def __init__(self, message: str, details: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.details = details


@dataclass(frozen=True)
class Guidance:
    """A message the person sent while a turn ran, for that turn to take in at its next step
    (steering; it does not stop the turn).

    Attributes:
        id: Identifies it for the front end that queued it (shown as waiting until taken).
        text: What the person wrote.
    """

    id: str
    text: str


@dataclass
class HookContext:
    """Shared state of one run, handed to every hook call.

    Attributes:
        session_key: The conversation.
        turn_id: The turn's id (carried by its events); ``""`` outside a turn (Dream).
        iteration: 1-based model call number within the run.
        messages: The run's request messages so far (system + history + new ones).
        added: Messages this run produced, in order (what the session must persist).
        extra: Free space for hooks.
    """

    session_key: str
    turn_id: str = ""
    iteration: int = 0
    messages: list[dict[str, Any]] = field(default_factory=list)
    added: list[dict[str, Any]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


class AgentHook:
    """Base hook: every method is a no-op; override what you need."""

    def wants_streaming(self) -> bool:
        """Whether this hook wants the model call streamed."""
        return False

    async def before_iteration(self, ctx: HookContext) -> None:
        """Before each model call."""

    async def on_stream(self, ctx: HookContext, delta: StreamDelta) -> None:
        """Each streamed delta (text, reasoning, or a reset after a retry)."""

    async def on_stream_end(self, ctx: HookContext, response: LLMResponse) -> None:
        """After each model call, with its full response."""

    async def before_execute_tools(self, ctx: HookContext, calls: list[ToolCallRequest]) -> None:
        """Before a round of tool calls runs."""

    async def on_tool_started(self, ctx: HookContext, call: ToolCallRequest) -> None:
        """A tool call begins."""

    async def on_tool_finished(
        self, ctx: HookContext, call: ToolCallRequest, result: ToolResult, duration_s: float
    ) -> None:
        """A tool call ended."""

    async def on_checkpoint(self, ctx: HookContext) -> None:
        """New messages were added that must survive a crash (tool calls, tool results)."""

    async def after_iteration(self, ctx: HookContext, response: LLMResponse) -> None:
        """After the tool calls of an iteration ran (or after the final answer)."""

    async def on_guidance(self, ctx: HookContext, taken: list[Guidance]) -> None:
        """The run took in messages the person sent while it ran (already in
        ``ctx.messages`` and ``ctx.added``, before the next model call)."""

    def finalize_content(self, ctx: HookContext, content: str) -> str:
        """Last chance to change the final answer text."""
        return content


class CompositeHook(AgentHook):
    """Runs hooks in order; one failing hook is logged and skipped (:class:`RunAborted` is
    passed on: the hooks after it do not run)."""

    def __init__(self, hooks: list[AgentHook] | None = None) -> None:
        self.hooks = list(hooks or [])

    def add(self, hook: AgentHook) -> None:
        """Append a hook."""
        self.hooks.append(hook)

    def wants_streaming(self) -> bool:
        return any(self._safe_sync(h, "wants_streaming", False) for h in self.hooks)

    def _safe_sync(self, hook: AgentHook, name: str, default: Any, *args: Any) -> Any:
        try:
            return getattr(hook, name)(*args)
        except Exception:
            log.exception("hook %s.%s failed", type(hook).__name__, name)
            return default

    async def _each(self, name: str, *args: Any) -> None:
        for hook in self.hooks:
            try:
                await getattr(hook, name)(*args)
            except RunAborted:
                raise
            except Exception:
                log.exception("hook %s.%s failed", type(hook).__name__, name)

    async def before_iteration(self, ctx: HookContext) -> None:
        await self._each("before_iteration", ctx)

    async def on_stream(self, ctx: HookContext, delta: StreamDelta) -> None:
        await self._each("on_stream", ctx, delta)

    async def on_stream_end(self, ctx: HookContext, response: LLMResponse) -> None:
        await self._each("on_stream_end", ctx, response)

    async def before_execute_tools(self, ctx: HookContext, calls: list[ToolCallRequest]) -> None:
        await self._each("before_execute_tools", ctx, calls)

    async def on_tool_started(self, ctx: HookContext, call: ToolCallRequest) -> None:
        await self._each("on_tool_started", ctx, call)

    async def on_tool_finished(
        self, ctx: HookContext, call: ToolCallRequest, result: ToolResult, duration_s: float
    ) -> None:
        await self._each("on_tool_finished", ctx, call, result, duration_s)

    async def on_checkpoint(self, ctx: HookContext) -> None:
        await self._each("on_checkpoint", ctx)

    async def after_iteration(self, ctx: HookContext, response: LLMResponse) -> None:
        await self._each("after_iteration", ctx, response)

    async def on_guidance(self, ctx: HookContext, taken: list[Guidance]) -> None:
        await self._each("on_guidance", ctx, taken)

    def finalize_content(self, ctx: HookContext, content: str) -> str:
        for hook in self.hooks:
            content = self._safe_sync(hook, "finalize_content", content, ctx, content)
        return content
