"""AgentRunner: model call → tool calls → results, until an answer or a limit.

* Tool batches: consecutive calls whose tools are concurrency-safe (``read_only`` and not
  ``exclusive``) run together; any other call runs alone, in order.
* An empty reply is retried once, then asked for without tools, then reported as empty.
* ``finish_reason == "length"`` asks the model to continue (a few times at most).
* Tool errors reach the model as results with a hint to try another approach.
* Steering: messages the person sends while the run goes on (``steering``) are taken in before
  the next model call, as user messages; one that arrives while the final answer is written
  makes the run go on with it instead of ending.
* Before each call the request is fitted to the context budget by the ``compact`` callback
  (the Consolidator later; until then the oldest whole turns are dropped from the *request*,
  never from the saved session). A request surely within the budget (its UTF-8 size bounds
  its tokens) is sent as it is, without loading the token encoding.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from desktop.core.engine.hooks import AgentHook, Guidance, HookContext
from desktop.core.providers.base import (
    LLMProvider,
    LLMResponse,
    StreamDelta,
    ToolCallRequest,
    Usage,
)
from desktop.core.providers.tokens import (
    count_messages,
    count_tools,
    message_tokens,
    surely_within,
)
from desktop.core.tools.base import ToolContext, ToolResult
from desktop.core.tools.registry import ERROR_HINT, ToolRegistry
from desktop.core.utils.resources import aread_template

log = logging.getLogger(__name__)

MAX_LENGTH_CONTINUATIONS = 3
Compactor = Callable[[list[dict[str, Any]], int], Awaitable[list[dict[str, Any]]]]


@dataclass
class RunResult:
    """The outcome of a run.

    Attributes:
        content: The final answer text.
        added: Messages the run produced (assistant, tool), for the session.
        iterations: Model calls made.
        usage: Tokens summed over the run.
        stop_reason: ``answer``, ``max_iterations``, ``empty`` or ``error``.
        tools_used: Names of tools called, in order.
        context_tokens: Prompt tokens of the last request as sent (after trimming): the
            server's count when it reported usage, else the cl100k estimate.
    """

    content: str
    added: list[dict[str, Any]] = field(default_factory=list)
    iterations: int = 0
    usage: Usage = field(default_factory=Usage)
    stop_reason: str = "answer"
    tools_used: list[str] = field(default_factory=list)
    context_tokens: int = 0


def budget_for(context_window: int, max_tokens: int, safety: int = 1024) -> int:
    """Prompt tokens allowed: window minus the answer's room minus a safety margin."""
    return max(1024, context_window - max_tokens - safety)


def estimate_request(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> int:
    """Prompt tokens of a request (cl100k estimate; per-message counts are remembered)."""
    return count_messages(messages) + count_tools(tools)


def fit_to_budget(messages: list[dict[str, Any]], budget: int) -> list[dict[str, Any]]:
    """``messages`` without their oldest whole turns, so that the request fits ``budget``.

    The rule: keep the system message; if everything fits, keep everything; else start the
    body at the oldest user message (never the first one, whose turn is the first to go) from
    which the rest fits; if none does, keep the newest turn alone (it may still be too large;
    with a single user message nothing is dropped).

    Counting walks back from the newest message and stops where the budget runs out, so the
    cost grows with what is kept (bounded by the budget), not with the session's length; each
    message's count is remembered (:func:`~desktop.core.providers.tokens.message_tokens`).
    """
    head = 1 if messages and messages[0].get("role") == "system" else 0
    size = len(messages)
    first_user = next((i for i in range(head, size) if messages[i].get("role") == "user"), None)
    if first_user is None:
        return list(messages)
    room = budget - 3 - sum(message_tokens(m) for m in messages[:head])
    users: list[int] = []  # user message indices, newest first
    total = 0
    over = -1  # the newest index whose inclusion makes the body too large
    for index in range(size - 1, head - 1, -1):
        message = messages[index]
        total += message_tokens(message)
        if total > room:
            over = index
            break
        if message.get("role") == "user":
            users.append(index)
    if over < 0:
        return list(messages)  # everything fits
    if not users:  # the newest turn alone is over budget: find where it starts
        users = [next(i for i in range(over, head - 1, -1) if messages[i].get("role") == "user")]
    fitting = [i for i in users if i > over and i != first_user]
    if fitting:
        keep = fitting[-1]  # the oldest turn start from which the rest fits
    elif users[0] != first_user:
        keep = users[0]  # nothing fits: the newest turn alone
    else:
        return list(messages)  # a single turn: nothing can be dropped
    return messages[:head] + messages[keep:]


async def drop_oldest_turns(messages: list[dict[str, Any]], budget: int) -> list[dict[str, Any]]:
    """Fit ``messages`` under ``budget`` by dropping the oldest whole turns of the request.

    The system message and the newest turn are always kept (see :func:`fit_to_budget`).
    Token counting runs in a thread.
    """
    return await asyncio.to_thread(fit_to_budget, messages, budget)


def _tool_message(call: ToolCallRequest, result: ToolResult) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call.id, "name": call.name, "content": result.content()}


