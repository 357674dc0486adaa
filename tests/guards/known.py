"""Leaks and blocking calls the guards found that are not fixed yet: one entry per test.

This is a list of debts, not of exemptions: each names the test, what it leaves behind or
blocks on, and where the fix belongs. The guards skip their check for exactly these tests
(every other test is checked in full), so the list can only shrink: delete an entry once its
cause is fixed. Category-wide exemptions with a reason live in ``leaks.py``/``blocking.py``.
"""

from __future__ import annotations

import pytest

# node id prefix -> what is left and where the fix belongs
LEAKS: dict[str, str] = {}

BLOCKING: dict[str, str] = {}


def debt(table: dict[str, str], item: pytest.Item) -> str | None:
    """The listed debt for ``item`` in ``table``, if any."""
    nodeid = item.nodeid.replace("\\", "/")
    return next((why for prefix, why in table.items() if nodeid.startswith(prefix)), None)
