"""Offline token counting with tiktoken.

tiktoken downloads its encodings on first use; LiteLLM ships the cl100k/o200k files, so we
point ``TIKTOKEN_CACHE_DIR`` at LiteLLM's copy (found without importing LiteLLM, which is slow).

Counting is the expensive part of fitting a request to the context window (about 2 ms per
10 KB of text), and the same messages are measured again at every model call. So:

* :func:`message_tokens` remembers the count of each message object, keyed by identity, and
  keeps the message alive while it is remembered (so no other object can take its id).
  Messages are treated as immutable once built, as everywhere in the agent (a message is
  replaced, never edited in place); an edit in place would not be noticed. The table is
  bounded: it drops its older half when full. :func:`count_messages` looks the counts of a
  whole list up at C speed, so measuring a 50,000-message request costs milliseconds.
* Most requests are far below their budget, and whether one fits does not need the encoding
  (≈45 MB resident and ≈0.5 s to load): :func:`surely_within` decides that from the UTF-8
  length, an upper bound of the count, and the encoding loads only for requests near the limit.
* System messages are not remembered per object (one is built for every turn and would keep
  its large text alive); :func:`count_text` remembers recent long texts by value instead (the
  system prompt is usually the same text from turn to turn).
"""

from __future__ import annotations

import functools
import importlib.util
import itertools
import json
import operator
import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

DEFAULT_ENCODING = "cl100k_base"
_PER_MESSAGE = 4
MESSAGE_CACHE_ENTRIES = 200_000
TEXT_CACHE_ENTRIES = 64
TEXT_CACHE_MIN_CHARS = 512  # shorter texts are counted faster than they are hashed and kept
TEXT_CACHE_MAX_CHARS = 256 * 1024

# Per encoding: id(message) -> tokens; _held keeps those messages alive (same keys, same order).
_counts: dict[str, dict[int, int]] = {}
_held: dict[int, dict[str, Any]] = {}
_text_cache: OrderedDict[tuple[str, str], int] = OrderedDict()
_cache_guard = threading.Lock()


def _litellm_tokenizer_dir() -> Path | None:
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location) / "litellm_core_utils" / "tokenizers"
        if candidate.is_dir():
            return candidate
    return None


def ensure_offline_tiktoken() -> None:
    """Point tiktoken at LiteLLM's bundled encodings unless the user chose a cache dir."""
    if "TIKTOKEN_CACHE_DIR" in os.environ:
        return
    directory = _litellm_tokenizer_dir()
    if directory is not None:
        os.environ["TIKTOKEN_CACHE_DIR"] = str(directory)


@functools.lru_cache(maxsize=4)
def _encoding(name: str) -> Any:
    ensure_offline_tiktoken()
    import tiktoken

    return tiktoken.get_encoding(name)


def _encode_count(text: str, encoding: str) -> int:
    return len(_encoding(encoding).encode(text, disallowed_special=()))


def count_text(text: str, encoding: str = DEFAULT_ENCODING) -> int:
    """Tokens in ``text`` (long texts seen recently are not encoded again)."""
    if not text:
        return 0
    if not TEXT_CACHE_MIN_CHARS <= len(text) <= TEXT_CACHE_MAX_CHARS:
        return _encode_count(text, encoding)
    key = (encoding, text)
    with _cache_guard:
        cached = _text_cache.get(key)
        if cached is not None:
            _text_cache.move_to_end(key)
            return cached
    tokens = _encode_count(text, encoding)
    with _cache_guard:
        _text_cache[key] = tokens
        while len(_text_cache) > TEXT_CACHE_ENTRIES:
            _text_cache.popitem(last=False)
    return tokens


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        pieces = []
        for part in content:
            if isinstance(part, dict) and part.get("type") == "text":
                pieces.append(str(part.get("text", "")))
            elif isinstance(part, dict) and part.get("type") == "image_url":
                pieces.append(" " * 340)  # images cost roughly 85 tokens at low detail
        return "".join(pieces)
    return str(content)