def _assistant_message(response: LLMResponse) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": response.content or ""}
    if response.tool_calls:
        message["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {
                    "name": c.name,
                    "arguments": json.dumps(c.arguments, ensure_ascii=False),
                },
            }
            for c in response.tool_calls
        ]
    if response.reasoning_content:
        message["reasoning_content"] = response.reasoning_content
    return message


def call_ids(messages: list[dict[str, Any]]) -> set[Any]:
    """Every tool-call id in ``messages``."""
    return {c.get("id") for m in messages for c in m.get("tool_calls") or [] if isinstance(c, dict)}


def _unique_call_ids(response: LLMResponse, seen: set[Any], iteration: int) -> LLMResponse:
    """Give calls fresh ids when the server reuses them (some local servers always say call_0).

    ``seen`` holds the ids already in the request; the new ones are added to it. A fresh id is
    itself checked against ``seen``: ``call_1_0`` may already be an earlier turn's.
    """
    calls = []
    for index, call in enumerate(response.tool_calls):
        call_id = call.id
        if not call_id or call_id in seen:
            call_id = base = f"call_{iteration}_{index}"
            suffix = 1
            while call_id in seen:
                suffix += 1
                call_id = f"{base}_{suffix}"
        seen.add(call_id)
        calls.append(dataclasses.replace(call, id=call_id))
    return dataclasses.replace(response, tool_calls=calls)


def batches(calls: list[ToolCallRequest], tools: ToolRegistry) -> list[list[ToolCallRequest]]:
    """Group consecutive concurrency-safe calls; every other call is a batch of its own."""

    def safe(call: ToolCallRequest) -> bool:
        tool = tools.get(call.name)
        return bool(tool and tool.concurrency_safe and not call.error)

    groups: list[list[ToolCallRequest]] = []
    for call in calls:
        if safe(call) and groups and safe(groups[-1][0]):
            groups[-1].append(call)
        else:
            groups.append([call])
    return groups


class ApprovalCheck(Protocol):
    """What the runner asks before a risky tool call (the approval gate)."""

    async def check(
        self, call_id: str, tool: str, arguments: dict[str, Any], ctx: ToolContext
    ) -> str | None:
        """``None``: the call may run; else the refusal text the model reads."""
        ...


