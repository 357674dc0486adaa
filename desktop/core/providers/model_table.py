"""LiteLLM's model table (prices and context windows) read as a data file, without LiteLLM.

LiteLLM ships its table as ``model_prices_and_context_window_backup.json`` beside its own
code; the LiteLLM path prices calls from it (``litellm.cost_per_token``) and the context-window
fallback reads it (``litellm.get_model_info``). Providers that never import LiteLLM (the thin
OpenAI-SDK path) read the same file here: ≈2 MB of JSON, parsed once in ≈15 ms and kept as a
small ``name -> (input price, output price, window)`` map (≈4 MB), where importing LiteLLM
costs ≈200 MB and seconds.

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


_table: dict[str, ModelFacts] | None = None
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


def _load() -> dict[str, ModelFacts]:
    path = table_path()
    if path is None:
        log.debug("LiteLLM's model table is not installed: no prices, no windows")
        return {}
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        log.warning("LiteLLM's model table %s cannot be read: %s", path, exc)
        return {}
    if not isinstance(raw, dict):
        return {}
    facts: dict[str, ModelFacts] = {}
    for name, entry in raw.items():
        if not isinstance(entry, dict) or name == "sample_spec":
            continue
        facts[name.lower()] = ModelFacts(
            _number(entry.get("input_cost_per_token")),
            _number(entry.get("output_cost_per_token")),
            _window(entry),
        )
    return facts


def model_table() -> dict[str, ModelFacts]:
    """The table, read on first use (blocking: call it in a thread)."""
    global _table
    with _lock:
        if _table is None:
            _table = _load()
        return _table


def lookup(model: str) -> ModelFacts | None:
    """The facts of ``model`` as a LiteLLM route names it (blocking on first use)."""
    table = model_table()
    name = model.lower()
    found = table.get(name)
    if found is None and "/" in name:
        found = table.get(name.split("/", 1)[1])
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