def _message_tokens_uncached(message: dict[str, Any], encoding: str) -> int:
    tokens = _PER_MESSAGE + count_text(_content_text(message.get("content")), encoding)
    if message.get("tool_calls"):
        tokens += count_text(json.dumps(message["tool_calls"], ensure_ascii=False), encoding)
    for key in ("name", "tool_call_id"):
        if message.get(key):
            tokens += count_text(str(message[key]), encoding)
    return tokens


def message_tokens(message: dict[str, Any], encoding: str = DEFAULT_ENCODING) -> int:
    """Tokens one message adds to a request, remembered per message object (see the module
    docstring)."""
    if message.get("role") == "system":
        return _message_tokens_uncached(message, encoding)
    counts = _counts.get(encoding)
    if counts is not None:
        known = counts.get(id(message))
        if known is not None:
            return known
    tokens = _message_tokens_uncached(message, encoding)
    with _cache_guard:
        counts = _counts.setdefault(encoding, {})
        if len(_held) >= MESSAGE_CACHE_ENTRIES:
            # Drop the older half at once (insertion order is age): cheaper than keeping an
            # LRU order on every lookup, and a count is quick to redo.
            for key in list(itertools.islice(_held, MESSAGE_CACHE_ENTRIES // 2)):
                del _held[key]
                for table in _counts.values():
                    table.pop(key, None)
        _held[id(message)] = message
        counts[id(message)] = tokens
    return tokens


def count_messages(messages: list[dict[str, Any]], encoding: str = DEFAULT_ENCODING) -> int:
    """Estimated prompt tokens of a chat request's messages: 3 + the sum of
    :func:`message_tokens` (remembered counts are looked up at C speed)."""
    counts = _counts.get(encoding, {})
    found = list(map(counts.get, map(id, messages)))
    total = 3 + sum(filter(None, found))
    if None in found:
        missing = itertools.compress(messages, map(operator.is_, found, itertools.repeat(None)))
        total += sum(message_tokens(message, encoding) for message in missing)
    return total


def clear_caches() -> None:
    """Forget every remembered count (tests and benchmarks use this for a cold start)."""
    with _cache_guard:
        _counts.clear()
        _held.clear()
        _text_cache.clear()


def count_tools(tools: list[dict[str, Any]] | None, encoding: str = DEFAULT_ENCODING) -> int:
    """Estimated tokens of a tool list (the JSON schemas as sent)."""
    if not tools:
        return 0
    return count_text(json.dumps(tools, ensure_ascii=False, separators=(",", ":")), encoding)


def _bytes(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _message_bound(message: dict[str, Any], known: dict[int, int]) -> int:
    """At least :func:`message_tokens` of ``message`` (its remembered count when there is one)."""
    remembered = known.get(id(message))
    if remembered is not None:
        return remembered
    bound = _PER_MESSAGE + _bytes(_content_text(message.get("content")))
    if message.get("tool_calls"):
        bound += _bytes(json.dumps(message["tool_calls"], ensure_ascii=False))
    for key in ("name", "tool_call_id"):
        if message.get(key):
            bound += _bytes(str(message[key]))
    return bound


def surely_within(
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
    limit: int,
    encoding: str = DEFAULT_ENCODING,
) -> bool:
    """Whether ``count_messages(messages) + count_tools(tools)`` is surely at most ``limit``,
    decided without loading the encoding.

    A token of tiktoken's byte-level encodings stands for at least one byte of the text's
    UTF-8 form (lone surrogates are replaced by U+FFFD, three bytes, as their own three), so
    the byte length bounds each count from above; remembered counts are used as they are.
    ``False`` means "count to know", not "over the limit".
    """
    known = _counts.get(encoding, {})
    total = 3
    if tools:
        total += _bytes(json.dumps(tools, ensure_ascii=False, separators=(",", ":")))
    for message in messages:
        if total > limit:
            return False
        total += _message_bound(message, known)
    return total <= limit
