"""Apply a set of changes to the live config, all or nothing.

Settings pages (and anything else that edits the config) describe a save as
``{dotted.path: value}`` with snake_case attribute names (``"agents.defaults.max_tokens"``).
:func:`apply_changes` assigns them one by one — pydantic validates each assignment — and undoes
the ones already made when a later one fails, so an invalid form never leaves the config
half-changed. The returned undo function restores the
previous values, e.g. when the file cannot be written.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from desktop.core.utils.i18n import QT_TR_NOOP, Phrase


class ChangeError(ValueError):
    """A change was refused; nothing was applied.

    Attributes:
        path: The dotted path of the offending value.
        reason: Why, in words for a person (a :class:`~desktop.core.utils.i18n.Phrase` when
            they are ours: the window translates it).

    The message (the one argument) is a phrase, ``"<path>: <reason>"`` in English, which the
    window translates (the reason too, when it is a phrase).
    """

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(Phrase(QT_TR_NOOP("{path}: {reason}"), path=path, reason=reason))


def _parent(root: BaseModel, path: str) -> tuple[Any, str]:
    *parents, leaf = path.split(".")
    node: Any = root
    for part in parents:
        node = node[part] if isinstance(node, dict) else getattr(node, part)
    return node, leaf


def get_value(root: BaseModel, path: str) -> Any:
    """The current value at ``path``."""
    node, leaf = _parent(root, path)
    return node[leaf] if isinstance(node, dict) else getattr(node, leaf)


def _set(root: BaseModel, path: str, value: Any) -> None:
    node, leaf = _parent(root, path)
    if isinstance(node, dict):
        node[leaf] = value
    else:
        setattr(node, leaf, value)


# pydantic's messages for the values a settings form can get wrong, as phrases with its English
# wording (checked against the message before use: another pydantic version's wording is shown
# as it comes), by error type.
_PYDANTIC: dict[str, str] = {
    "greater_than_equal": QT_TR_NOOP("Input should be greater than or equal to {ge}"),
    "less_than_equal": QT_TR_NOOP("Input should be less than or equal to {le}"),
    "greater_than": QT_TR_NOOP("Input should be greater than {gt}"),
    "less_than": QT_TR_NOOP("Input should be less than {lt}"),
    "string_too_short": QT_TR_NOOP("String should have at least {min_length} characters"),
    "int_parsing": QT_TR_NOOP(
        "Input should be a valid integer, unable to parse string as an integer"
    ),
    "int_from_float": QT_TR_NOOP(
        "Input should be a valid integer, got a number with a fractional part"
    ),
    "literal_error": QT_TR_NOOP("Input should be {expected}"),
}


def explain(exc: ValidationError) -> str:
    """The first problem of a pydantic error, without pydantic's boilerplate."""
    first = exc.errors()[0]
    raised = (first.get("ctx") or {}).get("error")
    if isinstance(raised, ValueError) and len(raised.args) == 1:
        said = raised.args[0]
        if isinstance(said, Phrase):  # our validator's own words: the window translates them
            return said
    message = str(first.get("msg", "invalid value"))
    template = _PYDANTIC.get(str(first.get("type")))
    if template is not None:
        try:
            ours: Phrase | None = Phrase(template, **(first.get("ctx") or {}))
        except (KeyError, IndexError, ValueError):
            ours = None
        if ours is not None and ours == message:  # pydantic's English, word for word
            return ours
    return message.removeprefix("Value error, ")


def apply_changes(root: BaseModel, changes: Mapping[str, Any]) -> Callable[[], None]:
    """Assign every ``path → value`` in ``changes`` to ``root``; all or nothing.

    Args:
        root: The config (or any pydantic model with ``validate_assignment``).
        changes: Dotted snake_case attribute paths and their new values.

    Returns:
        A function that puts the previous values back.

    Raises:
        ChangeError: A value was refused (nothing remains applied).
    """
    done: list[tuple[str, Any]] = []

    def undo() -> None:
        for path, old in reversed(done):
            _set(root, path, old)

    for path, value in changes.items():
        old = get_value(root, path)
        try:
            _set(root, path, value)
        except ValidationError as exc:
            undo()
            raise ChangeError(path, explain(exc)) from None
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            undo()
            said = exc.args[0] if len(exc.args) == 1 else None
            raise ChangeError(path, said if isinstance(said, Phrase) else str(exc)) from None
        done.append((path, old))
    return undo
