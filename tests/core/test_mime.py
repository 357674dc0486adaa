"""Media types looked up without blocking the loop (desktop/core/utils/mime.py)."""

from __future__ import annotations

import asyncio
import mimetypes
from pathlib import Path

import pytest

from desktop.core.utils import mime


@pytest.fixture
def unread_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """The process has not read the system's type tables yet."""
    monkeypatch.setattr(mimetypes, "inited", False)
    monkeypatch.setattr(mimetypes, "_db", None)
    monkeypatch.setattr(mime, "_loaded", False)


async def test_the_tables_are_read_once_in_a_worker(unread_tables: None) -> None:
    """Concurrent first lookups read the tables in a worker (the blocking guard watches) and
    then answer from memory."""
    found = await asyncio.gather(
        mime.guess_type("photo.PNG"),
        mime.guess_type(Path("/tmp/notes.txt")),
        mime.guess_type("no-extension"),
        mime.guess_extension("application/pdf"),
    )
    assert list(found) == ["image/png", "text/plain", None, ".pdf"]
    assert mimetypes.inited
