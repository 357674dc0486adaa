"""Argument casting and validation against a tool's JSON schema.

Models often send ``"60"`` for an integer or ``"true"`` for a boolean: :func:`cast_params`
fixes such obvious cases first, then :func:`validate_params` checks types, enums, bounds,
lengths, required keys and nested objects/arrays, with path-qualified messages
(``edits[1].old_text: required``).
"""

from __future__ import annotations

from typing import Any

_TRUE = {"true", "yes", "1", "on"}
_FALSE = {"false", "no", "0", "off"}


def _cast(schema: dict[str, Any], value: Any) -> Any:  # noqa: C901  # one branch per JSON Schema type
    kind = schema.get("type")
    if isinstance(kind, list):
        return value
    if kind == "integer" and isinstance(value, str):
        text = value.strip()
        if text.lstrip("-").isdecimal() and text.isascii():
            return int(text)
        try:
            number = float(text)
        except ValueError:
            return value
        return int(number) if number.is_integer() else value
    if kind == "integer" and isinstance(value, float) and value.is_integer():
        return int(value)
    if kind == "number" and isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return value
    if kind == "boolean" and isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
    if kind == "string" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if kind == "array" and isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [_cast(schema["items"], item) for item in value]
    if kind == "object" and isinstance(value, dict):
        props = schema.get("properties") or {}
        return {k: _cast(props[k], v) if k in props else v for k, v in value.items()}
    return value


def cast_params(schema: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    """Return ``params`` with obvious type slips fixed (strings to numbers/booleans...)."""
    result = _cast({**schema, "type": "object"}, params)
    return result if isinstance(result, dict) else params


_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}


def _type_ok(kind: str, value: Any) -> bool:
    if kind in ("integer", "number") and isinstance(value, bool):
        return False
    return isinstance(value, _TYPES.get(kind, (object,)))


def _check(schema: dict[str, Any], value: Any, path: str, errors: list[str]) -> None:  # noqa: C901  # one check per JSON Schema keyword
    where = path or "arguments"
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind else []
    if kinds and not any(_type_ok(k, value) for k in kinds):
        errors.append(f"{where}: expected {' or '.join(kinds)}, got {type(value).__name__}")
        return
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{where}: must be one of {', '.join(map(repr, schema['enum']))}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{where}: must be >= {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            errors.append(f"{where}: must be <= {schema['maximum']}")
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            errors.append(f"{where}: must be at least {schema['minLength']} characters")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            errors.append(f"{where}: must be at most {schema['maxLength']} characters")
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            errors.append(f"{where}: needs at least {schema['minItems']} item(s)")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            errors.append(f"{where}: allows at most {schema['maxItems']} item(s)")
        items = schema.get("items")
        if isinstance(items, dict):
            for index, item in enumerate(value):
                _check(items, item, f"{path}[{index}]", errors)
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        errors.extend(
            f"{path + '.' if path else ''}{name}: required"
            for name in schema.get("required") or []
            if name not in value
        )
        for name, item in value.items():
            if name in props:
                _check(props[name], item, f"{path + '.' if path else ''}{name}", errors)
            elif schema.get("additionalProperties") is False:
                errors.append(f"{path + '.' if path else ''}{name}: unknown parameter")


def validate_params(schema: dict[str, Any], params: dict[str, Any]) -> list[str]:
    """Problems with ``params`` under ``schema`` (empty when valid)."""
    errors: list[str] = []
    _check({**schema, "type": "object"}, params, "", errors)
    return errors
