"""Load and save ``config.json``.

Loading: JSON (the shared tolerant reader, :mod:`desktop.core.utils.validate`) → ``NANOBOT_``
environment overrides (``__`` nests) → ``${VAR}`` references resolved → pydantic validation,
field by field (:mod:`desktop.core.config.validate`): a value that does not fit (a wrong type,
``NaN``, nesting deeper than the reader allows) is dropped so its default applies, with a
warning naming the file, the line and the field, and the file is copied byte-exact beside
itself (``config.json.corrupt-<time>``) before any save can replace the bad value. An
environment override that does not fit is the override's fault, not the file's: it is left
out (the file's own value applies), the warning names the variable, and no copy of the file
is made; an override of a safety setting that does not fit raises :class:`ConfigError`. Only a
file that cannot be used at all (a folder, not UTF-8, not JSON, nested beyond the parser, not
an object), a safety setting that does not fit, or a workspace path that is a file raise
:class:`ConfigError`. Saving is atomic, writes camelCase, keeps unknown keys, and writes back
``${VAR}`` references and the file's own values where an environment override was in force, so
neither resolved secrets nor temporary overrides ever reach the disk. A file that is not valid
JSON is never overwritten.

Settings nanobot 0.3.5 does not know (:data:`~desktop.core.config.product.PRODUCT_PATHS`) are
read from and saved to ``desktop.json`` beside the file (:mod:`desktop.core.config.product`);
one still found in ``config.json`` is moved there once the file has loaded cleanly.
"""

from __future__ import annotations

import copy
import json
import logging
import os
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic.alias_generators import to_camel, to_snake

from desktop.core.config import product
from desktop.core.config.errors import ConfigError
from desktop.core.config.paths import default_config_path
from desktop.core.config.prefs_peek import prefs_path
from desktop.core.config.schema import Config
from desktop.core.config.validate import FAIL_CLOSED, FieldProblem, FieldRejected, validate_fields
from desktop.core.utils.atomic import atomic_write_text
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.redact import register_secret
from desktop.core.utils.validate import (
    MAX_DOCUMENT_BYTES,
    Unusable,
    decode_utf8,
    load_json_text,
    read_bytes_limited,
    set_aside_file,
)

log = logging.getLogger(__name__)

ENV_PREFIX = "NANOBOT_"
_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_MISSING = object()
_TOP_LEVEL = set(Config.model_fields)

JsonPath = tuple[str, ...]


