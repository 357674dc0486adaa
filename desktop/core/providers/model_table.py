"""LiteLLM's model table (prices and context windows) read as a data file, without LiteLLM.

LiteLLM ships its table as ``model_prices_and_context_window_backup.json`` beside its own
code; the LiteLLM path prices calls from it (``litellm.cost_per_token``) and the context-window
fallback reads it (``litellm.get_model_info``). Providers that never import LiteLLM (the thin
OpenAI-SDK path) read the same file here, without LiteLLM (≈200 MB and seconds to import): each
model asked for is found in the file's text and only its own entry decoded (a few ms; the whole
table parsed would stay resident, ≈4 MB), then remembered.

A model is looked up as LiteLLM's route spells it (``openrouter/anthropic/claude-x``), then
without its route prefix (``openai/gpt-4o`` → ``gpt-4o``), as LiteLLM does for its own
providers. The price is prompt and completion tokens at the table's per-token rates (what
``cost_per_token`` gives for those two counts; tiered prices above a prompt size are not
applied).
"""

from __future__ import annotations

import importlib.util
import json
import logging
import mmap
import sys
import threading
from pathlib import Path
from typing import NamedTuple

log = logging.getLogger(__name__)

TABLE_FILE = "model_prices_and_context_window_backup.json"


class ModelFacts(NamedTuple):
    """What the table says about one model (``None``: not said)."""

    input_cost: float | None
    output_cost: float | None
    window: int | None


_facts: dict[str, ModelFacts | None] = {}
_lock = threading.Lock()


def table_path() -> Path | None:
    """Where LiteLLM's bundled table is (``None``: LiteLLM is not installed).

    ``find_spec`` locates the package without importing it.
    """
    roots: list[Path] = []
    try:
        spec = importlib.util.find_spec("litellm")
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.origin:
        roots.append(Path(spec.origin).parent)
    bundle = getattr(sys, "_MEIPASS", None)  # the frozen app keeps data files there
    if bundle:
        roots.append(Path(bundle) / "litellm")
    for root in roots:
        candidate = root / TABLE_FILE
        if candidate.is_file():
            return candidate
    return None


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _window(entry: dict[str, object]) -> int | None:
    for key in ("max_input_tokens", "max_tokens"):
        value = entry.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


_ENTRY_BYTES = 65536  # far more than any one entry of the table


def _entry(table: mmap.mmap, name: str) -> dict[str, object] | None:
    """The entry of model ``name``, found in the mapped file and decoded alone.

    Parsing the whole table kept ≈4 MB resident for the one or two models a person uses, and
    even reading it into a string left the heap grown by a few MB; the mapping is released
    when the lookup ends.
    """
    needle = json.dumps(name, ensure_ascii=False).encode()
    decoder = json.JSONDecoder()
    size = len(table)
    at = table.find(needle)
    while at >= 0 and name != "sample_spec":  # the table's own field documentation
        before = at - 1
        while before >= 0 and table[before : before + 1].isspace():
            before -= 1
        after = at + len(needle)
        while after < size and table[after : after + 1].isspace():
            after += 1
        if (
            before >= 0
            and table[before : before + 1] in (b"{", b",")
            and (table[after : after + 1] == b":")
        ):
            chunk = table[after + 1 : after + 1 + _ENTRY_BYTES].decode("utf-8", "replace")
            try:
                value, _end = decoder.raw_decode(chunk.lstrip())
            except ValueError:
                value = None
            # A model's own entry names its provider; a field of the same name inside
            # another entry does not.
            if isinstance(value, dict) and "litellm_provider" in value:
                return value
        at = table.find(needle, at + len(needle))
    return None


def _facts_of(entry: dict[str, object] | None) -> ModelFacts | None:
    if entry is None:
        return None
    return ModelFacts(
        _number(entry.get("input_cost_per_token")),
        _number(entry.get("output_cost_per_token")),
        _window(entry),
    )


def known(model: str) -> bool:
    """Whether ``model`` has been looked up already (:func:`lookup` will not read the file)."""
    return model.lower() in _facts


def lookup(model: str) -> ModelFacts | None:
    """The facts of ``model`` as a LiteLLM route names it (``None``: not in the table).

    Blocking the first time for each model (it searches the file, ≈2 MB): call it in a
    thread.
    """
    key = model.lower()
    with _lock:
        if key in _facts:
            return _facts[key]
    names = [model, key]
    if "/" in model:
        names += [model.split("/", 1)[1], key.split("/", 1)[1]]
    found = None
    path = table_path()
    try:
        if path is None:
            raise FileNotFoundError("LiteLLM is not installed")
        with path.open("rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as table:
            for name in dict.fromkeys(names):
                found = _facts_of(_entry(table, name))
                if found is not None:
                    break
    except (OSError, ValueError) as exc:  # missing, unreadable or empty: no prices, no windows
        log.debug("LiteLLM's model table cannot be read: %s", exc)
    with _lock:
        _facts[key] = found
    return found


def price(model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """Dollars for so many tokens of ``model`` (``None``: the table has no price for it)."""
    facts = lookup(model)
    if facts is None or facts.input_cost is None or facts.output_cost is None:
        return None
    return prompt_tokens * facts.input_cost + completion_tokens * facts.output_cost


def context_window(model: str) -> int | None:
    """``max_input_tokens`` (else ``max_tokens``) of ``model`` from the table."""
    facts = lookup(model)
    return facts.window if facts is not None else None
