"""The damage corpus: bad JSON values and bad file shapes the readers must survive.

Values are raw JSON text, so the corpus can hold what ``json.dumps`` never writes (``NaN``,
lone surrogates, nesting bombs). :data:`FRAGMENTS` maps a name to a fragment; each format's
test decides per field which fragments are valid.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from desktop.core.utils import validate

DEEP = 150  # deeper than validate.MAX_DEPTH, shallow enough for json to parse
BOMB = 100_000  # far beyond json's recursion limit

FRAGMENTS: dict[str, str] = {
    "null": "null",
    "true": "true",
    "false": "false",
    "zero": "0",
    "negative": "-1",
    "float": "1.5",
    "huge_int": "1" + "0" * 30,
    "endless_int": "9" * 5000,  # over Python's int-from-text limit: the text cannot be used
    "text": '"x"',
    "empty_text": '""',
    "list": "[1, 2]",
    "object": '{"a": 1}',
    "nan": "NaN",
    "infinity": "-Infinity",
    "surrogate": '"\\ud800"',
    "deep": "[" * DEEP + "]" * DEEP,
    "bomb": "[" * BOMB,
}

# Fragments after which the whole line/file is not JSON Python can use at all.
UNPARSEABLE = {"endless_int", "bomb"}
# Fragments the tolerant reader removes (the rest of a document is kept).
SCRUBBED = {"nan", "infinity", "surrogate", "deep"}


def line_with(template: dict[str, Any], field: str, fragment: str) -> bytes:
    """``template`` as one JSON line with ``field`` set to the raw ``fragment``."""
    marker = "__FIELD_MARKER__"
    data = {**template, field: marker}
    text = json.dumps(data, ensure_ascii=False).replace(json.dumps(marker), fragment)
    return text.encode("utf-8") + b"\n"


def nested_with(template: dict[str, Any], path: tuple[str, ...], fragment: str) -> bytes:
    """``template`` as JSON with the value at ``path`` replaced by the raw ``fragment``."""
    marker = "__FIELD_MARKER__"
    data = json.loads(json.dumps(template))
    node = data
    for part in path[:-1]:
        node = node.setdefault(part, {})
    node[path[-1]] = marker
    return json.dumps(data, ensure_ascii=False).replace(json.dumps(marker), fragment).encode()


def fragment_ids() -> list[str]:
    """The fragment names, in a stable order."""
    return list(FRAGMENTS)


def asides(path: Path) -> list[Path]:
    """Copies set aside beside ``path`` (``<name>.corrupt-*``), oldest name first."""
    return sorted(path.parent.glob(f"{path.name}.corrupt-*"))


def aside_bytes(path: Path) -> bytes:
    """The bytes of all copies set aside beside ``path``."""
    return b"".join(p.read_bytes() for p in asides(path) if p.is_file())


def notices(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The notices logged so far in this test."""
    return [r.getMessage() for r in caplog.records if r.name == validate.NOTICE_LOGGER]


def make_fifo(path: Path) -> None:
    """A FIFO at ``path`` (a reader that opens it naively blocks forever)."""
    os.mkfifo(path)
