"""Typed, never-raising access to the fields of one JSON object read from disk.

:class:`Fields` wraps a parsed object and hands out each field with the type the code needs.
A missing field or ``null`` gives the default; a field of the wrong type gives the default too
and adds a problem text (``"job 2.schedule.everyMs: expected a whole number, got 'x'"``), unless
the field is ``required``: then :class:`BadRecord` is raised and the caller sets the whole
record aside. Alternative spellings (camelCase first, then snake_case) are looked up in order.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Any

from desktop.core.utils.validate import MAX_INT


class BadRecord(ValueError):
    """A record (a job, a message…) that cannot be used at all; ``str()`` says why."""


def shown(value: Any) -> str:
    """A short rendering of a bad value for problem texts."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class Fields:
    """Field access for one object.

    Args:
        data: The parsed JSON value (anything: a non-object raises :class:`BadRecord`).
        where: How problem texts name the object (``"job 2"``).
        problems: The list problem texts are appended to.
    """

    def __init__(self, data: Any, where: str, problems: list[str]) -> None:
        if not isinstance(data, Mapping):
            raise BadRecord(f"{where} is not an object (got {shown(data)})")
        self.data = data
        self.where = where
        self.problems = problems

    def lookup(self, *names: str) -> tuple[str, Any]:
        """The first spelling present and its value (``(names[0], None)`` when absent)."""
        for name in names:
            if name in self.data:
                return name, self.data[name]
        return names[0], None

    def _wrong(self, name: str, expected: str, value: Any, *, required: bool) -> None:
        text = f"{self.where}.{name}: expected {expected}, got {shown(value)}"
        if required:
            raise BadRecord(text)
        self.problems.append(text + "; using the default")

    def text(self, *names: str, default: str | None = None, required: bool = False) -> str | None:
        """A string field (``default`` when missing or ``null``)."""
        name, value = self.lookup(*names)
        if value is None:
            if required:
                raise BadRecord(f"{self.where}.{name} is missing")
            return default
        if isinstance(value, str):
            return value
        self._wrong(name, "text", value, required=required)
        return default

    def integer(
        self,
        *names: str,
        default: int | None = None,
        minimum: int = 0,
        maximum: int = MAX_INT,
        required: bool = False,
    ) -> int | None:
        """A whole number in ``[minimum, maximum]`` (a bool or a float is not one)."""
        name, value = self.lookup(*names)
        if value is None:
            if required:
                raise BadRecord(f"{self.where}.{name} is missing")
            return default
        if isinstance(value, int) and not isinstance(value, bool) and minimum <= value <= maximum:
            return value
        self._wrong(name, f"a whole number from {minimum} to {maximum}", value, required=required)
        return default

    def flag(self, *names: str, default: bool, invalid: bool | None = None) -> bool:
        """A ``true``/``false`` field; a wrong type gives ``invalid`` (else ``default``)."""
        name, value = self.lookup(*names)
        if value is None:
            return default
        if isinstance(value, bool):
            return value
        fallback = default if invalid is None else invalid
        word = "true" if fallback else "false"
        self.problems.append(
            f"{self.where}.{name}: expected true or false, got {shown(value)}; using {word}"
        )
        return fallback

    def mapping(self, *names: str) -> dict[str, Any]:
        """An object field (``{}`` when missing, ``null`` or of the wrong type)."""
        name, value = self.lookup(*names)
        if value is None:
            return {}
        if isinstance(value, Mapping):
            return dict(value)
        self._wrong(name, "an object", value, required=False)
        return {}

    def items(self, *names: str) -> list[Any]:
        """A list field (``[]`` when missing, ``null`` or of the wrong type)."""
        name, value = self.lookup(*names)
        if value is None:
            return []
        if isinstance(value, list):
            return value
        self._wrong(name, "a list", value, required=False)
        return []

    def extras(self, known: Collection[str]) -> dict[str, Any]:
        """The fields not in ``known``, kept as they are."""
        return {k: v for k, v in self.data.items() if k not in known}
