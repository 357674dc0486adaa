"""Markdown answers as Feishu cards: headings, tables, code blocks and splitting."""

from __future__ import annotations

import json
from typing import Any

from desktop.core.channels.feishu.cards import CARD_TEXT_LIMIT, markdown_cards, split_markdown
from desktop.core.channels.feishu.inbound import Malformed, read_event, read_post


def test_headings_become_bold_lines_but_not_inside_code() -> None:
    (card,) = markdown_cards("# Plan *now*\nStep one\n```sh\n# a comment\n```")
    assert card["elements"] == [
        {"tag": "div", "text": {"tag": "lark_md", "content": "**Plan now**"}},
        {"tag": "markdown", "content": "Step one\n```sh\n# a comment\n```"},
    ]


def test_a_table_becomes_a_table_element_and_a_second_table_a_second_card() -> None:
    text = "Prices:\n| Item | **Cost** |\n|---|---:|\n| tea | 3 |\n| cake | 5 |\n\nAnd:\n|a|b|\n|-|-|\n|1|2|\n"
    first, second = markdown_cards(text)
    assert first["elements"] == [
        {"tag": "markdown", "content": "Prices:"},
        {
            "tag": "table",
            "page_size": 2,
            "columns": [
                {"name": "c0", "display_name": "Item", "data_type": "text", "width": "auto"},
                {"name": "c1", "display_name": "Cost", "data_type": "text", "width": "auto"},
            ],
            "rows": [{"c0": "tea", "c1": "3"}, {"c0": "cake", "c1": "5"}],
        },
        {"tag": "markdown", "content": "And:"},
    ]
    assert [e["tag"] for e in second["elements"]] == ["table"]
    assert second["elements"][0]["rows"] == [{"c0": "1", "c1": "2"}]


def test_long_answers_split_between_paragraphs_and_code_blocks_stay_blocks() -> None:
    paragraphs = [f"Paragraph {i} " + "word " * 150 for i in range(12)]
    pieces = split_markdown("\n\n".join(paragraphs))
    assert len(pieces) > 1 and all(len(p) <= CARD_TEXT_LIMIT for p in pieces)
    assert " ".join(" ".join(pieces).split()) == " ".join(" ".join(paragraphs).split())
    code = "```python\n" + "\n".join(f"x{i} = {i}" for i in range(900)) + "\n```"
    pieces = split_markdown(code)
    assert len(pieces) > 1
    for piece in pieces:
        assert piece.startswith("```python") and piece.endswith("```"), piece[-20:]
        assert len(piece) <= CARD_TEXT_LIMIT
    cards = markdown_cards(code)
    assert len(json.dumps(cards[0]).encode()) < 30_000


def test_post_messages_are_read_with_links_mentions_code_and_images() -> None:
    post = {
        "title": "Report",
        "content": [
            [
                {"tag": "at", "user_id": "@_user_1", "user_name": "bot"},
                {"tag": "text", "text": " see "},
                {"tag": "a", "text": "docs", "href": "https://example.org/d"},
            ],
            [{"tag": "img", "image_key": "img_v3_1"}],
            [{"tag": "code_block", "language": "PYTHON", "text": "print(1)\n"}],
        ],
    }
    text, images = read_post({"zh_cn": post}, {"@_user_1": ""})
    assert text == "Report\nsee [docs](https://example.org/d)\n```python\nprint(1)\n```"
    assert images == ["img_v3_1"]


def test_a_text_event_resolves_mentions_and_a_broken_one_is_malformed() -> None:
    event: dict[str, Any] = {
        "sender": {"sender_id": {"open_id": "ou_a", "user_id": "u_a"}, "sender_type": "user"},
        "message": {
            "message_id": "om_1",
            "chat_id": "oc_1",
            "chat_type": "group",
            "message_type": "text",
            "content": json.dumps({"text": "@_user_1 ask @_user_2 please"}),
            "mentions": [
                {"key": "@_user_1", "id": {"open_id": "ou_bot"}, "name": "bot"},
                {"key": "@_user_2", "id": {"open_id": "ou_b"}, "name": "Bea"},
            ],
        },
    }
    received = read_event(event, "ou_bot")
    assert received.text == "ask @Bea please" and received.sender == "ou_a|u_a"
    assert received.mentions == ["ou_bot", "ou_b"] and received.chat_type == "group"
    broken: dict[str, Any] | None
    for broken in (
        None,
        {"message": {}},
        {**event, "message": {**event["message"], "content": "{not json"}},
        {**event, "sender": {"sender_id": {}}},
    ):
        try:
            read_event(broken, "ou_bot")
        except Malformed:
            continue
        raise AssertionError(f"accepted {broken!r}")
