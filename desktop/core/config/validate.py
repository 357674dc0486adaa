"""Field-by-field validation of the JSON settings files (``config.json``, ``desktop.json``).

:func:`validate_fields` validates a parsed object against a pydantic model; a field that does
not fit is removed (so the model's default applies) and reported, and validation runs again
until the rest fits. The good settings are kept; the caller copies the file aside before a
save can replace the bad values. A field whose default would widen what the agent may do
(:data:`FAIL_CLOSED`) is not replaced: :class:`FieldRejected` is raised instead, so a typo can
never switch a safety setting off.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic.alias_generators import to_camel, to_snake

ModelT = TypeVar("ModelT", bound=BaseModel)
Loc = tuple[Any, ...]
MAX_ROUNDS = 500


def _fail_closed_config(parts: tuple[str, ...]) -> bool:
    """``config.json`` fields whose default is less safe than a value the person chose."""
    return (
        parts[:2] == ("tools", "restrict_to_workspace")
        or parts[:3] == ("tools", "exec", "deny_patterns")
        or parts[:3] == ("tools", "exec", "sandbox_network")
        or (len(parts) >= 3 and parts[0] == "channels" and parts[2] == "allow_from")
    )


FAIL_CLOSED: Callable[[tuple[str, ...]], bool] = _fail_closed_config


@dataclass(frozen=True)
class FieldProblem:
    """One field that was removed so its default applies.

    Attributes:
        loc: The path in the JSON object (keys as written in the file, list indices as ints).
        message: What was wrong with it.
    """

    loc: Loc
    message: str

    @property
    def dotted(self) -> str:
        """``agents.defaults.maxToolIterations`` style path ("(top level)" when empty)."""
        return ".".join(str(p) for p in self.loc) or "(top level)"


class FieldRejected(ValueError):
    """A field that must not fall back to its default (see :data:`FAIL_CLOSED`)."""

    def __init__(self, problem: FieldProblem) -> None:
        super().__init__(f"{problem.dotted}: {problem.message}")
        self.problem = problem


def _key(container: dict[str, Any], part: str) -> str | None:
    for candidate in dict.fromkeys((part, to_camel(part), to_snake(part))):
        if candidate in container:
            return candidate
    return None


def _remove(data: dict[str, Any], loc: Loc) -> Loc | None:
    """Delete the deepest existing entry along ``loc``; return its path in the file."""
    node: Any = data
    parent: Any = None
    taken: list[Any] = []
    for part in loc:
        if isinstance(node, dict) and isinstance(part, str) and (key := _key(node, part)):
            parent, node = node, node[key]
            taken.append(key)
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            parent, node = node, node[part]
            taken.append(part)
        else:
            continue  # a union member or validator tag pydantic adds to the location
    if parent is None or not taken:
        return None
    del parent[taken[-1]]
    return tuple(taken)


def validate_fields(
    model: type[ModelT],
    data: dict[str, Any],
    *,
    fail_closed: Callable[[tuple[str, ...]], bool] | None = None,
) -> tuple[ModelT, list[FieldProblem]]:
    """Validate ``data`` (changed in place) dropping the fields that do not fit.

    Args:
        model: The pydantic model.
        data: The parsed JSON object; bad fields are deleted from it.
        fail_closed: Predicate on a field's snake_case path: ``True`` means the field must not
            fall back to its default.

    Returns:
        The validated model and the fields that were dropped. When nothing can be kept, the
        model's defaults and a problem at the top level.

    Raises:
        FieldRejected: A field matching ``fail_closed`` is invalid.
    """
    problems: list[FieldProblem] = []
    for _ in range(MAX_ROUNDS):
        try:
            return model.model_validate(data), problems
        except ValidationError as exc:
            error = exc.errors()[0]
            loc = tuple(error.get("loc", ()))
            message = str(error.get("msg", "invalid value"))
            snake = tuple(to_snake(p) for p in loc if isinstance(p, str))
            if fail_closed is not None and fail_closed(snake):
                raise FieldRejected(FieldProblem(loc, message)) from None
            removed = _remove(data, loc)
            if removed is None:
                break
            problems.append(FieldProblem(removed, message))
    problems.append(FieldProblem((), "the settings could not be validated; defaults are used"))
    return model(), problems
