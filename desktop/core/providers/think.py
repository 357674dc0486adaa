"""Split ``<think>…</think>`` out of a text stream, chunk by chunk."""

from __future__ import annotations

from typing import Literal

_OPEN = "<think>"
_CLOSE = "</think>"

Piece = tuple[Literal["text", "reasoning"], str]


class ThinkSplitter:
    """Route streamed text inside ``<think>`` tags to reasoning, the rest to content.

    Tags may be split across chunks: a trailing fragment that could start a tag is held back
    until the next chunk (or :meth:`flush`) decides.
    """

    def __init__(self) -> None:
        self._inside = False
        self._pending = ""

    def feed(self, chunk: str) -> list[Piece]:
        """Consume ``chunk`` and return the pieces that are certain."""
        text = self._pending + chunk
        self._pending = ""
        pieces: list[Piece] = []
        while text:
            tag = _CLOSE if self._inside else _OPEN
            kind: Literal["text", "reasoning"] = "reasoning" if self._inside else "text"
            index = text.lower().find(tag)
            if index >= 0:
                if index:
                    pieces.append((kind, text[:index]))
                text = text[index + len(tag) :]
                self._inside = not self._inside
                continue
            hold = 0
            for size in range(min(len(tag) - 1, len(text)), 0, -1):
                if tag.startswith(text[-size:].lower()):
                    hold = size
                    break
            if hold:
                self._pending = text[-hold:]
                text = text[:-hold]
            if text:
                pieces.append((kind, text))
            break
        return pieces

    def flush(self) -> list[Piece]:
        """Release anything held back at the end of the stream."""
        if not self._pending:
            return []
        kind: Literal["text", "reasoning"] = "reasoning" if self._inside else "text"
        pending, self._pending = self._pending, ""
        return [(kind, pending)]
