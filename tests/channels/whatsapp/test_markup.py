"""Markdown → WhatsApp markup, and splitting under the message limit."""

from __future__ import annotations

from desktop.core.channels.whatsapp.markup import pieces, to_whatsapp


def test_markdown_becomes_whatsapp_markup() -> None:
    assert to_whatsapp("**bold** __also__ *it* _it_ ~~gone~~") == "*bold* *also* _it_ _it_ ~gone~"
    assert to_whatsapp("## Title ##\ntext") == "*Title*\ntext"
    assert to_whatsapp("[site](https://a.example) ![x](https://b.example/p.png)") == (
        "site (https://a.example) x (https://b.example/p.png)"
    )
    assert to_whatsapp("[https://a.example](https://a.example)") == "https://a.example"
    assert to_whatsapp("* one\n+ two\n- three\n> quoted") == "- one\n- two\n- three\n> quoted"


def test_code_is_left_exactly_as_written() -> None:
    source = "Use `a*b*c` or:\n\n```sh\necho **not bold** [x](y)\n```"
    assert to_whatsapp(source) == "Use `a*b*c` or:\n\n```\necho **not bold** [x](y)\n```"


def test_a_code_block_cut_by_the_limit_is_closed_and_reopened() -> None:
    code = "\n".join(f"line {i:03d}" for i in range(60))  # 60 × 8 characters + newlines
    text = f"intro\n\n```\n{code}\n```\n\noutro"
    parts = pieces(text, limit=200)
    assert len(parts) >= 3 and all(len(p) <= 200 for p in parts)
    assert all(p.count("```") == 2 for p in parts[1:-1]), "middle pieces are whole blocks"
    assert parts[0].startswith("intro") and parts[-1].endswith("outro")
    body = [line for p in parts for line in p.splitlines() if line.startswith("line ")]
    assert body == code.splitlines(), "every code line once, in order"


def test_a_short_text_is_one_piece() -> None:
    assert pieces("hi") == ["hi"]
    assert pieces("x" * 4096) == ["x" * 4096]
    assert [len(p) for p in pieces("x" * 4097)] == [4088, 9]
