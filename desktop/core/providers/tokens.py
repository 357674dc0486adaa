"""Offline token counting with tiktoken.

tiktoken downloads its encodings on first use; LiteLLM ships the cl100k/o200k files, so we
point ``TIKTOKEN_CACHE_DIR`` at LiteLLM's copy (found without importing LiteLLM, which is slow).
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
from pathlib import Path
from typing import Any

DEFAULT_ENCODING = "cl100k_base"
_PER_MESSAGE = 4


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


def count_text(text: str, encoding: str = DEFAULT_ENCODING) -> int:
    """Tokens in ``text``."""
    if not text:
        return 0
    return len(_encoding(encoding).encode(text, disallowed_special=()))


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


def count_messages(messages: list[dict[str, Any]], encoding: str = DEFAULT_ENCODING) -> int:
    """Estimated prompt tokens of a chat request's messages."""
    total = 3
    for message in messages:
        total += _PER_MESSAGE + count_text(_content_text(message.get("content")), encoding)
        if message.get("tool_calls"):
            total += count_text(json.dumps(message["tool_calls"], ensure_ascii=False), encoding)
        for key in ("name", "tool_call_id"):
            if message.get(key):
                total += count_text(str(message[key]), encoding)
    return total


def count_tools(tools: list[dict[str, Any]] | None, encoding: str = DEFAULT_ENCODING) -> int:
    """Estimated tokens of a tool list (the JSON schemas as sent)."""
    if not tools:
        return 0
    return count_text(json.dumps(tools, ensure_ascii=False, separators=(",", ":")), encoding)
