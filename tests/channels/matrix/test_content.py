"""Matrix message content: Markdown answers as HTML, and reading mentions, replies, edits."""

from __future__ import annotations

from desktop.core.channels.matrix.content import (
    HTML_FORMAT,
    is_edit,
    mentions,
    message_content,
    render_html,
    reply_target,
    strip_reply_fallback,
)

BOT = "@bot:example.org"


def test_plain_text_has_no_html_copy() -> None:
    content = message_content("just words & more")
    assert content == {"msgtype": "m.text", "body": "just words & more", "m.mentions": {}}


def test_markdown_becomes_html_with_the_source_as_body() -> None:
    text = "**bold** `code`\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |"
    content = message_content(text)
    assert content["body"] == text and content["format"] == HTML_FORMAT
    html = content["formatted_body"]
    assert "<strong>bold</strong>" in html and "<code>code</code>" in html
    assert "<li>one</li>" in html and "<table>" in html


def test_raw_html_and_unsafe_links_are_not_passed_through() -> None:
    html = render_html("<script>alert(1)</script> **x** [click](javascript:alert(1))")
    assert html is not None
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert 'href="javascript' not in html


def test_progress_is_a_notice_and_a_huge_answer_drops_its_html_copy() -> None:
    assert message_content("working…", notice=True)["msgtype"] == "m.notice"
    huge = message_content("**x** " * 8000)
    assert "formatted_body" not in huge and huge["body"].startswith("**x**")


def test_mentions() -> None:
    assert mentions({"body": "hi", "m.mentions": {"user_ids": [BOT]}}, BOT, room_mentions=False)
    assert not mentions({"body": "hi", "m.mentions": {"user_ids": ["@x:y"]}}, BOT,
                        room_mentions=False)  # fmt: skip
    room = {"body": "@room hi", "m.mentions": {"room": True}}
    assert mentions(room, BOT, room_mentions=True)
    assert not mentions(room, BOT, room_mentions=False)
    assert mentions({"body": f"{BOT}: hi"}, BOT, room_mentions=False)
    pill = {
        "body": "bot: hi",
        "formatted_body": '<a href="https://matrix.to/#/%40bot%3Aexample.org">bot</a>',
    }
    assert mentions(pill, BOT, room_mentions=False)
    assert not mentions(
        {"body": 5, "m.mentions": "x", "formatted_body": 7}, BOT, room_mentions=True
    )


def test_replies_edits_and_fallbacks() -> None:
    reply = {"m.relates_to": {"m.in_reply_to": {"event_id": "$abc"}}}
    assert reply_target(reply) == "$abc"
    assert reply_target({"m.relates_to": 5}) is None
    assert reply_target({"m.relates_to": {"m.in_reply_to": "$abc"}}) is None
    assert is_edit({"m.relates_to": {"rel_type": "m.replace", "event_id": "$a"}})
    assert not is_edit({"m.relates_to": "m.replace"})
    quoted = "> <@alice:x> earlier\n> more\n\nthe actual reply"
    assert strip_reply_fallback(quoted) == "the actual reply"
    assert strip_reply_fallback("> only a quote") == "> only a quote"
    assert strip_reply_fallback("no quote") == "no quote"
