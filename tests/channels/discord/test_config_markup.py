"""nanobot's ``channels.discord`` section loads unchanged; markdown conversion and splitting."""

from __future__ import annotations

from pathlib import Path

from desktop.core.channels.discord.markup import split, to_discord
from desktop.core.config.loader import load_config
from desktop.core.config.secret_fields import channel_secret_paths
from tests.conftest import write_config

NANOBOT_SECTION = {
    "enabled": True,
    "token": "MTIz.nanobot-token",
    "allowFrom": ["123456789012345678"],
    "allowChannels": ["223456789012345678"],
    "gatewayUrl": "wss://gateway.discord.gg/?v=10&encoding=json",
    "intents": 37377,
    "groupPolicy": "open",
    "readReceiptEmoji": "✅",
    "workingEmoji": "⏳",
    "workingEmojiDelay": 3.5,
    "streaming": False,
    "proxy": "http://127.0.0.1:7890",
    "proxyUsername": "me",
    "proxyPassword": "secret-pw",
}


def test_nanobots_section_loads_unchanged(tmp_path: Path) -> None:
    path = write_config(tmp_path / "config.json", {"channels": {"discord": NANOBOT_SECTION}})
    section = load_config(path).channels.discord
    dumped = section.model_dump(by_alias=True)
    assert {k: dumped[k] for k in NANOBOT_SECTION} == NANOBOT_SECTION
    assert section.api_base == "https://discord.com/api/v10"
    assert set(channel_secret_paths("discord")) == {
        "channels.discord.token",
        "channels.discord.proxy_password",
    }


def test_markdown_discord_cannot_show_is_rewritten() -> None:
    # (a blank line ends the table: GFM reads a line right below it as one more row)
    text = "#### Totals\n| item | n |\n|---|---:|\n| apples | 3 |\n\n![chart](https://x/c.png)"
    assert to_discord(text) == (
        "**Totals**\n```\nitem    n\n------  -\napples  3\n```\n\n[chart](https://x/c.png)"
    )
    inside = "```md\n#### kept\n| a | b |\n|---|---|\n```"
    assert to_discord(inside) == inside, "code blocks are left alone"


def test_split_reopens_a_cut_fence_with_its_language() -> None:
    code = "```python\n" + "\n".join(f"x = {i}" for i in range(400)) + "\n```"
    pieces = split("Intro.\n\n" + code + "\n\nOutro.", 500)
    assert all(len(p) <= 500 for p in pieces) and len(pieces) > 5
    assert all(p.count("```") == 2 for p in pieces[1:-1])
    assert all(p.startswith("```python\n") and p.endswith("\n```") for p in pieces[1:-1])
    assert pieces[-1].endswith("Outro.")
    lines = [ln for p in pieces for ln in p.splitlines() if ln.startswith("x = ")]
    assert lines == [f"x = {i}" for i in range(400)], "every line once, in order"


def test_split_prefers_paragraphs_and_cuts_long_words() -> None:
    text = "a" * 30 + "\n\n" + "b " * 40 + "\n" + "c" * 130
    pieces = split(text, 100)
    assert pieces[0] == "a" * 30 and all(len(p) <= 100 for p in pieces)
    assert "".join(pieces).replace(" ", "").replace("\n", "") == text.replace(" ", "").replace(
        "\n", ""
    )
