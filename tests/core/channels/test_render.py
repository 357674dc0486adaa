"""The one markdown renderer: nesting and escaping cases the per-platform regexes got wrong,
and a rule set as a small table."""

from __future__ import annotations

from dataclasses import replace

import pytest

from desktop.core.channels.dingtalk.markup import convert
from desktop.core.channels.discord.markup import to_discord
from desktop.core.channels.feishu.cards import elements
from desktop.core.channels.render import MARKDOWN, PLAIN, Rules, plain_text, render
from desktop.core.channels.render.styles import styled_text
from desktop.core.channels.slack.mrkdwn import to_mrkdwn
from desktop.core.channels.whatsapp.markup import to_whatsapp


@pytest.mark.parametrize(
    ("markdown", "mrkdwn"),
    [
        # a ")" inside the link target: the regex cut the URL at it
        (
            "[wiki](https://en.wikipedia.org/wiki/Foo_(bar))",
            "<https://en.wikipedia.org/wiki/Foo_(bar)|wiki>",
        ),
        # markup inside a link's label: the regex kept the label's ** as they were
        ("[**x**](https://u.example)", "<https://u.example|*x*>"),
        # bold and italic at once: the regex left "**both**"
        ("***both***", "_*both*_"),
        # an indented code block is code: the regex turned *x* into italics
        ("    *x* = 1 < 2", "```\n*x* = 1 &lt; 2\n```"),
        # a fence inside a list item stays inside the item (the regex un-indented it)
        (
            "1. step\n   ```\n   a*b* <\n   ```\n2. next",
            "1. step\n    ```\n    a*b* &lt;\n    ```\n2. next",
        ),
    ],
)
def test_slack_cases_the_regexes_got_wrong(markdown: str, mrkdwn: str) -> None:
    assert to_mrkdwn(markdown) == mrkdwn


@pytest.mark.parametrize(
    ("markdown", "text"),
    [
        ("***both***", "_*both*_"),
        # a ~~~ fence is code too: the regex made its **x** bold and kept the tildes
        ("~~~\n**x** < 1\n~~~", "```\n**x** < 1\n```"),
        ("    *x* = 1", "```\n*x* = 1\n```"),
        # the closing fence of a code block inside a list item lost its indentation
        ("1. step\n   ```\n   a*b*\n   ```\n2. next", "1. step\n  ```\n  a*b*\n  ```\n2. next"),
    ],
)
def test_whatsapp_cases_the_regexes_got_wrong(markdown: str, text: str) -> None:
    assert to_whatsapp(markdown) == text


@pytest.mark.parametrize(
    ("markdown", "mrkdwn"),
    [
        ("**bold `code` inside**", "*bold `code` inside*"),
        (
            "snake_case_name and https://x.org/a_b_c/ and _it_",
            "snake_case_name and https://x.org/a_b_c/ and _it_",
        ),
        ("`a < b && c`", "`a &lt; b &amp;&amp; c`"),
        ("**not closed and *half", "**not closed and *half"),
        ("- a\n  1. b\n     - c", "• a\n    1. b\n        • c"),
        ("**[link](https://a.example)**", "*<https://a.example|link>*"),
        ("# A **bold** title", "*A bold title*"),
        ("<https://x.org/?q=a&b>", "<https://x.org/?q=a&b>"),
    ],
)
def test_nesting_and_escaping_stay_right(markdown: str, mrkdwn: str) -> None:
    assert to_mrkdwn(markdown) == mrkdwn


def test_blocks_are_separated_as_in_the_source() -> None:
    source = "# Title\ntext\n\n- a\n- b\n\nafter\n\n\n\nend"
    assert render(source, MARKDOWN) == "# Title\ntext\n\n- a\n- b\n\nafter\n\nend"


