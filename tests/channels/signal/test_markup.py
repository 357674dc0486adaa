"""Markdown as Signal text styles: ranges in UTF-16 units, rebased on every split piece."""

from __future__ import annotations

from desktop.core.channels.signal.markup import pieces, to_signal


def test_styles_count_utf16_units_after_emoji() -> None:
    text, styles = to_signal("😀 **hi** ~~no~~ _it_")
    assert text == "😀 hi no it"
    assert styles == ["3:2:BOLD", "6:2:STRIKETHROUGH", "9:2:ITALIC"]


def test_code_blocks_lists_quotes_and_links() -> None:
    text, styles = to_signal("- one\n> said\n```py\nx = *1*\n```\n[https://a.b](https://a.b)")
    assert text == "• one\nsaid\nx = *1*\nhttps://a.b"
    assert styles == ["11:7:MONOSPACE"]


def test_a_range_cut_by_a_split_goes_on_in_the_next_piece() -> None:
    found = pieces("**" + "abc " * 9 + "abc**", limit=20)
    assert [t for t, _ in found] == ["abc abc abc abc abc", "abc abc abc abc abc"]
    assert [s for _, s in found] == [["0:19:BOLD"], ["0:19:BOLD"]]
    assert pieces("   ") == []
