"""Markdown rendering (no Qt): tables, highlighted code with copy links, links, escaping."""

from __future__ import annotations

from typing import Any

from desktop.ui.chat.items import ChatItem, items_from_messages
from desktop.ui.chat.markdown import COPY_CODE, DARK, LIGHT, MarkdownRenderer, split_stable


def test_table_code_and_links() -> None:
    """GFM tables, fenced code with Pygments colours and a Copy link, bare and explicit links."""
    text = (
        "See https://example.com/a?b=1. and [docs](https://docs.example.org).\n\n"
        "| a | b |\n|---|--:|\n| 1 | 2 |\n\n"
        "```python\ndef f():\n    return 1\n```\n\n"
        "`code https://not-a-link.example`"
    )
    rendered = MarkdownRenderer(LIGHT).render(text)
    html = rendered.html
    assert '<a href="https://example.com/a?b=1">' in html  # trailing "." not part of the URL
    assert '<a href="https://docs.example.org">docs</a>' in html
    assert '<table border="1"' in html and "<th" in html and '<td align="right">2</td>' in html
    assert f'href="{COPY_CODE}0"' in html and rendered.code_blocks == ["def f():\n    return 1"]
    assert '<span style="color:' in html  # highlighted
    assert 'href="https://not-a-link' not in html


def test_raw_html_is_escaped_and_themes_differ() -> None:
    """Messages cannot inject markup; dark and light use different code colours."""
    html = MarkdownRenderer(LIGHT).render("<b>x</b><script>alert(1)</script>").html
    assert "<script>" not in html and "&lt;script&gt;" in html
    code = "```python\nx = 1\n```"
    assert MarkdownRenderer(LIGHT).render(code).html != MarkdownRenderer(DARK).render(code).html


def test_unknown_language_and_streaming_without_highlight() -> None:
    """Unknown languages are escaped plain text; streams can skip Pygments."""
    rendered = MarkdownRenderer().render("```nosuchlang\n<x> & y\n```")
    assert "&lt;x&gt; &amp; y" in rendered.html
    fast = MarkdownRenderer().render("```python\nx = 1\n```", highlight_code_blocks=False)
    assert 'font-family:monospace">x = 1</pre>' in fast.html


def test_split_stable_keeps_open_fences_in_the_tail() -> None:
    """Blank lines split finished blocks, except inside an unfinished fence."""
    stable, tail = split_stable("para one\n\npara two\n\n```py\nx = 1\n\ny = 2\n")
    assert stable == ["para one\n\n", "para two\n\n"]
    assert tail.startswith("```py") and "y = 2" in tail
    stable, tail = split_stable("a\n\n```\nb\n```\n\nc")
    assert stable == ["a\n\n", "```\nb\n```\n\n"] and tail == "c"
    assert "".join(split_stable("x\n\ny\n\n")[0]) + split_stable("x\n\ny\n\n")[1] == "x\n\ny\n\n"


def test_items_from_a_saved_session() -> None:
    """Reasoning, text and one card per call; results fill cards; subagent reports marked."""
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "hi", "media": ["/tmp/a.png"]},
        {
            "role": "assistant",
            "content": "Checking.",
            "reasoning_content": "think",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path": "a.md"}'},
                },
                {
                    "id": "c2",
                    "type": "function",
                    "function": {"name": "exec", "arguments": '{"command": "ls"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "name": "read_file", "content": "file text"},
        {"role": "tool", "tool_call_id": "c2", "name": "exec", "content": "Error: boom"},
        {"role": "assistant", "content": "Done."},
        {"role": "user", "content": "[Subagent 'x' completed]", "subagent": "sub-1"},
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Summary."}],
            "tool_calls": [
                {
                    "id": "c3",
                    "type": "function",
                    "function": {"name": "exec", "arguments": "not json"},
                }
            ],
        },
    ]
    items = items_from_messages(messages)
    assert [i.kind for i in items] == [
        "user",
        "reasoning",
        "assistant",
        "tool",
        "tool",
        "assistant",
        "subagent",
        "assistant",
        "tool",
    ]
    assert items[0].media == ["/tmp/a.png"]
    assert (
        items[3].ok is True
        and items[3].result == "file text"
        and items[3].arguments == {"path": "a.md"}
    )
    assert items[4].ok is False
    assert items[8].ok is False and "interrupted" in items[8].result  # never finished
    assert items[8].arguments == {"(unparsed)": "not json"}
    live = items_from_messages(messages, live=True)
    assert live[8].ok is None and live[8].running
    assert (
        ChatItem("tool", tool="exec", arguments={"command": "ls"}, result="out")
        .plain_text()
        .startswith("exec\n{")
    )