def test_markdown_written_back_keeps_code_and_odd_link_targets() -> None:
    assert render("[x](https://a.example/b_(c))", MARKDOWN) == "[x](https://a.example/b_%28c%29)"
    assert render("`` a ` b ``", MARKDOWN) == "``a ` b``"
    assert render("```\nx ``` y\n```", MARKDOWN) == "````\nx ``` y\n````"


def test_plain_text_has_no_marks() -> None:
    source = (
        "## Head\n**b** _i_ ~~s~~ `c` [l](https://l.example)\n\n| A | B |\n|---|---|\n| 1 | 2 |"
    )
    assert plain_text(source) == "Head\nb i s c l (https://l.example)\n\nA: 1 · B: 2"


def test_a_new_platform_is_a_few_lines() -> None:
    shouty = replace(PLAIN, name="shouty", escape=str.upper, strong=("!", "!"))
    assert render("hi **there** `code`", shouty) == "HI !THERE! code"
    bare = Rules(name="bare", bullet="*", ordered=lambda n: f"{n})")
    assert render("- a\n- b\n\n3. c\n4. d", bare) == "* a\n* b\n\n3) c\n4) d"


@pytest.mark.parametrize(
    ("markdown", "text"),
    [
        # code is kept as written: the regex took ~~ out of a ~~~ block, inline code and an
        # indented block
        ("~~~\n~~x~~\n~~~", "```\n~~x~~\n```"),
        ("`a ~~b~~ c`", "`a ~~b~~ c`"),
        ("    ~~x~~ indented", "```\n~~x~~ indented\n```"),
        # a table inside a list item stays inside it
        ("- ~~a~~\n\n  | x | y |\n  |---|---|\n  | 1 | 2 |", "- a\n\n  x | y\n  1 | 2"),
    ],
)
def test_dingtalk_cases_the_regexes_got_wrong(markdown: str, text: str) -> None:
    assert convert(markdown) == text


@pytest.mark.parametrize(
    ("markdown", "text"),
    [
        # __x__ is underline on Discord: bold is written **x** (the regex passed __ through)
        ("__bold__ here", "**bold** here"),
        # a level-4 heading or a table nested in a list item or a quote is still rewritten
        ("- item\n\n  #### deep", "- item\n\n  **deep**"),
        ("> | a | b |\n> |---|---|\n> | 1 | 2 |", "> ```\n> a  b\n> -  -\n> 1  2\n> ```"),
    ],
)
def test_discord_cases_the_regexes_got_wrong(markdown: str, text: str) -> None:
    assert to_discord(markdown) == text


def test_feishu_cases_the_regexes_got_wrong() -> None:
    # a table inside a code block is code, not a card table (the regex cut the block apart)
    code = "```md\n| a | b |\n|---|---|\n| 1 | 2 |\n```"
    assert elements(code) == [{"tag": "markdown", "content": code}]
    # underscores inside words and code stay in a heading (the regex took them as italics)
    assert elements("# Title with `code_x` and snake_case") == [
        {
            "tag": "div",
            "text": {"tag": "lark_md", "content": "**Title with code_x and snake_case**"},
        }
    ]
    # an indented code block stays code in the card's markdown
    assert elements("    # indented code") == [
        {"tag": "markdown", "content": "```\n# indented code\n```"}
    ]


def test_style_ranges_for_platforms_that_style_by_offsets() -> None:
    text, ranges = styled_text("**bold `code` inside** and _it_ 😀 ~~gone~~")
    assert text == "bold code inside and it 😀 gone"
    assert [r.signal() for r in ranges] == [
        "5:4:MONOSPACE",
        "0:16:BOLD",
        "21:2:ITALIC",
        "27:4:STRIKETHROUGH",  # the emoji before it is two UTF-16 units
    ]
    text, ranges = styled_text("# Head\n\n```\nx = 1\n```\n\nsneaky \ue000 mark")
    assert text == "Head\n\nx = 1\n\nsneaky  mark"
    assert [r.signal() for r in ranges] == ["0:4:BOLD", "6:5:MONOSPACE"]
