"""Errors raised while loading or saving the config."""

from __future__ import annotations

from pathlib import Path


class ConfigError(Exception):
    """A config file that cannot be used, with where and why.

    Attributes:
        path: The file.
        line: 1-based line of the problem, when known.
        field: Dotted path of the offending field, when known.
        reason: Human-readable explanation.
    """

    def __init__(
        self, path: Path, reason: str, *, line: int | None = None, field: str | None = None
    ) -> None:
        self.path = path
        self.line = line
        self.field = field
        self.reason = reason
        where = str(path) + (f", line {line}" if line else "")
        what = f"field '{field}': " if field else ""
        super().__init__(f"{where}: {what}{reason}")
