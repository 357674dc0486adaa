"""Leaks and blocking calls the guards found that are not fixed yet: one entry per test.

This is a list of debts, not of exemptions: each names the test, what it leaves behind or
blocks on, and where the fix belongs. The guards skip their check for exactly these tests
(every other test is checked in full), so the list can only shrink: delete an entry once its
cause is fixed. Category-wide exemptions with a reason live in ``leaks.py``/``blocking.py``.
"""

from __future__ import annotations

import pytest

# node id prefix -> what is left and where the fix belongs
LEAKS: dict[str, str] = {
    "tests/ui/settings/test_mcp.py::test_claude_desktop_import_reviews_every_server": (
        "the MCP servers connected for the import review are not closed (ServerConnection "
        "tasks, the SDK's stdio reader/writer)"
    ),
    "tests/channels/discord/test_discord_gateway.py::test_the_status_follows_a_lost": (
        "discord.py's ConnectionState._delay_ready task after a lost gateway connection"
    ),
}

BLOCKING: dict[str, str] = {}


def debt(table: dict[str, str], item: pytest.Item) -> str | None:
    """The listed debt for ``item`` in ``table``, if any."""
    nodeid = item.nodeid.replace("\\", "/")
    return next((why for prefix, why in table.items() if nodeid.startswith(prefix)), None)