@dataclass
class ConfigOrigin:
    """Where a loaded config came from and what must not be written back as-is.

    Attributes:
        path: The config file.
        existed: Whether the file existed at load time.
        preserved: Paths whose on-disk value differs from the effective one: the file's raw
            value (``${VAR}`` text, or the value under an env override) and the effective value.
        warnings: Non-fatal problems found while loading (e.g. an unset ``${VAR}``).
        from_prefs: Product settings whose value came from ``desktop.json``.
    """

    path: Path
    existed: bool = False
    preserved: dict[JsonPath, tuple[Any, Any]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    from_prefs: set[JsonPath] = field(default_factory=set)


def _key_in(mapping: Mapping[str, Any], name: str) -> str:
    """Return the key of ``mapping`` that spells ``name`` (camel or snake), else camelCase."""
    for candidate in (name, to_camel(name), to_snake(name)):
        if candidate in mapping:
            return candidate
    return to_camel(name)


def _get(data: Any, path: JsonPath) -> Any:
    for part in path:
        if not isinstance(data, dict) or part not in data:
            return _MISSING
        data = data[part]
    return data


def _apply_env(
    data: dict[str, Any],
    environ: Mapping[str, str],
    origin: ConfigOrigin,
    skip: Collection[str] = (),
) -> dict[str, JsonPath]:
    """Apply ``NANOBOT_SECTION__SUB__KEY=value`` overrides in place (except those in ``skip``);
    returns each applied variable's path in ``data``."""
    applied: dict[str, JsonPath] = {}
    for name in sorted(environ):
        if not name.startswith(ENV_PREFIX) or name in skip:
            continue
        parts = [p.lower() for p in name[len(ENV_PREFIX) :].split("__") if p]
        if not parts or to_snake(parts[0]) not in _TOP_LEVEL:
            continue
        node = data
        path: list[str] = []
        for part in parts[:-1]:
            key = _key_in(node, part)
            path.append(key)
            child = node.get(key)
            if not isinstance(child, dict):
                child = {}
                node[key] = child
            node = child
        key = _key_in(node, parts[-1])
        path.append(key)
        raw_value = environ[name]
        try:
            value, problems = load_json_text(raw_value)
        except Unusable:
            value, problems = raw_value, []
        if problems:
            value = raw_value
        origin.preserved[tuple(path)] = (node.get(key, _MISSING), value)
        node[key] = value
        applied[name] = tuple(path)
    return applied


def _override_at(loc: tuple[Any, ...], overrides: Mapping[str, JsonPath]) -> str | None:
    """The environment variable that set the value at ``loc`` (or a value around it)."""
    where = tuple(to_snake(p) for p in loc if isinstance(p, str))
    for name, path in overrides.items():
        snake = tuple(to_snake(p) for p in path)
        if where[: len(snake)] == snake:
            return name
    return None


def _resolve_refs(
    node: Any, path: JsonPath, environ: Mapping[str, str], origin: ConfigOrigin
) -> Any:
    """Replace ``${VAR}`` in every string, remembering the raw text for saving."""
    if isinstance(node, dict):
        return {k: _resolve_refs(v, (*path, k), environ, origin) for k, v in node.items()}
    if isinstance(node, list):
        return [_resolve_refs(v, (*path, str(i)), environ, origin) for i, v in enumerate(node)]
    if isinstance(node, str) and _REF.search(node):

        def sub(match: re.Match[str]) -> str:
            var = match.group(1)
            if var not in environ:
                origin.warnings.append(
                    f"{'.'.join(path)}: environment variable {var} is not set; using an empty value"
                )
                return ""
            return environ[var]

        resolved = _REF.sub(sub, node)
        if path not in origin.preserved:
            origin.preserved[path] = (node, resolved)
        return resolved
    return node


def _locate(text: str, loc: tuple[Any, ...]) -> int | None:
    """Best-effort 1-based line of the JSON key at ``loc`` (a pydantic error location)."""
    pos = 0
    found: int | None = None
    for part in loc:
        if not isinstance(part, str):
            continue
        for candidate in dict.fromkeys((part, to_camel(part), to_snake(part))):
            match = re.compile(r'"' + re.escape(candidate) + r'"\s*:').search(text, pos)
            if match:
                pos = match.end()
                found = text.count("\n", 0, match.start()) + 1
                break
    return found


def read_json_object(path: Path) -> tuple[dict[str, Any], str]:
    """Read ``path`` as a JSON object, raising :class:`ConfigError` with the line on failure.

    Values the tolerant reader had to remove (``NaN``, lone surrogates, nesting deeper than it
    allows) are left out; :func:`read_config_object` also reports them.
    """
    data, text, _ = read_config_object(path)
    return data, text


def read_config_object(path: Path) -> tuple[dict[str, Any], str, list[str]]:
    """``(object, text, problems)`` of a JSON settings file (``({}, "", [])`` when blank).

    Raises:
        ConfigError: A folder or special file, unreadable, too large, not UTF-8, not JSON,
            nested beyond the parser's reach, or not an object.
    """
    try:
        raw = read_bytes_limited(path, MAX_DOCUMENT_BYTES)
        text = decode_utf8(raw or b"")
    except Unusable as exc:
        raise ConfigError(path, exc.reason) from None
    if not text.strip():
        return {}, text, []
    try:
        data, problems = load_json_text(text)
    except Unusable as exc:
        raise ConfigError(path, exc.reason, line=exc.line) from None
    if not isinstance(data, dict):
        raise ConfigError(path, Phrase(QT_TR_NOOP("the top level must be a JSON object")), line=1)
    return data, text, problems


SAFETY = QT_TR_NOOP("{problem} (a safety setting: fix it, no default is assumed)")


def _field_warning(path: Path, text: str, problem: FieldProblem) -> str:
    line = _locate(text, problem.loc) if text else None
    where = f", line {line}" if line else ""
    return f"{path}{where}: field '{problem.dotted}': {problem.message}; the default is used"


def _in_prefs(origin: ConfigOrigin, loc: tuple[Any, ...]) -> bool:
    """Whether a problem at ``loc`` is in a value that came from ``desktop.json``."""
    return product.is_product_loc(loc) in origin.from_prefs


def _validate(
    path: Path,
    text: str,
    file_data: dict[str, Any],
    environ: Mapping[str, str],
    origin: ConfigOrigin,
) -> tuple[Config, dict[str, Any], int, int]:
    """Apply the environment, resolve references and validate field by field: bad fields of
    the files get their defaults and a warning; a bad environment override is left out (the
    file's own value applies) and reported by its variable's name.

    Returns:
        The config, the data it was made from, how many fields of ``config.json`` were
        dropped, and how many of ``desktop.json`` (product settings).

    Raises:
        ConfigError: A safety setting does not fit (in a file, or from an override).
    """
    prefs_file = prefs_path(path)
    refused: dict[str, str] = {}  # override -> why it was left out
    while True:  # each round leaves out at least one more override, so it ends
        trial = ConfigOrigin(path=origin.path, existed=origin.existed)
        data = copy.deepcopy(file_data)
        overrides = _apply_env(data, environ, trial, skip=refused)
        data = _resolve_refs(data, (), environ, trial)
        try:
            config, problems = validate_fields(Config, data, fail_closed=FAIL_CLOSED)
        except FieldRejected as exc:
            loc = exc.problem.loc
            dotted = ".".join(str(p) for p in loc)
            message = Phrase(SAFETY, problem=exc.problem.message)
            name = _override_at(loc, overrides)
            if name is not None:
                misfit = Phrase(
                    QT_TR_NOOP("the environment override {name} does not fit: {problem}"),
                    name=name,
                    problem=message,
                )
                raise ConfigError(path, misfit, field=dotted) from None
            if _in_prefs(origin, loc):
                where = f"{product.SECTION}.{dotted}"
                raise ConfigError(prefs_file, message, field=where) from None
            line = _locate(text, loc) if text else None
            raise ConfigError(path, message, line=line, field=dotted or None) from None
        theirs = {p: _override_at(p.loc, overrides) for p in problems}
        if not any(theirs.values()):
            break
        refused.update({name: p.message for p, name in theirs.items() if name is not None})
    origin.preserved.update(trial.preserved)
    origin.warnings.extend(trial.warnings)
    origin.warnings.extend(
        f"environment override {name}: {why}; it is ignored ({path.name}'s own value, or the "
        "default, applies)"
        for name, why in refused.items()
    )
    in_prefs = [p for p in problems if _in_prefs(origin, p.loc)]
    for problem in problems:
        if problem in in_prefs:
            origin.warnings.append(
                f"{prefs_file}: field '{product.SECTION}.{problem.dotted}': {problem.message}; "
                "the default is used"
            )
        else:
            origin.warnings.append(_field_warning(path, text, problem))
    return config, data, len(problems) - len(in_prefs), len(in_prefs)


def _refuse_removed_safety_values(path: Path, text: str, problems: list[str]) -> None:
    """A safety setting the reader had to remove (``NaN``…) must not fall back either."""
    for problem in problems:
        loc = getattr(problem, "path", ())
        snake = tuple(to_snake(p) for p in loc if isinstance(p, str))
        if FAIL_CLOSED(snake):
            dotted = ".".join(str(p) for p in loc)
            raise ConfigError(
                path,
                Phrase(SAFETY, problem=str(problem)),
                line=_locate(text, loc) if text else None,
                field=dotted,
            )


def _keep_copy(path: Path, origin: ConfigOrigin) -> None:
    """Copy a config with dropped values aside before a save can replace them."""
    try:
        copy = set_aside_file(path)
    except OSError as exc:
        origin.warnings.append(f"{path}: could not keep a copy of the file ({exc})")
        return
    origin.warnings.append(f"{path}: the file as it was is kept in {copy.name}")


def _check_workspace(path: Path, config: Config) -> None:
    """Refuse a workspace that is a file, or lies below one (nothing could be created there)."""
    workspace = Path(os.path.abspath(config.workspace_path))
    probe = workspace
    while not os.path.lexists(probe) and probe != probe.parent:
        probe = probe.parent
    if os.path.isdir(probe):
        return
    if probe == workspace:
        template = QT_TR_NOOP("the workspace {workspace} is a file, not a folder; choose a folder")
    else:
        template = QT_TR_NOOP(
            "the workspace {workspace} lies inside {file}, which is a file, not a folder; "
            "choose a folder"
        )
    reason = Phrase(template, workspace=str(workspace), file=str(probe))
    raise ConfigError(path, reason, field="agents.defaults.workspace")


def load_config(
    path: Path | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    workspace: Path | None = None,
) -> Config:
    """Load a config file (defaults when it does not exist).

    Args:
        path: The file; ``~/.nanobot/config.json`` when ``None``.
        environ: Environment for overrides and ``${VAR}`` references (``os.environ`` by default).
        workspace: A workspace that overrides the configured one for this run (``--workspace``).

    Returns:
        The validated config. ``config_origin(config)`` tells where it came from.

    Raises:
        ConfigError: The file is unreadable, not JSON, or does not fit the schema.
    """
    path = (path or default_config_path()).expanduser()
    env = os.environ if environ is None else environ
    origin = ConfigOrigin(path=path, existed=os.path.lexists(path))
    data, text, problems = read_config_object(path) if origin.existed else ({}, "", [])
    _refuse_removed_safety_values(path, text, problems)
    origin.warnings.extend(f"{path}: {problem}; the value is ignored" for problem in problems)
    to_move = product.found(data)
    prefs_file = prefs_path(path)
    origin.from_prefs = set(product.fill_missing(data, product.read_extras(prefs_file)))
    config, data, dropped, dropped_prefs = _validate(path, text, data, env, origin)
    if origin.existed and (problems or dropped):
        _keep_copy(path, origin)
    if dropped_prefs:
        _keep_copy(prefs_file, origin)
    if to_move and not (problems or dropped):
        _move_product_settings(path, prefs_file, origin)
    if workspace is not None:
        ws_key = ("agents", "defaults", "workspace")
        previous = origin.preserved.get(ws_key, (_get(data, ws_key), None))[0]
        origin.preserved[ws_key] = (previous, str(workspace))
        config.agents.defaults.workspace = str(workspace)
    _check_workspace(path, config)
    for name in type(config.providers).model_fields:
        section = config.provider_config(name)
        if section and section.api_key:
            register_secret(section.api_key)
    for warning in origin.warnings:  # callers show them (the CLI prints, the app logs them)
        log.info("%s: %s", path, warning)
    config._origin = origin
    return config


def _move_product_settings(path: Path, prefs_file: Path, origin: ConfigOrigin) -> None:
    """Move the product settings found in ``config.json`` to ``desktop.json`` (once)."""
    try:
        product.migrate(path, prefs_file)
    except OSError as exc:  # filelock's Timeout too; the values in config.json are used
        origin.warnings.append(
            f"{path}: settings nanobot does not know could not be moved to {prefs_file.name} "
            f"({exc}); nanobot may drop them when it saves the file"
        )


def config_origin(config: Config) -> ConfigOrigin:
    """Return the origin recorded by :func:`load_config` (a fresh one for unsaved configs)."""
    if config._origin is None:
        config._origin = ConfigOrigin(path=default_config_path())
    origin: ConfigOrigin = config._origin
    return origin


def _set(data: dict[str, Any], path: JsonPath, value: Any) -> None:
    node = data
    for part in path[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            return
        node = child
    if value is _MISSING:
        node.pop(path[-1], None)
    else:
        node[path[-1]] = value


def _camel_path(path: JsonPath) -> JsonPath:
    return tuple(to_camel(p) if "_" in p else p for p in path)


def config_to_json(config: Config) -> dict[str, Any]:
    """The JSON object to write for ``config``, with preserved raw values restored."""
    data = config.model_dump(mode="json", by_alias=True)
    for raw_path, (raw, effective) in config_origin(config).preserved.items():
        current = _get(data, _camel_path(raw_path))
        if current is _MISSING:
            current = _get(data, raw_path)
            target = raw_path
        else:
            target = _camel_path(raw_path)
        if current == effective:
            if raw is _MISSING:
                raw = _get(Config().model_dump(mode="json", by_alias=True), target)
            _set(data, target, raw)
    defaults = _get(data, ("agents", "defaults"))
    if isinstance(defaults, dict) and defaults.get("timezone", "") is None:
        # Unset means "the system's zone". nanobot 0.3.5 reads a missing key that way too, but
        # refuses the whole file when it finds ``"timezone": null``.
        del defaults["timezone"]
    return data


def save_config(config: Config, path: Path | None = None) -> Path:
    """Write ``config`` atomically (camelCase, unknown keys kept, references kept).

    Settings nanobot does not know go to ``desktop.json`` beside it (written first).

    Raises:
        ConfigError: The file on disk is not valid JSON: it is left untouched so the user can
            repair it, and nothing is written.
        OSError: A file cannot be written.
    """
    origin = config_origin(config)
    target = (path or origin.path).expanduser()
    if target.exists():
        read_json_object(target)  # refuse to overwrite a malformed file
    data = config_to_json(config)
    product.write_extras(prefs_path(target), product.take(data))
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    atomic_write_text(target, text, mode=0o600)
    origin.path = target
    origin.existed = True
    return target
