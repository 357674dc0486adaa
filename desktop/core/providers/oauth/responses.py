"""Chat-completions messages to a Responses-API request, and the streamed events back.

The Codex backend speaks the Responses API: system text goes into ``instructions``, the
conversation into ``input`` items (messages, ``function_call``, ``function_call_output``),
tools are flat ``{"type": "function", "name", "parameters"}`` objects, and the answer comes
as server-sent events (``response.output_text.delta``, ``response.output_item.done``,
``response.completed`` …).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from desktop.core.providers.base import LLMError, ToolCallRequest, Usage
from desktop.core.providers.oauth.flow import as_dict
from desktop.core.providers.sanitize import parse_tool_arguments
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text") or "")
            for part in content
            if isinstance(part, dict) and part.get("type") in ("text", "input_text", "output_text")
        )
    return "" if content is None else str(content)


def _user_parts(content: Any) -> list[dict[str, Any]]:
    if not isinstance(content, list):
        return [{"type": "input_text", "text": _text_of(content)}]
    parts: list[dict[str, Any]] = []
    for part in content:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "text":
            parts.append({"type": "input_text", "text": str(part.get("text") or "")})
        elif part.get("type") == "image_url":
            image = part.get("image_url")
            url = image.get("url") if isinstance(image, dict) else image
            if url:
                parts.append({"type": "input_image", "image_url": str(url)})
    return parts or [{"type": "input_text", "text": ""}]


def to_input(messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """``(instructions, input items)`` for ``messages`` in chat-completions form."""
    instructions: list[str] = []
    items: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        content = message.get("content")
        if role in ("system", "developer"):
            text = _text_of(content)
            if text:
                instructions.append(text)
        elif role == "user":
            items.append({"type": "message", "role": "user", "content": _user_parts(content)})
        elif role == "assistant":
            text = _text_of(content)
            if text:
                items.append(
                    {
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": text}],
                    }
                )
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                arguments = function.get("arguments")
                if not isinstance(arguments, str):
                    arguments = json.dumps(arguments or {})
                items.append(
                    {
                        "type": "function_call",
                        "call_id": str(call.get("id") or ""),
                        "name": str(function.get("name") or ""),
                        "arguments": arguments,
                    }
                )
        elif role == "tool":
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": str(message.get("tool_call_id") or ""),
                    "output": _text_of(content),
                }
            )
    return "\n\n".join(instructions), items


def to_tools(tools: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """Chat-completions tool schemas as Responses-API function tools."""
    converted: list[dict[str, Any]] = []
    for tool in tools or []:
        function = tool.get("function") if tool.get("type") == "function" else None
        if not isinstance(function, dict):
            continue
        converted.append(
            {
                "type": "function",
                "name": function.get("name"),
                "description": function.get("description") or "",
                "parameters": function.get("parameters") or {"type": "object", "properties": {}},
            }
        )
    return converted


def to_tool_choice(choice: str | dict[str, Any] | None) -> str | dict[str, Any]:
    """``tool_choice`` in Responses form (a named function becomes ``{"type", "name"}``)."""
    if isinstance(choice, dict):
        function = choice.get("function") or {}
        name = function.get("name") if isinstance(function, dict) else None
        return {"type": "function", "name": name} if name else "auto"
    return choice or "auto"


@dataclass
class StreamState:
    """What the events of one response have said so far."""

    text: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    calls: dict[str, dict[str, str]] = field(default_factory=dict)  # item id → call
    order: list[str] = field(default_factory=list)
    finish: str | None = None
    usage: Usage = field(default_factory=Usage)

    def tool_calls(self) -> list[ToolCallRequest]:
        """The finished tool calls, in the order they started."""
        result = []
        for index, key in enumerate(self.order):
            call = self.calls[key]
            arguments, error = parse_tool_arguments(call.get("arguments") or "")
            result.append(
                ToolCallRequest(
                    call.get("call_id") or f"call_{index}", call.get("name") or "", arguments, error
                )
            )
        return result


def _usage(raw: Any) -> Usage:
    if not isinstance(raw, dict):
        return Usage()
    details = raw.get("input_tokens_details") or {}
    return Usage(
        prompt_tokens=int(raw.get("input_tokens") or 0),
        completion_tokens=int(raw.get("output_tokens") or 0),
        cached_tokens=int(details.get("cached_tokens") or 0) if isinstance(details, dict) else 0,
    )


def _failure(event: dict[str, Any]) -> LLMError:
    error = as_dict(as_dict(event.get("response")).get("error"))
    if not error:
        error = as_dict(event.get("error")) or event
    code = str(error.get("code") or error.get("type") or "")
    message = str(error.get("message") or "the model call failed")
    lowered = f"{code} {message}".lower()
    if "rate_limit" in lowered or "usage_limit" in lowered or "quota" in lowered:
        return LLMError(
            Phrase(QT_TR_NOOP("ChatGPT usage limit reached: {reason}"), reason=message),
            kind="quota",
            details=f"{code}: {message}",
        )
    return LLMError(
        Phrase(QT_TR_NOOP("The model call failed: {reason}"), reason=message),
        kind="server",
        retryable=code in ("server_error", "internal_error"),
        details=f"{code}: {message}",
    )


def apply_event(state: StreamState, event: dict[str, Any]) -> tuple[str, str] | None:  # noqa: C901  # one branch per Responses API event type
    """Fold one event into ``state``; returns ``(kind, text)`` to show, if any.

    Raises:
        LLMError: The event reports a failed response.
    """
    kind = event.get("type")
    if kind == "response.output_text.delta":
        delta = str(event.get("delta") or "")
        if delta:
            state.text.append(delta)
            return "text", delta
    elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
        delta = str(event.get("delta") or "")
        if delta:
            state.reasoning.append(delta)
            return "reasoning", delta
    elif kind in ("response.output_item.added", "response.output_item.done"):
        item = as_dict(event.get("item"))
        if item.get("type") == "function_call":
            key = str(item.get("id") or item.get("call_id") or len(state.order))
            if key not in state.calls:
                state.calls[key] = {"call_id": "", "name": "", "arguments": ""}
                state.order.append(key)
            call = state.calls[key]
            call["call_id"] = str(item.get("call_id") or call["call_id"])
            call["name"] = str(item.get("name") or call["name"])
            if kind == "response.output_item.done" and isinstance(item.get("arguments"), str):
                call["arguments"] = item["arguments"]
    elif kind == "response.function_call_arguments.delta":
        key = str(event.get("item_id") or "")
        if key in state.calls:
            state.calls[key]["arguments"] += str(event.get("delta") or "")
    elif kind == "response.function_call_arguments.done":
        key = str(event.get("item_id") or "")
        if key in state.calls and isinstance(event.get("arguments"), str):
            state.calls[key]["arguments"] = event["arguments"]
    elif kind in ("response.completed", "response.incomplete", "response.done"):
        response = as_dict(event.get("response"))
        state.usage = _usage(response.get("usage"))
        if kind == "response.incomplete":
            state.finish = "length"
        else:
            state.finish = "tool_calls" if state.calls else "stop"
    elif kind in ("response.failed", "error"):
        raise _failure(event)
    return None
