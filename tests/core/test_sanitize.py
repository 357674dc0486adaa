"""Request/response cleaning at the provider boundary."""

from __future__ import annotations

import random
from typing import Any

import pytest

from desktop.core.providers.sanitize import (
    apply_prompt_caching,
    parse_tool_arguments,
    sanitize_messages,
    split_think,
)
from desktop.core.providers.think import ThinkSplitter


def test_only_standard_keys_survive() -> None:
    """Timestamps, reasoning and other bookkeeping never reach the provider."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "s", "timestamp": "t"},
        {"role": "user", "content": "u", "timestamp": "t", "media": ["x"]},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
            "reasoning_content": "r",
        },
        {"role": "tool", "content": "", "tool_call_id": "1", "name": "f", "duration": 3},
        {"role": "assistant", "content": "  ", "tool_calls": []},
    ]
    out = sanitize_messages(messages)
    assert out[0] == {"role": "system", "content": "s"}
    assert out[1] == {"role": "user", "content": "u"}
    assert out[2]["content"] == "" and "reasoning_content" not in out[2]
    assert out[3] == {"role": "tool", "content": "(no output)", "tool_call_id": "1", "name": "f"}
    assert out[4] == {"role": "assistant", "content": "(empty)"}
    assert messages[2]["content"] == ""  # input untouched


def test_empty_text_parts_are_dropped_but_images_kept() -> None:
    """Multimodal content keeps images and non-empty text."""
    content = [
        {"type": "text", "text": ""},
        {"type": "image_url", "image_url": {"url": "data:x"}},
        {"type": "text", "text": "look"},
    ]
    out = sanitize_messages([{"role": "user", "content": content}])
    assert out[0]["content"] == [content[1], content[2]]


@pytest.mark.parametrize(
    ("text", "content", "reasoning"),
    [
        ("plain", "plain", None),
        ("<think>plan</think>Answer", "Answer", "plan"),
        ("<THINK>a</THINK>x<think>b</think>y", "xy", "a\n\nb"),
        ("<think>cut off while thin", None, "cut off while thin"),
        ("", "", None),
    ],
)
def test_split_think(text: str, content: str | None, reasoning: str | None) -> None:
    """<think> blocks become reasoning."""
    assert split_think(text) == (content, reasoning)


def test_stream_splitter_handles_tags_split_across_chunks() -> None:
    """Any chunking of the stream gives the same content and reasoning."""
    text = "Hi <think>inner <b> thoughts</think> there <thin and more <think>x</think>!"
    expected_text = "Hi  there <thin and more !"
    expected_reasoning = "inner <b> thoughtsx"
    rng = random.Random(7)
    for _ in range(200):
        cuts = sorted(rng.sample(range(1, len(text)), rng.randint(1, 12)))
        chunks = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
        splitter = ThinkSplitter()
        pieces = [p for c in chunks for p in splitter.feed(c)] + splitter.flush()
        assert "".join(t for k, t in pieces if k == "text") == expected_text
        assert "".join(t for k, t in pieces if k == "reasoning") == expected_reasoning


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ({"a": 1}, {"a": 1}),
        ("", {}),
        (None, {}),
        ("{'path': 'x.txt',}", {"path": "x.txt"}),
        ('{"a": 1, "b": "unterminated', {"a": 1, "b": "unterminated"}),
    ],
)
def test_tool_arguments_repaired(raw: object, expected: dict[str, object]) -> None:
    """Lenient parsing when the result is an object."""
    assert parse_tool_arguments(raw) == (expected, None)


@pytest.mark.parametrize("raw", ["[1, 2]", '"just a string"', "42", "not json at all", 17])
def test_tool_arguments_that_are_not_objects_fail(raw: object) -> None:
    """Anything that cannot become an object is an error: the call must not run."""
    arguments, error = parse_tool_arguments(raw)
    assert arguments == {} and error and "object" in error


def test_prompt_caching_marks_system_and_last_tool() -> None:
    """cache_control on the system block and the last tool only; inputs untouched."""
    messages = [{"role": "system", "content": "sys"}, {"role": "user", "content": "u"}]
    tools = [
        {"type": "function", "function": {"name": "a"}},
        {"type": "function", "function": {"name": "b"}},
    ]
    out_messages, out_tools = apply_prompt_caching(messages, tools)
    assert out_messages[0]["content"] == [
        {"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}
    ]
    assert out_messages[1] == messages[1]
    assert (
        out_tools is not None
        and "cache_control" not in out_tools[0]
        and out_tools[1]["cache_control"]
    )
    assert messages[0]["content"] == "sys" and "cache_control" not in tools[1]
