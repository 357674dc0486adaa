"""Clean requests and responses at the provider boundary.

* Messages keep only the standard keys, and every message carries a ``content`` key: an
  assistant message with tool calls and no text gets ``""`` (a ``None`` is dropped from the
  request on the way out, and chat templates such as llama.cpp's crash on the missing key),
  any other empty content a placeholder.
* ``<think>…</think>`` is taken out of the answer and kept as reasoning.
* Tool-call arguments are parsed leniently (json-repair), but only a JSON *object* is accepted;
  anything else marks the call as failed so it is never executed.
* Anthropic-style prompt caching marks the system prompt and the last tool.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import json_repair

from desktop.core.utils.validate import parse_json

_ALLOWED_KEYS = {
    "system": ("role", "content", "name"),
    "user": ("role", "content", "name"),
    "assistant": ("role", "content", "name", "tool_calls"),
    "tool": ("role", "content", "tool_call_id", "name"),
}
_THINK = re.compile(r"<think>(.*?)</think>", re.DOTALL | re.IGNORECASE)
_OPEN_THINK = re.compile(r"^\s*<think>(.*)$", re.DOTALL | re.IGNORECASE)
EMPTY_PLACEHOLDER = "(empty)"
TOOL_EMPTY_PLACEHOLDER = "(no output)"


def _is_empty(content: Any) -> bool:
    if content is None:
        return True
    if isinstance(content, str):
        return not content.strip()
    if isinstance(content, list):
        return all(
            isinstance(part, dict)
            and part.get("type") == "text"
            and not str(part.get("text", "")).strip()
            for part in content
        )
    return False


def _clean_parts(content: Any) -> Any:
    if not isinstance(content, list):
        return content
    return [
        part
        for part in content
        if not (
            isinstance(part, dict)
            and part.get("type") == "text"
            and not str(part.get("text", "")).strip()
        )
    ]


def sanitize_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return provider-safe copies of ``messages`` (the input is not modified)."""
    cleaned: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role", "user")
        keys = _ALLOWED_KEYS.get(role, ("role", "content"))
        out = {k: copy.deepcopy(message[k]) for k in keys if k in message}
        out["role"] = role
        content = out.get("content")
        if role == "assistant" and out.get("tool_calls"):
            out["content"] = "" if _is_empty(content) else _clean_parts(content)
        elif _is_empty(content):
            out["content"] = TOOL_EMPTY_PLACEHOLDER if role == "tool" else EMPTY_PLACEHOLDER
        else:
            out["content"] = _clean_parts(content)
        if role == "assistant" and "tool_calls" in out and not out["tool_calls"]:
            del out["tool_calls"]
        cleaned.append(out)
    return cleaned


def split_think(text: str | None) -> tuple[str | None, str | None]:
    """Split ``<think>`` blocks out of ``text``.

    Returns:
        ``(content, reasoning)``; either may be ``None`` when empty. An unclosed leading
        ``<think>`` (a model cut off while thinking) counts entirely as reasoning.
    """
    if not text:
        return text, None
    parts = [m.strip() for m in _THINK.findall(text)]
    rest = _THINK.sub("", text)
    unclosed = _OPEN_THINK.match(rest)
    if unclosed:
        parts.append(unclosed.group(1).strip())
        rest = ""
    reasoning = "\n\n".join(p for p in parts if p) or None
    content = rest.strip() if parts or unclosed else rest
    return (content or None), reasoning


def parse_tool_arguments(raw: Any) -> tuple[dict[str, Any], str | None]:
    """Parse tool-call arguments into a dict.

    Returns:
        ``(arguments, error)``: on success ``error`` is ``None``; when the text cannot become a
        JSON object the arguments are ``{}`` and ``error`` explains why (the call must not run).
    """
    if isinstance(raw, dict):
        return raw, None
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}, None
    if not isinstance(raw, str):
        return {}, f"tool arguments must be a JSON object, got {type(raw).__name__}"
    try:
        value = parse_json(raw)
    except ValueError:
        try:
            value = json_repair.loads(raw)
        except Exception:  # noqa: BLE001 - json-repair gives up in several ways
            value = None
    if isinstance(value, dict):
        return value, None
    preview = raw if len(raw) <= 200 else raw[:200] + "…"
    return {}, f"tool arguments are not a valid JSON object: {preview!r}"


def apply_prompt_caching(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]] | None]:
    """Mark the system prompt and the last tool as cacheable (``cache_control: ephemeral``)."""
    marker = {"type": "ephemeral"}
    out_messages = list(messages)
    for index, message in enumerate(out_messages):
        if message.get("role") != "system":
            continue
        content = message.get("content")
        if isinstance(content, str):
            blocks: list[dict[str, Any]] = [
                {"type": "text", "text": content, "cache_control": marker}
            ]
        elif isinstance(content, list) and content:
            blocks = [dict(part) for part in content]
            blocks[-1] = {**blocks[-1], "cache_control": marker}
        else:
            continue
        out_messages[index] = {**message, "content": blocks}
        break
    out_tools = None
    if tools:
        out_tools = list(tools)
        out_tools[-1] = {**out_tools[-1], "cache_control": marker}
    return out_messages, out_tools
