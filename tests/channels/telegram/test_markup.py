"""Markdown → Telegram HTML and the split under 4,096 characters, checked by the same HTML
rules the local Bot API server applies (Telegram's tags and entities, nesting, length)."""

from __future__ import annotations

import random
import re

from desktop.core.channels.telegram.markup import split_pieces, to_html, utf16_len
from tests.channels.telegram.bot_api_server import HtmlError, telegram_text

SAMPLE = """# Plan

Some **bold**, _italic_, ~~gone~~ and `x < y && z` text with <b>raw html</b>.
A [link](https://example.org/?a=1&b="2") and a [bad one](javascript:alert(1)).

- first
- second
  1. nested
  2. again

> quoted
> lines

```python
if a < b:
    print("<tag>")
```

| name | value |
|------|-------|
| a    | 1     |
"""


def test_markdown_becomes_telegrams_html_subset() -> None:
    rendered = to_html(SAMPLE)
    assert rendered == (
        "<b>Plan</b>\n\n"
        "Some <b>bold</b>, <i>italic</i>, <s>gone</s> and <code>x &lt; y &amp;&amp; z</code> "
        "text with &lt;b&gt;raw html&lt;/b&gt;.\n"
        'A <a href="https://example.org/?a=1&amp;b=%222%22">link</a> and a [bad one]'
        "(javascript:alert(1)).\n\n"
        "• first\n• second\n  1. nested\n  2. again\n\n"
        "<blockquote>quoted\nlines</blockquote>\n\n"
        '<pre><code class="language-python">if a &lt; b:\n    print("&lt;tag&gt;")</code></pre>'
        "\n\n<pre>name  value\n────  ─────\na     1</pre>"
    )
    shown = telegram_text(rendered)  # Telegram accepts it
    assert 'print("<tag>")' in shown and "<b>raw html</b>" in shown


def test_the_validator_rejects_what_telegram_rejects() -> None:
    for bad in (
        "<div>x</div>",
        "a < b",
        "x & y",
        "<b>open",
        "<b><i>x</b></i>",
        "<pre><b>x</b></pre>",
    ):
        try:
            telegram_text(bad)
        except HtmlError:
            continue
        raise AssertionError(f"accepted {bad!r}")


def _paragraphs(count: int, words: int) -> str:
    return "\n\n".join(f"Paragraph {i}: " + " ".join(["word"] * words) for i in range(count))


def test_a_long_answer_is_split_between_blocks_and_code_stays_whole() -> None:
    code = "```\n" + "\n".join(f"line {i} <x>" for i in range(40)) + "\n```"
    text = _paragraphs(10, 70) + "\n\n" + code + "\n\n" + _paragraphs(6, 70)
    assert 5000 <= len(text) <= 7000
    pieces = split_pieces(text)
    assert len(pieces) == 2
    for piece in pieces:
        assert utf16_len(piece.html) <= 4096
        telegram_text(piece.html)  # each piece is complete HTML
        assert piece.html.count("<pre>") == piece.html.count("</pre>")
    assert sum("<pre>" in p.html for p in pieces) == 1, "the code block is in one piece"
    shown = "\n\n".join(telegram_text(p.html) for p in pieces)
    assert " ".join(shown.split()) == " ".join(telegram_text(to_html(text)).split()), (
        "nothing lost or repeated"
    )
    assert all(p.markdown.startswith(("Paragraph", "```")) for p in pieces), "cut at a block"


def test_a_code_block_longer_than_a_message_becomes_complete_code_blocks() -> None:
    code = "```sh\n" + "\n".join(f"echo {i} && true" for i in range(600)) + "\n```"
    pieces = split_pieces(code)
    assert len(pieces) >= 3
    lines: list[str] = []
    for piece in pieces:
        assert utf16_len(piece.html) <= 4096
        assert piece.html.startswith('<pre><code class="language-sh">')
        assert piece.html.endswith("</code></pre>")
        lines.extend(telegram_text(piece.html).splitlines())
    assert lines == [f"echo {i} && true" for i in range(600)]


def test_lengths_are_counted_as_telegram_counts_them() -> None:
    emoji = "😀" * 3000  # 3,000 characters, 6,000 UTF-16 units
    pieces = split_pieces(emoji)
    assert len(pieces) == 2 and all(utf16_len(p.html) <= 4096 for p in pieces)
    assert "".join(p.html for p in pieces) == emoji


def test_random_markdown_always_fits_and_parses() -> None:
    rng = random.Random(7)
    atoms = ["word", "**bold**", "_it_", "`a<b`", "[l](https://x.y/z)", "a & b", "<i>", "x > y",
             "# head", "- item", "1. item", "> quote", "|a|b|\n|-|-|\n|1|2|", "~~s~~", "😀"]  # fmt: skip
    for _ in range(12):
        blocks = []
        for _ in range(rng.randint(1, 40)):
            if rng.random() < 0.1:
                body = "\n".join(rng.choice(atoms) for _ in range(rng.randint(1, 60)))
                blocks.append(f"```\n{body}\n```")
            else:
                blocks.append(" ".join(rng.choice(atoms) for _ in range(rng.randint(1, 90))))
        text = "\n\n".join(blocks)
        for piece in split_pieces(text):
            assert utf16_len(piece.html) <= 4096
            telegram_text(piece.html)
            assert not re.search(r"<[a-z]+>$", piece.html), "never ends on an open tag"
