"""The well-known MCP servers offered in Settings."""

from __future__ import annotations

import re

from desktop.core.config.mcp_headers import is_secret_header
from desktop.core.tools.mcp.presets import PRESETS, find_preset, placeholders
from desktop.core.tools.mcp.transport import detect_transport


def test_presets_are_usable_entries() -> None:
    names = [preset.name for preset in PRESETS]
    assert len(set(names)) == len(names) and 5 <= len(names) <= 12
    for preset in PRESETS:
        assert re.fullmatch(r"[a-z0-9][a-z0-9_-]{0,63}", preset.name)  # as nanobot names them
        assert preset.description and preset.needs and preset.docs_url.startswith("https://")
        kind = detect_transport(preset.entry)
        assert (kind == "stdio") == bool(preset.entry.command), preset.name
        assert preset.where == (
            preset.entry.url or " ".join([preset.entry.command, *preset.entry.args])
        )
        # A credential the person types goes into a header (kept in the keyring), never into
        # arguments or the environment (stored as plain text in config.json).
        assert not placeholders([*preset.entry.env.values()])
        for header, value in preset.entry.headers.items():
            assert not placeholders([value]) or is_secret_header(header)
    assert find_preset("github") is PRESETS[[p.name for p in PRESETS].index("github")]
    assert find_preset("nope") is None


def test_placeholders() -> None:
    assert placeholders(["Bearer <token>", "plain", "<a> and <b c>"]) == ["<token>", "<a>", "<b c>"]
    assert placeholders(["a < b > c"]) == ["< b >"]
    assert placeholders(["x<>y", "1 < 2"]) == []