class AgentRunner:
    """Runs one agent turn against a provider with a tool registry.

    Args:
        provider: The model backend.
        tools: Tools the model may call.
        hook: Observer(s) of the run.
        max_iterations: Model calls allowed before giving up.
        context_window: The model's context size (tokens).
        max_tokens: Completion limit per call.
        compact: Fits a request to the token budget; defaults to dropping oldest turns.
        approval: Asked before risky calls (the
            :class:`~desktop.core.agent.approval.ApprovalGate`); ``None``: nothing is asked.
        steering: Hands over (and forgets) the messages the person sent since it was last
            asked (:class:`~desktop.core.engine.hooks.Guidance`); ``None``: no steering.
    """

    def __init__(
        self,
        provider: LLMProvider,
        tools: ToolRegistry,
        *,
        hook: AgentHook | None = None,
        max_iterations: int = 200,
        context_window: int = 65_536,
        max_tokens: int = 8192,
        compact: Compactor | None = None,
        approval: ApprovalCheck | None = None,
        steering: Callable[[], list[Guidance]] | None = None,
    ) -> None:
        self.provider = provider
        self.steering = steering
        self.tools = tools
        self.hook = hook or AgentHook()
        self.max_iterations = max_iterations
        self.budget = budget_for(context_window, max_tokens)
        self.max_tokens = max_tokens
        self.compact = compact or drop_oldest_turns
        self.approval = approval

    async def _call(
        self,
        ctx: HookContext,
        messages: list[dict[str, Any]],
        use_tools: bool,
        groups: set[str] | None = None,
    ) -> LLMResponse:
        # Deferred groups not loaded yet stay out (desktop.core.tools.groups).
        definitions = self.tools.definitions(groups) if use_tools and len(self.tools) else None
        # Off the loop: a long text to measure, and the first count loads tiktoken's encoding
        # from disk. A request that surely fits (most) is sent whole without counting.
        estimate: int | None = None
        if await asyncio.to_thread(surely_within, messages, definitions, self.budget):
            request = list(messages)
        else:
            tool_tokens = await asyncio.to_thread(count_tools, definitions)
            request = await self.compact(messages, self.budget - tool_tokens)
            estimate = await asyncio.to_thread(estimate_request, request, definitions)
        if self.hook.wants_streaming():

            async def forward(delta: StreamDelta) -> None:
                await self.hook.on_stream(ctx, delta)

            response = await self.provider.chat_stream(
                request, definitions, on_delta=forward, max_tokens=self.max_tokens
            )
        else:
            response = await self.provider.chat(request, definitions, max_tokens=self.max_tokens)
        # The size of the request as sent: the server's count when it gave one, else ours.
        if response.usage.prompt_tokens > 0:
            ctx.extra["context_tokens"] = response.usage.prompt_tokens
        else:
            if estimate is None:
                estimate = await asyncio.to_thread(estimate_request, request, definitions)
            ctx.extra["context_tokens"] = estimate
        await self.hook.on_stream_end(ctx, response)
        return response

    async def _run_call(
        self, hctx: HookContext, tctx: ToolContext, call: ToolCallRequest
    ) -> ToolResult:
        await self.hook.on_tool_started(hctx, call)
        started = time.monotonic()
        if call.error:
            result = ToolResult.error(
                f"Error: {call.error}. The call was not executed.{ERROR_HINT}"
            )
        else:
            denial = None
            if self.approval is not None:
                denial = await self.approval.check(call.id, call.name, call.arguments, tctx)
                started = time.monotonic()  # the wait for the person is not the tool's time
            if denial is not None:
                result = ToolResult.error(denial)
            else:
                result = await self.tools.execute(call.name, call.arguments, tctx)
        await self.hook.on_tool_finished(hctx, call, result, time.monotonic() - started)
        return result

    async def _execute(
        self, hctx: HookContext, tctx: ToolContext, calls: list[ToolCallRequest]
    ) -> None:
        await self.hook.before_execute_tools(hctx, calls)
        for batch in batches(calls, self.tools):
            if len(batch) == 1:
                results = [await self._run_call(hctx, tctx, batch[0])]
            else:
                results = list(
                    await asyncio.gather(*(self._run_call(hctx, tctx, c) for c in batch))
                )
            for call, result in zip(batch, results, strict=True):
                message = _tool_message(call, result)
                hctx.messages.append(message)
                hctx.added.append(message)
            await self.hook.on_checkpoint(hctx)

    async def _take_guidance(self, hctx: HookContext) -> bool:
        """Add what the person sent meanwhile as user messages (saved at once); whether any."""
        taken = self.steering() if self.steering is not None else []
        if not taken:
            return False
        for guidance in taken:
            message = {"role": "user", "content": guidance.text}
            hctx.messages.append(message)
            hctx.added.append(message)
        await self.hook.on_checkpoint(hctx)
        await self.hook.on_guidance(hctx, taken)
        return True

    async def run(
        self,
        messages: list[dict[str, Any]],
        tctx: ToolContext,
        *,
        session_key: str,
        turn_id: str = "",
    ) -> RunResult:
        """Run until the model answers without tool calls, or a limit is hit.

        An answer that stays empty after the retries ends the run with ``stop_reason``
        ``"empty"``, an empty ``content`` and no final message: the caller decides what an
        empty answer means (a chat turn fails; it is never saved as if it were an answer).
        """
        hctx = HookContext(session_key=session_key, turn_id=turn_id, messages=list(messages))
        result = RunResult(content="")
        totals = [0, 0]
        cost: float | None = None
        empty_strikes = 0
        continuations = 0
        partial = ""
        use_tools = True
        while result.iterations < self.max_iterations:
            result.iterations += 1
            hctx.iteration = result.iterations
            await self.hook.before_iteration(hctx)
            response = await self._call(hctx, hctx.messages, use_tools, tctx.tool_groups)
            totals[0] += response.usage.prompt_tokens
            totals[1] += response.usage.completion_tokens
            if response.usage.cost_usd is not None:
                cost = (cost or 0.0) + response.usage.cost_usd
            if response.tool_calls and use_tools:
                seen = hctx.extra.get("call_ids")
                if seen is None:  # collected once per run; new ids are added as they come
                    seen = hctx.extra["call_ids"] = await asyncio.to_thread(call_ids, hctx.messages)
                response = _unique_call_ids(response, seen, result.iterations)
                message = _assistant_message(response)
                hctx.messages.append(message)
                hctx.added.append(message)
                await self.hook.on_checkpoint(hctx)
                result.tools_used.extend(c.name for c in response.tool_calls)
                await self._execute(hctx, tctx, response.tool_calls)
                await self.hook.after_iteration(hctx, response)
                await self._take_guidance(hctx)
                continue
            text = response.content or ""
            if (
                response.finish_reason == "length"
                and text
                and continuations < MAX_LENGTH_CONTINUATIONS
            ):
                continuations += 1
                partial += text
                hctx.messages.append({"role": "assistant", "content": text})
                hctx.messages.append(
                    {
                        "role": "user",
                        "content": (await aread_template("agent", "continue.md")).strip(),
                    }
                )
                continue
            if not text.strip() and not partial:
                empty_strikes += 1
                if empty_strikes == 1:
                    continue  # one plain retry
                if empty_strikes == 2:
                    use_tools = False
                    nudge = await aread_template("agent", "answer_now.md")
                    hctx.messages.append({"role": "user", "content": nudge.strip()})
                    continue
                result.stop_reason = "empty"
                break
            content = self.hook.finalize_content(hctx, partial + text)
            final = _assistant_message(
                LLMResponse(content, reasoning_content=response.reasoning_content)
            )
            hctx.messages.append(final)
            hctx.added.append(final)
            await self.hook.after_iteration(hctx, response)
            result.content = content
            if await self._take_guidance(hctx):  # sent while this answer was written
                partial, continuations, empty_strikes, use_tools = "", 0, 0, True
                continue
            break
        else:
            result.stop_reason = "max_iterations"
            content = (
                (await aread_template("agent", "max_iterations.md"))
                .strip()
                .format(max_iterations=self.max_iterations)
            )
            content = self.hook.finalize_content(hctx, content)
            final = {"role": "assistant", "content": content}
            hctx.messages.append(final)
            hctx.added.append(final)
            result.content = content
        result.added = hctx.added
        result.usage = Usage(totals[0], totals[1], 0, cost)
        result.context_tokens = int(hctx.extra.get("context_tokens", 0))
        return result
